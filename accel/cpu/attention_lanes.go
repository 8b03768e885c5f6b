package cpu

import (
	"math"
	"unsafe"
)

// Attention over an F16 KV cache, lw (query, head) pairs at a time: lw = 16 with AVX-512 (attn_amd64.s), 8
// with AVX2 alone (attn_lanes_avx2_amd64.s, head sizes that are multiples of 8). The pairs of one KV head (the
// queries of a batch times the heads that share it) are numbered token by token, and each block of lw is one
// unit of work: lane l of every vector is one pair, and the kernels perform in each lane exactly the float
// operations attnStep.head performs for that pair, in the same order — q rounded to F16, each score a
// float32 sum over d in order (the products of F16 values are exact, so the sums are fused multiply-adds),
// soft-cap and scale, the softmax of softmaxExp, the probabilities rounded to F16, and the weighted sum of
// values in cell order — so the results are bit-identical. Scores are computed for the cells any lane of
// the block sees; a lane ignores the others (masked in the softmax; in the value sum with a probability of +0). The driver
// below is the same for both widths; laneKernelsFor picks the kernels.

// laneKernels are the kernels of one lane width: score rows, lane ranges and probabilities hold lw floats.
//
// The scores kernel and convert prefetch the rows pf bytes on (prefetch_amd64.h): lanePrefetch cells' worth
// where a block alone reads its KV head's rows (and they span lanePrefetchSpan bytes), none (pf 0) where the
// other blocks of its queries read them too.
type laneKernels struct {
	scores func(size int, qT *float32, k *byte, kStride int, n int, s *float32, kbuf *float32, pf int)
	// scores2 is scores for two blocks (q in rows of 2·lw lanes, score rows s0 and s1); nil where the width
	// has none
	scores2 func(size int, qT *float32, k *byte, kStride int, n int, s0, s1 *float32, kbuf *float32, pf int)
	softmax func(n int, s *float32, c0 int, lohi *int32, scale float32, tmp *float32)
	// convert writes n value rows (vsize halves, vStride bytes apart) as float32 rows one after another
	convert func(n int, v *byte, vStride int, vsize int, dst *float32, pf int)
	// value4F32 adds four lanes' (rows of lw lanes) probabilities times convert's rows to their accumulators
	value4F32 func(n int, p *float32, vbuf *float32, vsize int, acc *float32)
	// value8 sums eight lanes (rows of pStride lanes) for heads of 8 values, whose one chunk leaves a tile of
	// four's chains waiting on the fused multiply-add's latency
	value8 func(n int, p *float32, pStride int, v *byte, vStride int, vsize int, acc *float32)
	// value16T sums sixteen lanes (rows of 16) for heads of 8 values into accumulators transposed, a row of
	// 16 lanes per value, in one pass where value8 takes two; nil where the width has no such kernel
	value16T func(n int, p *float32, v *byte, vStride int, accT *float32, vbuf *float32)
	// untranspose16T sets acc[8l + d] = accT[16d + l]: value16T's accumulators back to rows (with value16T)
	untranspose16T func(accT, acc *float32)
	// value2 sums two lanes' values (rows of pStride lanes) straight from the cache rows, prefetching pf bytes
	// on: the value sums of a block alone on its rows with at most two lanes (a decode step's heads of one KV
	// head); nil where the kernels have none
	value2 func(n int, p *float32, pStride int, v *byte, vStride int, vsize int, acc *float32, pf int)
}

// lanePrefetch is the distance in cells of the lane kernels' prefetches where a block alone reads its rows, if
// they span lanePrefetchSpan bytes of the cache or more (fewer the caches hold, and a small head's rows lie
// close together: a pass of stories260K, heads of 8, was slower with the prefetches).
const (
	lanePrefetch     = 16
	lanePrefetchSpan = 1 << 20
)

// alone reports whether block b is the only block of its queries' sequence (and so the only one to read its
// rows of the cache in this pass).
func (s *attnStep) alone(b int) bool {
	nb, group := s.laneBlocks(), s.heads/s.kvHeads
	if s.seq == nil {
		return nb == 1
	}
	seq := func(b int) int32 { return s.seq[int(s.blocks[2*b])/group] }
	return (b == 0 || seq(b-1) != seq(b)) && (b == nb-1 || seq(b+1) != seq(b))
}

// useLanes reports whether the step takes the lane kernels.
func (s *attnStep) useLanes() bool {
	return s.lw > 0 && !s.p.Flash && s.kF16 && s.vF16 && s.sinksID < 0 && s.vstride == s.vsize
}

// laneBlocks returns the number of lane blocks per KV head (after check formed them).
func (s *attnStep) laneBlocks() int { return len(s.blocks) / 2 }

// formBlocks cuts the pairs of each run of queries of one sequence into blocks of up to lw, so that the lanes
// of a block read one sequence's pages.
func (s *attnStep) formBlocks() {
	group := s.heads / s.kvHeads
	s.blocks = s.blocks[:0]
	n := len(s.pos)
	for t0 := 0; t0 < n; {
		t1 := t0 + 1
		for s.seq != nil && t1 < n && s.seq[t1] == s.seq[t0] {
			t1++
		}
		if s.seq == nil {
			t1 = n
		}
		for l := t0 * group; l < t1*group; l += s.lw {
			s.blocks = append(s.blocks, int32(l), int32(min(s.lw, t1*group-l)))
		}
		t0 = t1
	}
}

// lanesPerShare is the workspace of one worker in floats: q transposed, 8 converted keys, the scores, the
// softmax's rows of a group of 16 cells and its float64 sums, the value accumulators (accFloats) and the
// lanes' cell ranges.
func (s *attnStep) lanesPerShare() int {
	lw, np := s.lw, s.pairLanes()
	return np*lw*s.size + 8*s.size + np*lw*s.cells() + (f32Lanes+2)*lw + s.accFloats() + np*2*lw
}

// pairLanes is 2 where the width's scores kernel takes two blocks at a time (scores2), else 1.
func (s *attnStep) pairLanes() int {
	if s.lw == 8 && laneKernelsFor(8, 8).scores2 != nil {
		return 2
	}
	return 1
}

// laneUnits is the number of units (KV head, block or pair of blocks) of the pass.
func (s *attnStep) laneUnits() int {
	np := s.pairLanes()
	return s.kvHeads * ((s.laneBlocks() + np - 1) / np)
}

// laneWS is a worker's workspace for the lane kernels: q transposed (rows of lw lanes, or 2·lw for a pair of
// blocks), converted keys, the score rows of each block, the softmax's scratch, the value accumulators and the
// lanes' cell ranges (lo, then hi, for each block).
type laneWS struct {
	qT, kbuf, scores, tmp, acc []float32
	lohi                       []int32
}

// accFloats is the value accumulators' workspace: a row per lane (of a pair of blocks where they are paired),
// then valueBlocks' converted rows; or for heads of 8 values (which value16T may take) value16T's transposed
// accumulators and converted cells.
func (s *attnStep) accFloats() int {
	if s.vsize == 8 {
		return 2*s.lw*8 + value16Buf
	}
	return s.pairLanes()*s.lw*s.vsize + max(valueBlock, s.vsize)
}

// runLanes takes every nw-th unit (KV head, block) starting at w, the units of one KV head after another: the
// workers go through one KV head's blocks together, so that its keys and values (rows of one head among the
// cache's heads, which the prefetchers follow poorly) are read from the caches by all but the first block.
func (s *attnStep) runLanes(w, nw int) {
	ws := s.ws[w*s.perShare() : (w+1)*s.perShare()]
	lw, np := s.lw, s.pairLanes()
	var l laneWS
	l.qT, ws = ws[:np*lw*s.size], ws[np*lw*s.size:]
	l.kbuf, ws = ws[:8*s.size], ws[8*s.size:]
	l.scores, ws = ws[:np*lw*s.cells()], ws[np*lw*s.cells():]
	l.tmp, ws = ws[:(f32Lanes+2)*lw], ws[(f32Lanes+2)*lw:]
	l.acc, ws = ws[:s.accFloats()], ws[s.accFloats():]
	l.lohi = unsafe.Slice((*int32)(unsafe.Pointer(&ws[0])), np*2*lw) // the floats' memory as int32
	nb := s.laneBlocks()
	nu := (nb + np - 1) / np // units per KV head
	group := s.heads / s.kvHeads
	for u := w; u < s.kvHeads*nu; u += nw {
		g, b := u/nu, u%nu*np
		switch {
		case np == 1 || b+1 == nb:
			s.lanes(g, b, 1, &l)
		case s.seq != nil && s.seq[int(s.blocks[2*b])/group] != s.seq[int(s.blocks[2*b+2])/group]:
			s.lanes(g, b, 1, &l) // blocks of two sequences read different rows
			s.lanes(g, b+1, 1, &l)
		default:
			s.lanes(g, b, 2, &l)
		}
	}
}

// lanes computes blocks b … b+nbk−1 of KV head g (nbk = 2: two blocks of one sequence, whose scores one call
// of scores2 computes over the cells either sees).
func (s *attnStep) lanes(g, b, nbk int, l *laneWS) {
	group, lw := s.heads/s.kvHeads, s.lw
	qi := int(s.blocks[2*b]) / group // a query of the blocks: they all belong to one sequence
	stride := nbk * lw
	var nl [2]int
	cmin, cmax := math.MaxInt, -1
	for k := range nbk {
		lohi := l.lohi[2*lw*k : 2*lw*(k+1)]
		n, c0, c1 := s.laneQueries(g, b+k, l.qT[k*lw:], stride, lohi[:lw], lohi[lw:])
		nl[k], cmin, cmax = n, min(cmin, c0), max(cmax, c1)
	}
	roundF16Vec(l.qT[:stride*s.size]) // ggml converts q to the cache type before the F16 dot product
	n := cmax - cmin + 1
	kStride, vStride := 2*s.kvHeads*s.size, 2*s.kvHeads*s.vsize
	lone := nbk == 1 && s.alone(b)
	kpf, vpf := 0, 0
	if lone && n*kStride >= s.prefetchSpan { // tests leave prefetchSpan 0: their caches are small
		kpf, vpf = lanePrefetch*kStride, lanePrefetch*vStride
	}
	kern := laneKernelsFor(lw, nl[0])
	sc0, sc1 := l.scores[:n*lw], l.scores[(nbk-1)*lw*s.cells():][:n*lw] // sc1 = sc0 for one block
	for c := cmin; c <= cmax; {
		e := s.pageEnd(qi, c, cmax+1)
		k := &s.k[(s.row(qi, c)*s.kvHeads+g)*2*s.size]
		if nbk == 2 {
			kern.scores2(s.size, &l.qT[0], k, kStride, e-c, &sc0[(c-cmin)*lw], &sc1[(c-cmin)*lw], &l.kbuf[0], kpf)
		} else {
			kern.scores(s.size, &l.qT[0], k, kStride, e-c, &sc0[(c-cmin)*lw], &l.kbuf[0], kpf)
		}
		c = e
	}
	sc := [2][]float32{sc0, sc1}
	for k := range nbk {
		if s.p.SoftCap > 0 {
			capInv := 1 / s.p.SoftCap
			for j, v := range sc[k] {
				sc[k][j] = float32(math.Tanh(float64(float32(v*capInv)))) * s.p.SoftCap
			}
		}
		kern.softmax(n, &sc[k][0], cmin, &l.lohi[2*lw*k], s.p.Scale, &l.tmp[0])
	}
	s.laneSums(kern, g, b, nbk, cmin, cmax, lone, nl, sc, l, vpf)
}

// laneSums sets the outputs of blocks b … b+nbk−1 of KV head g (lanes nl) to their value sums over cells cmin …
// cmax with the probabilities sc, prefetching the rows vpf bytes on.
func (s *attnStep) laneSums(kern *laneKernels, g, b, nbk, cmin, cmax int, lone bool, nl [2]int, sc [2][]float32,
	l *laneWS, vpf int) {
	lw, vStride := s.lw, 2*s.kvHeads*s.vsize
	qi := int(s.blocks[2*b]) / (s.heads / s.kvHeads)
	// value sums, in cell order: a lane's probability of a cell outside its range is +0 (the softmax), whose
	// product adds nothing to its sum (the sums start at +0 and a sum of products is never −0), so each lane's
	// sum is its own range's, over the cells any lane of the blocks sees. As in ggml's product of the
	// probabilities with every cell's values, an infinite value in a cell masked for a lane makes that lane's
	// sums NaN.
	if s.vsize != 8 && lone && nl[0] <= 2 && kern.value2 != nil {
		acc := l.acc[:2*s.vsize]
		clear(acc)
		for c := cmin; c <= cmax; {
			e := s.pageEnd(qi, c, cmax+1)
			v := &s.v[(s.row(qi, c)*s.kvHeads+g)*2*s.vsize]
			kern.value2(e-c, &sc[0][(c-cmin)*lw], lw, v, vStride, s.vsize, &acc[0], vpf)
			c = e
		}
		s.laneOutputs(g, b, nl[0], acc)
		return
	}
	if s.vsize != 8 {
		acc := l.acc[:nbk*lw*s.vsize]
		clear(acc)
		s.valueBlocks(kern, qi, g, cmin, cmax, nl[:nbk], sc[:nbk], acc, l.acc[s.pairLanes()*lw*s.vsize:], vpf)
		for k := range nbk {
			s.laneOutputs(g, b+k, nl[k], acc[k*lw*s.vsize:])
		}
		return
	}
	for k := range nbk {
		lohi := l.lohi[2*lw*k : 2*lw*(k+1)]
		s.value8s(kern, qi, g, cmin, nl[k], lohi[:lw], lohi[lw:], sc[k], l.acc)
		s.laneOutputs(g, b+k, nl[k], l.acc)
	}
}

// laneQueries sets the lanes of block b of KV head g in qT (rows of stride floats: q transposed) and their cell
// ranges lo, hi, and returns the block's lanes and the first and last cells they see.
func (s *attnStep) laneQueries(g, b int, qT []float32, stride int, lo, hi []int32) (nl, cmin, cmax int) {
	group := s.heads / s.kvHeads
	l0 := int(s.blocks[2*b])
	nl, cmin, cmax = int(s.blocks[2*b+1]), math.MaxInt, -1
	for l := range s.lw {
		if l >= nl {
			for d := 0; d < s.size; d++ {
				qT[d*stride+l] = 0
			}
			continue
		}
		i, h := (l0+l)/group, g*group+(l0+l)%group
		pos := int(s.pos[i])
		first := 0
		if s.p.Window > 0 {
			first = max(0, pos-s.p.Window+1)
		}
		lo[l], hi[l] = int32(first), int32(pos+1)
		cmin, cmax = min(cmin, first), max(cmax, pos)
		for d, v := range s.q[(i*s.heads+h)*s.size:][:s.size] {
			qT[d*stride+l] = v
		}
	}
	for l := nl; l < s.lw; l++ {
		// Lanes past the block's see one cell (their scores 0, unused): a lane that saw none would keep a
		// maximum of −Inf, and every exponential of its row would take the softmax's slow path.
		lo[l], hi[l] = int32(cmin), int32(cmin+1)
	}
	return nl, cmin, cmax
}

// laneOutputs copies the sums of block b's nl lanes (acc, a row of vsize a lane) to the step's output.
func (s *attnStep) laneOutputs(g, b, nl int, acc []float32) {
	group, l0 := s.heads/s.kvHeads, int(s.blocks[2*b])
	for l := 0; l < nl; l++ {
		i, h := (l0+l)/group, g*group+(l0+l)%group
		copy(s.y[(i*s.heads+h)*s.vsize:][:s.vsize], acc[l*s.vsize:(l+1)*s.vsize])
	}
}

// value8s sets the accumulators of the block's lanes (acc) to their sums of the values of KV head g, heads of 8
// values: tiles of eight lanes over the cells any of the tile's lanes sees (the last tile filled with lanes
// past the block's, whose sums are not used), or all sixteen in one pass (value16T).
func (s *attnStep) value8s(kern *laneKernels, qi, g, cmin, nl int, lo, hi []int32, sc, acc []float32) {
	clear(acc)
	vStride := 2 * s.kvHeads * 8
	tile := 8
	if nl > 8 && kern.value16T != nil {
		tile = 16
	}
	for l := 0; l < nl; l += tile {
		end := min(l+tile, nl)
		jlo, jhi := lo[l], hi[l]
		for t := l + 1; t < end; t++ {
			jlo, jhi = min(jlo, lo[t]), max(jhi, hi[t])
		}
		if tile == 16 {
			s.value16(kern, qi, g, cmin, int(jlo), int(jhi), sc, acc)
		}
		for c := int(jlo); c < int(jhi) && tile == 8; {
			e := s.pageEnd(qi, c, int(jhi))
			kern.value8(e-c, &sc[(c-cmin)*s.lw+l], s.lw, &s.v[(s.row(qi, c)*s.kvHeads+g)*2*8], vStride, 8, &acc[l*8])
			c = e
		}
	}
}

// valueBlock is the value sums' buffer of converted value rows in floats (16 KiB: with a block's score rows and
// accumulators, within L1).
const valueBlock = 4096

// valueBlocks adds to the accumulators of the lanes of one or two blocks (acc: a row of vsize a lane, lw rows a
// block) the values of cells [cmin, cmax] of KV head g weighted by the lanes' probabilities (the blocks' score
// rows sc): valueBlock floats of rows at a time converted into vbuf (prefetching pf bytes on), then every tile
// of four lanes' sums over them (the last tile's lanes past a block's nl unused), so that each value row is
// read once for both blocks. Tiles reading the rows a 16-value chunk at a time had read them again from the
// caches for every chunk and tile, rows 2 KiB apart (eight heads of 128): a prefill's value sums ran at a
// quarter of the FMA ports' rate.
func (s *attnStep) valueBlocks(kern *laneKernels, qi, g, cmin, cmax int, nl []int, sc [][]float32, acc, vbuf []float32,
	pf int) {
	cb := len(vbuf) / s.vsize
	vStride, blk := 2*s.kvHeads*s.vsize, s.lw*s.vsize
	for c := cmin; c <= cmax; {
		e := min(s.pageEnd(qi, c, cmax+1), c+cb)
		kern.convert(e-c, &s.v[(s.row(qi, c)*s.kvHeads+g)*2*s.vsize], vStride, s.vsize, &vbuf[0], pf)
		for k, n := range nl {
			for l := 0; l < n; l += 4 {
				kern.value4F32(e-c, &sc[k][(c-cmin)*s.lw+l], &vbuf[0], s.vsize, &acc[k*blk+l*s.vsize])
			}
		}
		c = e
	}
}

// value16Buf is value16T's buffer of converted values in floats: 64 cells of 8.
const value16Buf = 64 * 8

// value16 sets the accumulators of all 16 lanes (acc, with value16T's transposed ones after them) to the
// values of cells [c0, c1) of KV head g (heads of 8 values) weighted by the lanes' probabilities, page by page.
func (s *attnStep) value16(kern *laneKernels, qi, g, cmin, c0, c1 int, sc, acc []float32) {
	a, accT, vbuf := (*[16 * 8]float32)(acc), (*[16 * 8]float32)(acc[16*8:]), acc[2*16*8:2*16*8+value16Buf]
	clear(accT[:])
	for c := c0; c < c1; {
		e := s.pageEnd(qi, c, c1)
		kern.value16T(e-c, &sc[(c-cmin)*16], &s.v[(s.row(qi, c)*s.kvHeads+g)*2*8], 2*s.kvHeads*8, &accT[0], &vbuf[0])
		c = e
	}
	kern.untranspose16T(&accT[0], &a[0])
}
