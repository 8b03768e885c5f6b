package sample

import "math"

// surprise is −log₂ p, in bits.
func surprise(p float32) float32 { return -float32(math.Log2(float64(p))) }

// MirostatV2 (Mirostat 2.0) keeps the tokens whose surprise is at most mu (at least the most likely one) and
// draws one with the uniform number u. It returns the token and its probability among those kept; the caller
// moves mu by −eta·(surprise − tau).
func MirostatV2(c *Candidates, mu float32, u float64) (id int32, p float32) {
	c.Sort()
	c.Softmax()
	n := len(c.Items)
	for i, it := range c.Items {
		if surprise(it.P) > mu {
			n = i
			break
		}
	}
	c.Items = c.Items[:max(n, 1)]
	i := draw(c, u)
	return c.Items[i].ID, c.Items[i].P
}

// mirostatM is how many of the most likely tokens Mirostat (v1) fits its Zipf exponent on, as llama.cpp.
const mirostatM = 100

// MirostatV1 estimates the Zipf exponent s of the distribution from its most likely tokens, keeps the k most
// likely tokens that make the expected surprise mu in a vocabulary of nVocab tokens, and draws one with the
// uniform number u. It returns the token and its probability among those kept.
func MirostatV1(c *Candidates, mu float32, nVocab int, u float64) (id int32, p float32) {
	c.Sort()
	c.Softmax()
	var sumTB, sumTT float64
	for i := 0; i < mirostatM-1 && i < len(c.Items)-1; i++ {
		t := math.Log(float64(i+2) / float64(i+1))
		b := math.Log(float64(c.Items[i].P) / float64(c.Items[i+1].P))
		sumTB += t * b
		sumTT += t * t
	}
	s := sumTB / sumTT
	eps := s - 1
	k := math.Pow(eps*math.Exp2(float64(mu))/(1-math.Pow(float64(nVocab), -eps)), 1/s)
	keep := 1
	if k >= 1 && !math.IsNaN(k) {
		keep = int(min(k, float64(len(c.Items))))
	}
	c.Items = c.Items[:keep]
	i := draw(c, u)
	return c.Items[i].ID, c.Items[i].P
}
