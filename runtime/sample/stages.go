package sample

import "math"

// TopK keeps the k most likely tokens; k ≤ 0 keeps all.
func TopK(c *Candidates, k int) {
	if k <= 0 || k >= len(c.Items) {
		return
	}
	if !c.Sorted {
		c.partialSort(k)
	}
	c.Items = c.Items[:k]
	c.Sorted = true
}

// TopP keeps the most likely tokens whose probabilities sum to at least p (at least minKeep); p ≥ 1 keeps all.
func TopP(c *Candidates, p float32, minKeep int) {
	if p >= 1 {
		return
	}
	c.Sort()
	c.Softmax()
	cum := float32(0)
	for i, it := range c.Items {
		cum += it.P
		if cum >= p && i+1 >= minKeep {
			c.keep(i+1, minKeep)
			return
		}
	}
}

// MinP keeps the tokens whose probability is at least p times the most likely one's; p ≤ 0 keeps all.
func MinP(c *Candidates, p float32, minKeep int) {
	if p <= 0 || len(c.Items) == 0 {
		return
	}
	c.Sort()
	threshold := c.Items[0].Logit + float32(math.Log(float64(p)))
	n := len(c.Items)
	for i, it := range c.Items {
		if it.Logit < threshold {
			n = i
			break
		}
	}
	c.keep(n, minKeep)
}

// Typical keeps the tokens whose information content is closest to the distribution's entropy, up to a total
// probability of p (locally typical sampling); p ≥ 1 keeps all.
func Typical(c *Candidates, p float32, minKeep int) {
	if p >= 1 || len(c.Items) == 0 {
		return
	}
	c.Sort()
	c.Softmax()
	entropy := 0.0
	for _, it := range c.Items {
		if it.P > 0 {
			entropy -= float64(it.P) * math.Log(float64(it.P))
		}
	}
	// Order by |−log p − H| ascending (stable, in the list's scratch: nothing is allocated once warm).
	if cap(c.score) < len(c.Items) {
		c.score = make([]float64, len(c.Items))
	}
	c.score = c.score[:len(c.Items)]
	for i, it := range c.Items {
		c.score[i] = math.Abs(-math.Log(float64(it.P)) - entropy)
	}
	c.sortByScore()
	cum := float32(0)
	n := len(c.Items)
	for i, it := range c.Items {
		cum += it.P
		if cum > p && i+1 >= minKeep {
			n = i + 1
			break
		}
	}
	c.Items = c.Items[:max(n, minKeep, 1)]
	c.Sorted = false
}

// Temperature divides the logits by t (t > 0).
func Temperature(c *Candidates, t float32) {
	for i := range c.Items {
		c.Items[i].Logit /= t
	}
}

// Greedy returns the most likely token (the lowest id on ties).
func Greedy(c *Candidates) int32 {
	best := 0
	for i, it := range c.Items {
		if it.Logit > c.Items[best].Logit || (it.Logit == c.Items[best].Logit && it.ID < c.Items[best].ID) {
			best = i
		}
	}
	return c.Items[best].ID
}

// Draw samples a token from the softmax of the candidates with the uniform number u in [0, 1).
func Draw(c *Candidates, u float64) int32 { return c.Items[draw(c, u)].ID }

// draw returns the index of the candidate Draw picks; P holds the softmax after it.
func draw(c *Candidates, u float64) int {
	c.Softmax()
	cum := 0.0
	for i, it := range c.Items {
		cum += float64(it.P)
		if u < cum {
			return i
		}
	}
	return len(c.Items) - 1
}

// TopNSigma keeps the tokens whose logit is at least the top logit less n standard deviations of the logits
// (those above −∞); n ≤ 0 keeps all. The list keeps its order.
func TopNSigma(c *Candidates, n float32) {
	if n <= 0 || len(c.Items) <= 1 {
		return
	}
	top, sum, count := math.Inf(-1), 0.0, 0
	for _, it := range c.Items {
		if l := float64(it.Logit); !math.IsInf(l, -1) {
			top = max(top, l)
			sum += l
			count++
		}
	}
	if count == 0 {
		return
	}
	mean, acc := sum/float64(count), 0.0
	for _, it := range c.Items {
		if l := float64(it.Logit); !math.IsInf(l, -1) {
			acc += (l - mean) * (l - mean)
		}
	}
	cut := top - float64(n)*math.Sqrt(acc/float64(count))
	kept := c.Items[:0]
	for _, it := range c.Items {
		if float64(it.Logit) >= cut {
			kept = append(kept, it)
		}
	}
	c.Items = kept
}

// XTC (exclude top choices) removes, when the uniform number u is at most probability, every token whose
// probability is at least threshold except the least likely of them, provided minKeep tokens remain.
func XTC(c *Candidates, probability, threshold float32, minKeep int, u float32) {
	if probability <= 0 || threshold > 0.5 || len(c.Items) < 2 || u > probability {
		return
	}
	c.Sort()
	c.Softmax()
	last := 0
	for i, it := range c.Items {
		if it.P < threshold {
			break
		}
		last = i
	}
	if last > 0 && len(c.Items)-last >= minKeep {
		n := copy(c.Items, c.Items[last:]) // move down: the list keeps its capacity
		c.Items = c.Items[:n]
	}
}

// Penalties adjusts the logits of tokens seen in history (the last tokens, oldest first): repeat divides a
// positive logit (multiplies a negative one) by repeat; freq subtracts count·freq; presence subtracts presence
// once. counts is scratch of the vocabulary's size, all zero on entry and on return.
func Penalties(logits []float32, history []int32, repeat, freq, presence float32, counts []int32) {
	if (repeat == 1 || repeat == 0) && freq == 0 && presence == 0 {
		return
	}
	for _, t := range history {
		if t >= 0 && int(t) < len(counts) {
			counts[t]++
		}
	}
	for _, t := range history {
		if t < 0 || int(t) >= len(counts) || counts[t] == 0 {
			continue
		}
		n := counts[t]
		counts[t] = 0 // each distinct token once
		l := logits[t]
		if repeat != 0 && repeat != 1 {
			if l <= 0 {
				l *= repeat
			} else {
				l /= repeat
			}
		}
		logits[t] = l - float32(n)*freq - presence
	}
}
