package cpu

import (
	"fmt"
	"math/bits"

	"github.com/forma-llm/forma/accel"
)

// The row-wise steps of a mixture-of-experts layer (accel/moe.go). MatMulID is in matmulid.go.

// topKStep writes, per row, the indices of the k largest values in the order of ggml_argsort_top_k: the
// indices sorted by libstdc++'s std::sort with "greater" (argsortDesc), the first k kept.
type topKStep struct {
	plain
	xID, yID int
	x        []float32
	y        []int32
	cols, k  int
	idx      []int32 // per worker: a row's indices
}

func newTopK(g *accel.Graph, id int) *topKStep {
	nd := &g.Nodes[id]
	return &topKStep{xID: nd.Args[0].ID(), yID: id, cols: g.Nodes[nd.Args[0].ID()].Shape[1], k: nd.I[0]}
}

func (s *topKStep) workspace(shares int) int { return shares * alignUp(4*s.cols) }
func (s *topKStep) bind(p *program, ws []byte) {
	s.x, s.y = f32s(p.mem[s.xID]), i32s(p.mem[s.yID])
	s.idx = i32s(ws[:s.workspace(p.b.threads)])
}
func (s *topKStep) exec(p *pool) {
	rows := len(s.x) / s.cols
	p.run(s, min(rows, p.shares(len(s.x)*4, elemGrain)))
}

func (s *topKStep) run(w, nw int) {
	idx := s.idx[w*alignUp(4*s.cols)/4:][:s.cols]
	lo, hi := split(len(s.x)/s.cols, w, nw)
	for r := lo; r < hi; r++ {
		for j := range idx {
			idx[j] = int32(j)
		}
		argsortDesc(idx, s.x[r*s.cols:(r+1)*s.cols])
		copy(s.y[r*s.k:(r+1)*s.k], idx[:s.k])
	}
}

// argsortDesc sorts the indices idx by descending v[idx], step for step as libstdc++'s std::sort (introsort
// with median-of-three pivots, heap sort past the depth limit, insertion sort of runs of 16) with the
// comparator v[a] > v[b], so that equal values end in the same order as in ggml's argsort.
func argsortDesc(idx []int32, v []float32) {
	if len(idx) < 2 {
		return
	}
	less := func(a, b int32) bool { return v[a] > v[b] }
	introsort(idx, 0, len(idx), 2*(bits.Len(uint(len(idx)))-1), less)
	finalInsertionSort(idx, less)
}

const sortThreshold = 16 // libstdc++'s _S_threshold

func introsort(a []int32, first, last, depth int, less func(a, b int32) bool) {
	for last-first > sortThreshold {
		if depth == 0 {
			heapSort(a[first:last], less)
			return
		}
		depth--
		cut := partitionPivot(a, first, last, less)
		introsort(a, cut, last, depth, less)
		last = cut
	}
}

// partitionPivot is std::__unguarded_partition_pivot.
func partitionPivot(a []int32, first, last int, less func(a, b int32) bool) int {
	mid := first + (last-first)/2
	moveMedianToFirst(a, first, first+1, mid, last-1, less)
	lo, hi := first+1, last
	for {
		for less(a[lo], a[first]) {
			lo++
		}
		hi--
		for less(a[first], a[hi]) {
			hi--
		}
		if lo >= hi {
			return lo
		}
		a[lo], a[hi] = a[hi], a[lo]
		lo++
	}
}

// moveMedianToFirst is std::__move_median_to_first: the median of a[x], a[y], a[z] is swapped into a[r].
func moveMedianToFirst(a []int32, r, x, y, z int, less func(a, b int32) bool) {
	pick := y
	switch {
	case less(a[x], a[y]):
		if less(a[y], a[z]) {
			pick = y
		} else if less(a[x], a[z]) {
			pick = z
		} else {
			pick = x
		}
	case less(a[x], a[z]):
		pick = x
	case less(a[y], a[z]):
		pick = z
	}
	a[r], a[pick] = a[pick], a[r]
}

// finalInsertionSort is std::__final_insertion_sort.
func finalInsertionSort(a []int32, less func(a, b int32) bool) {
	n := min(len(a), sortThreshold)
	for i := 1; i < n; i++ { // std::__insertion_sort of the first run
		if v := a[i]; less(v, a[0]) {
			copy(a[1:i+1], a[:i])
			a[0] = v
		} else {
			linearInsert(a, i, less)
		}
	}
	for i := n; i < len(a); i++ { // std::__unguarded_insertion_sort
		linearInsert(a, i, less)
	}
}

// linearInsert is std::__unguarded_linear_insert.
func linearInsert(a []int32, i int, less func(a, b int32) bool) {
	v := a[i]
	for less(v, a[i-1]) {
		a[i] = a[i-1]
		i--
	}
	a[i] = v
}

// heapSort is std::__partial_sort(first, last, last): std::__make_heap, then std::__sort_heap.
func heapSort(a []int32, less func(a, b int32) bool) {
	n := len(a)
	for parent := (n - 2) / 2; n >= 2; parent-- {
		adjustHeap(a, parent, n, a[parent], less)
		if parent == 0 {
			break
		}
	}
	for last := n - 1; last > 0; last-- {
		v := a[last]
		a[last] = a[0]
		adjustHeap(a, 0, last, v, less)
	}
}

// adjustHeap is std::__adjust_heap followed by std::__push_heap.
func adjustHeap(a []int32, hole, n int, v int32, less func(a, b int32) bool) {
	top, child := hole, hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if less(a[child], a[child-1]) {
			child--
		}
		a[hole] = a[child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		a[hole] = a[child-1]
		hole = child - 1
	}
	parent := (hole - 1) / 2
	for hole > top && less(a[parent], v) {
		a[hole] = a[parent]
		hole = parent
		parent = (hole - 1) / 2
	}
	a[hole] = v
}

// pickStep gathers each row's values at its own indices.
type pickStep struct {
	xID, idsID, yID int
	x, y            []float32
	ids             []int32
	cols, k         int
	idsInput        bool
}

func newPick(g *accel.Graph, id int) *pickStep {
	nd := &g.Nodes[id]
	return &pickStep{xID: nd.Args[0].ID(), idsID: nd.Args[1].ID(), yID: id, cols: g.Nodes[nd.Args[0].ID()].Shape[1],
		k: nd.Shape[1], idsInput: isInput(g, nd.Args[1].ID())}
}

func (s *pickStep) workspace(int) int { return 0 }
func (s *pickStep) bind(p *program, _ []byte) {
	s.x, s.ids, s.y = f32s(p.mem[s.xID]), i32s(p.mem[s.idsID]), f32s(p.mem[s.yID])
}

func (s *pickStep) check() error {
	if !s.idsInput {
		return nil
	}
	for i, c := range s.ids {
		if c < 0 || int(c) >= s.cols {
			return fmt.Errorf("row %d: index %d outside the row's %d values", i/s.k, c, s.cols)
		}
	}
	return nil
}

func (s *pickStep) exec(p *pool) { p.run(s, 1) }
func (s *pickStep) run(_, _ int) {
	for i, c := range s.ids {
		if c >= 0 && int(c) < s.cols {
			s.y[i] = s.x[i/s.k*s.cols+int(c)]
		}
	}
}

// isInput reports whether node id is a host input or a view of one.
func isInput(g *accel.Graph, id int) bool {
	n := &g.Nodes[id]
	for n.Op.IsView() {
		n = &g.Nodes[n.Args[0].ID()]
	}
	return n.Op == accel.OpInput
}

// divSumStep divides each row by its sum (ggml_sum_rows: a float64 sum rounded to float32), clamped below at
// least (ggml_clamp), with a float32 division per element (ggml_div).
type divSumStep struct {
	plain
	xID, yID int
	x, y     []float32
	cols     int
	least    float32
}

func (s *divSumStep) bind(p *program, _ []byte) { s.x, s.y = f32s(p.mem[s.xID]), f32s(p.mem[s.yID]) }
func (s *divSumStep) exec(p *pool)              { p.run(s, min(len(s.y)/s.cols, p.shares(len(s.y), elemGrain))) }
func (s *divSumStep) run(w, nw int) {
	lo, hi := split(len(s.y)/s.cols, w, nw)
	for r := lo; r < hi; r++ {
		x, y := s.x[r*s.cols:(r+1)*s.cols], s.y[r*s.cols:(r+1)*s.cols]
		var sum float64
		for _, v := range x {
			sum += float64(v)
		}
		d := max(float32(sum), s.least)
		for i, v := range x {
			y[i] = v / d
		}
	}
}

// addIDStep adds each (row, slot)'s expert bias row.
type addIDStep struct {
	xID, bID, idsID, yID int
	x, b, y              []float32
	ids                  []int32
	d, experts           int
	idsInput             bool
}

func newAddID(g *accel.Graph, id int) *addIDStep {
	nd := &g.Nodes[id]
	bs := g.Nodes[nd.Args[1].ID()].Shape
	return &addIDStep{xID: nd.Args[0].ID(), bID: nd.Args[1].ID(), idsID: nd.Args[2].ID(), yID: id, d: bs[1], experts: bs[0],
		idsInput: isInput(g, nd.Args[2].ID())}
}

func (s *addIDStep) workspace(int) int { return 0 }
func (s *addIDStep) bind(p *program, _ []byte) {
	s.x, s.b, s.ids, s.y = f32s(p.mem[s.xID]), f32s(p.mem[s.bID]), i32s(p.mem[s.idsID]), f32s(p.mem[s.yID])
}

func (s *addIDStep) check() error {
	if !s.idsInput {
		return nil
	}
	for i, e := range s.ids {
		if e < 0 || int(e) >= s.experts {
			return fmt.Errorf("pair %d: expert %d outside the %d bias rows", i, e, s.experts)
		}
	}
	return nil
}

func (s *addIDStep) exec(p *pool) { p.run(s, min(len(s.ids), p.shares(len(s.y), elemGrain))) }
func (s *addIDStep) run(w, nw int) {
	lo, hi := split(len(s.ids), w, nw)
	for i := lo; i < hi; i++ {
		e := int(s.ids[i])
		if e < 0 || e >= s.experts {
			continue
		}
		x, b, y := s.x[i*s.d:(i+1)*s.d], s.b[e*s.d:(e+1)*s.d], s.y[i*s.d:(i+1)*s.d]
		for j := range y {
			y[j] = x[j] + b[j]
		}
	}
}

// weightedSumStep mixes each row's expert outputs: Σ_j round(w_j·x_j), added in slot order.
type weightedSumStep struct {
	plain
	xID, wID, yID int
	x, wt, y      []float32
	k, d          int
}

func (s *weightedSumStep) bind(p *program, _ []byte) {
	s.x, s.wt, s.y = f32s(p.mem[s.xID]), f32s(p.mem[s.wID]), f32s(p.mem[s.yID])
}
func (s *weightedSumStep) exec(p *pool) { p.run(s, p.shares(len(s.x), elemGrain)) }
func (s *weightedSumStep) run(w, nw int) {
	lo, hi := split(len(s.y), w, nw)
	for i := lo; i < hi; {
		r := i / s.d
		end := min(hi, (r+1)*s.d)
		y := s.y[i:end]
		x0, c := s.x[r*s.k*s.d:], i-r*s.d
		w0 := s.wt[r*s.k]
		for j := range y {
			y[j] = x0[c+j] * w0
		}
		for k := 1; k < s.k; k++ {
			xk, wk := s.x[(r*s.k+k)*s.d:], s.wt[r*s.k+k]
			for j := range y {
				y[j] += float32(xk[c+j] * wk) // the product is rounded first (ggml_mul, then ggml_add)
			}
		}
		i = end
	}
}

// concatStep joins rows of x and y.
type concatStep struct {
	plain
	xID, yID, zID int
	x, y, z       []float32
	a, b          int // row lengths of x and y
}

func (s *concatStep) bind(p *program, _ []byte) {
	s.x, s.y, s.z = f32s(p.mem[s.xID]), f32s(p.mem[s.yID]), f32s(p.mem[s.zID])
}
func (s *concatStep) exec(p *pool) { p.run(s, min(len(s.z)/(s.a+s.b), p.shares(len(s.z), elemGrain))) }
func (s *concatStep) run(w, nw int) {
	lo, hi := split(len(s.z)/(s.a+s.b), w, nw)
	for r := lo; r < hi; r++ {
		z := s.z[r*(s.a+s.b):]
		copy(z[:s.a], s.x[r*s.a:(r+1)*s.a])
		copy(z[s.a:s.a+s.b], s.y[r*s.b:(r+1)*s.b])
	}
}
