package runtime

import "math"

// TokenLogprob is a token and its log-probability under the model.
type TokenLogprob struct {
	ID      int32
	Logprob float32
}

// MaxTopLogprobs is the most alternatives GenerateOptions.TopLogprobs may ask for.
const MaxTopLogprobs = 20

// logprobs computes, without allocating once its buffer has grown, the log-probabilities a generation reports:
// those of the model's distribution (the softmax of the raw logits, before the sampler's biases, penalties and
// temperature), as llama.cpp's server reports them by default.
type logprobs struct {
	top []TokenLogprob // the n most likely tokens of the last step, most likely first
}

// step returns the log-probability of id under logits and fills the top n alternatives (ties: lower id first).
func (l *logprobs) step(logits []float32, id int32, n int) float32 {
	m := float32(math.Inf(-1))
	for _, x := range logits {
		if x > m {
			m = x
		}
	}
	sum := 0.0
	for _, x := range logits {
		sum += math.Exp(float64(x - m))
	}
	lse := m + float32(math.Log(sum))
	l.top = l.top[:0]
	if n > 0 {
		l.selectTop(logits, n)
		for i := range l.top {
			l.top[i].Logprob -= lse
		}
	}
	return logits[id] - lse
}

// selectTop keeps the n largest logits in l.top by insertion into a sorted list of at most n.
func (l *logprobs) selectTop(logits []float32, n int) {
	if cap(l.top) < n {
		l.top = make([]TokenLogprob, 0, max(n, MaxTopLogprobs))
	}
	t := l.top[:0]
	for i, x := range logits {
		if len(t) == n && x <= t[n-1].Logprob {
			continue
		}
		j := len(t)
		if j < n {
			t = t[:j+1]
		} else {
			j--
		}
		for ; j > 0 && x > t[j-1].Logprob; j-- {
			t[j] = t[j-1]
		}
		t[j] = TokenLogprob{ID: int32(i), Logprob: x}
	}
	l.top = t
}
