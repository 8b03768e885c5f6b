package cpu

import (
	"math"
	"unsafe"
)

// Attention over an F16 KV cache, 16 (query, head) pairs at a time. The pairs of one KV head (the queries
// of a batch times the heads that share it) are numbered token by token, and each block of 16 is one unit of
// work: lane l of every vector is one pair, and the kernels (attn_amd64.s) perform in each lane exactly the
// float operations attnStep.head performs for that pair, in the same order — q rounded to F16, each score a
// float32 sum over d in order (the products of F16 values are exact, so the sums are fused multiply-adds),
// soft-cap and scale, the softmax of softmaxExp, the probabilities rounded to F16, and the weighted sum of
// values in cell order — so the results are bit-identical. Scores are computed for the cells any lane of
// the block sees; a lane ignores the others (masked in the softmax, skipped in the value sum).

// laneWidth is the number of (query, head) pairs computed together.
const laneWidth = 16

// useLanes reports whether the step takes the lane kernels.
func (s *attnStep) useLanes() bool {
	return hasAttnLanes && !s.p.Flash && s.kF16 && s.vF16 && s.sinksID < 0 &&
		s.vstride == s.vsize
}

// laneBlocks returns the number of lane blocks per KV head (after check formed them).
func (s *attnStep) laneBlocks() int { return len(s.blocks) / 2 }

// formBlocks cuts the pairs of each run of queries of one sequence into blocks of up to 16, so that the lanes
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
		for l := t0 * group; l < t1*group; l += laneWidth {
			s.blocks = append(s.blocks, int32(l), int32(min(laneWidth, t1*group-l)))
		}
		t0 = t1
	}
}

// lanesPerShare is the workspace of one worker in floats: q transposed, 8 converted keys, the scores, the
// group sums of the softmax, the value accumulators and the lanes' cell ranges.
func (s *attnStep) lanesPerShare() int {
	return laneWidth*s.size + 8*s.size + laneWidth*s.cells() + laneWidth*laneWidth + laneWidth*s.vsize + 2*laneWidth
}

// runLanes takes every nw-th unit (KV head, block) starting at w.
func (s *attnStep) runLanes(w, nw int) {
	ws := s.ws[w*s.perShare() : (w+1)*s.perShare()]
	qT, ws := ws[:laneWidth*s.size], ws[laneWidth*s.size:]
	kbuf, ws := ws[:8*s.size], ws[8*s.size:]
	scores, ws := ws[:laneWidth*s.cells()], ws[laneWidth*s.cells():]
	tmp, ws := ws[:laneWidth*laneWidth], ws[laneWidth*laneWidth:]
	acc, ws := ws[:laneWidth*s.vsize], ws[laneWidth*s.vsize:]
	lohi := unsafe.Slice((*int32)(unsafe.Pointer(&ws[0])), 2*laneWidth) // the floats' memory as int32
	nb := s.laneBlocks()
	for u := w; u < s.kvHeads*nb; u += nw {
		s.lanes(u%s.kvHeads, u/s.kvHeads, qT, kbuf, scores, tmp, acc, lohi)
	}
}

// lanes computes block b of KV head g.
func (s *attnStep) lanes(g, b int, qT, kbuf, scores, tmp, acc []float32, lohi []int32) {
	group := s.heads / s.kvHeads
	l0, nl := int(s.blocks[2*b]), int(s.blocks[2*b+1])
	qi := l0 / group // a query of the block: they all belong to one sequence
	lo, hi := lohi[:laneWidth], lohi[laneWidth:2*laneWidth]
	cmin, cmax := math.MaxInt, -1
	for l := 0; l < laneWidth; l++ {
		if l >= nl {
			lo[l], hi[l] = 0, 0
			for d := 0; d < s.size; d++ {
				qT[d*laneWidth+l] = 0
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
		q := s.q[(i*s.heads+h)*s.size:][:s.size]
		for d, v := range q { // ggml converts q to the cache type before the F16 dot product
			qT[d*laneWidth+l] = f16Round(v)
		}
	}
	n := cmax - cmin + 1
	sc := scores[:n*laneWidth]
	kStride, vStride := 2*s.kvHeads*s.size, 2*s.kvHeads*s.vsize
	scoresF16, softmaxF16 := attnScoresF16, attnSoftmaxF16
	if nl <= laneWidth/2 { // lanes 0…7 only, at twice the rate where 512-bit operations are split in two
		scoresF16, softmaxF16 = attnScoresF16Y, attnSoftmaxF16Y
	}
	for c := cmin; c <= cmax; {
		e := s.pageEnd(c, cmax+1)
		scoresF16(s.size, &qT[0], &s.k[(s.row(qi, c)*s.kvHeads+g)*2*s.size], kStride, e-c, &sc[(c-cmin)*laneWidth], &kbuf[0])
		c = e
	}
	if s.p.SoftCap > 0 {
		capInv := 1 / s.p.SoftCap
		for j, v := range sc {
			sc[j] = float32(math.Tanh(float64(float32(v*capInv)))) * s.p.SoftCap
		}
	}
	softmaxF16(n, &sc[0], cmin, &lohi[0], s.p.Scale, &tmp[0])
	clear(acc)
	// value sums: tiles of four lanes over the cells all four see, each lane alone over the rest (before
	// and after, keeping every lane's cell order)
	l := 0
	for ; l+4 <= nl; l += 4 {
		jlo, jhi := max(lo[l], lo[l+1], lo[l+2], lo[l+3]), min(hi[l], hi[l+1], hi[l+2], hi[l+3])
		if jhi <= jlo {
			for t := l; t < l+4; t++ {
				s.valueOne(qi, g, t, cmin, int(lo[t]), int(hi[t]), sc, acc)
			}
			continue
		}
		for t := l; t < l+4; t++ {
			s.valueOne(qi, g, t, cmin, int(lo[t]), int(jlo), sc, acc)
		}
		for c := int(jlo); c < int(jhi); {
			e := s.pageEnd(c, int(jhi))
			attnValue4F16(e-c, &sc[(c-cmin)*laneWidth+l], &s.v[(s.row(qi, c)*s.kvHeads+g)*2*s.vsize], vStride,
				s.vsize, &acc[l*s.vsize])
			c = e
		}
		for t := l; t < l+4; t++ {
			s.valueOne(qi, g, t, cmin, int(jhi), int(hi[t]), sc, acc)
		}
	}
	for ; l < nl; l++ {
		s.valueOne(qi, g, l, cmin, int(lo[l]), int(hi[l]), sc, acc)
	}
	for l := 0; l < nl; l++ {
		i, h := (l0+l)/group, g*group+(l0+l)%group
		copy(s.y[(i*s.heads+h)*s.vsize:][:s.vsize], acc[l*s.vsize:(l+1)*s.vsize])
	}
}

// valueOne adds the values of cells [c0, c1) of KV head g (of query qi's sequence) weighted by lane l's
// probabilities (score rows from cell cmin) to the lane's accumulator, page by page in cell order.
func (s *attnStep) valueOne(qi, g, l, cmin, c0, c1 int, sc, acc []float32) {
	for c := c0; c < c1; {
		e := s.pageEnd(c, c1)
		attnValue1F16(e-c, &sc[(c-cmin)*laneWidth+l], &s.v[(s.row(qi, c)*s.kvHeads+g)*2*s.vsize], 2*s.kvHeads*s.vsize,
			s.vsize, &acc[l*s.vsize])
		c = e
	}
}
