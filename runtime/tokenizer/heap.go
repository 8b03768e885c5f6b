package tokenizer

// heap is a binary heap of merge candidates: pop returns the element that comes first. It lives in a session's
// scratch and is reused, so merging allocates nothing once warm.
type heap[T interface{ first(T) bool }] []T

func (h *heap[T]) push(x T) {
	*h = append(*h, x)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].first(q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *heap[T]) pop() T {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(q) && q[l].first(q[m]) {
			m = l
		}
		if r < len(q) && q[r].first(q[m]) {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}
