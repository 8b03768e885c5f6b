package sample

import (
	"math"
	"slices"
)

// Candidate is one token with its logit and, once Softmax ran, its probability.
type Candidate struct {
	ID    int32
	Logit float32
	P     float32
}

// Candidates is the working list of the stages. Sorted records whether it is sorted by descending logit.
type Candidates struct {
	Items  []Candidate
	Sorted bool

	score []float64   // scratch of Typical
	tmp   []Candidate // scratch of sortByScore
	tmpS  []float64
}

// Reset fills the list with every token of logits.
func (c *Candidates) Reset(logits []float32) {
	if cap(c.Items) < len(logits) {
		c.Items = make([]Candidate, len(logits))
	}
	c.Items = c.Items[:len(logits)]
	for i, l := range logits {
		c.Items[i] = Candidate{ID: int32(i), Logit: l}
	}
	c.Sorted = false
}

// before reports whether a comes before b: higher logit first, then lower id.
func before(a, b Candidate) bool {
	if a.Logit != b.Logit {
		return a.Logit > b.Logit
	}
	return a.ID < b.ID
}

func compare(a, b Candidate) int {
	if before(a, b) {
		return -1
	}
	if before(b, a) {
		return 1
	}
	return 0
}

// Sort orders the list by descending logit (ties by ascending id). It does not allocate.
func (c *Candidates) Sort() {
	if !c.Sorted {
		slices.SortFunc(c.Items, compare)
		c.Sorted = true
	}
}

// partialSort moves the k first items (in Sort's order) to the front, sorted, in O(n log k): a heap whose root
// is the worst of the best k seen so far.
func (c *Candidates) partialSort(k int) {
	h := c.Items[:k]
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= k {
				return
			}
			w := l // the worse child
			if r := l + 1; r < k && before(h[l], h[r]) {
				w = r
			}
			if !before(h[i], h[w]) {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i)
	}
	for i := k; i < len(c.Items); i++ {
		if before(c.Items[i], h[0]) {
			h[0], c.Items[i] = c.Items[i], h[0]
			down(0)
		}
	}
	slices.SortFunc(h, compare)
}

// Softmax sets P from the logits (max-subtracted, summed in float64).
func (c *Candidates) Softmax() {
	if len(c.Items) == 0 {
		return
	}
	m := float32(math.Inf(-1))
	for _, it := range c.Items {
		if it.Logit > m {
			m = it.Logit
		}
	}
	sum := 0.0
	for i := range c.Items {
		p := math.Exp(float64(c.Items[i].Logit - m))
		c.Items[i].P = float32(p)
		sum += p
	}
	for i := range c.Items {
		c.Items[i].P = float32(float64(c.Items[i].P) / sum)
	}
}

// keep truncates the (sorted) list to n items, never below minKeep or above its length.
func (c *Candidates) keep(n, minKeep int) {
	n = max(n, minKeep, 1)
	if n < len(c.Items) {
		c.Items = c.Items[:n]
	}
}

// sortByScore stably sorts Items by ascending score (a bottom-up merge sort in the scratch buffers).
func (c *Candidates) sortByScore() {
	n := len(c.Items)
	if n < 2 {
		return
	}
	if cap(c.tmp) < n {
		c.tmp, c.tmpS = make([]Candidate, n), make([]float64, n)
	}
	a, as := c.Items, c.score
	b, bs := c.tmp[:n], c.tmpS[:n]
	for w := 1; w < n; w *= 2 {
		for lo := 0; lo < n; lo += 2 * w {
			mid, hi := min(lo+w, n), min(lo+2*w, n)
			i, j := lo, mid
			for k := lo; k < hi; k++ {
				if i < mid && (j >= hi || as[i] <= as[j]) {
					b[k], bs[k] = a[i], as[i]
					i++
				} else {
					b[k], bs[k] = a[j], as[j]
					j++
				}
			}
		}
		a, b, as, bs = b, a, bs, as
	}
	if &a[0] != &c.Items[0] {
		copy(c.Items, a)
	}
	c.Sorted = false
}
