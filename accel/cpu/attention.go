package cpu

import (
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// attnStep is causal grouped-query attention over a KV cache, computed as llama.cpp's graph does without flash
// attention (kq = k·q, soft-cap, softmax with scale and mask, kqv = v·kq) but one (query, head) at a time.
// Each worker has a row of scores (the context length), a rounded copy of q and the lane accumulators of the
// F32 V product in the workspace.
//
// With an F32 cache the arithmetic is the reference build's (x86-64, AVX-512), cell by cell: k·q is
// ggml_vec_dot_f32; the softmax exponentials are summed in float64 per aligned group of 16 cells, each group
// reduced in float32 as one vector; v·p is llamafile's tinyBLAS (16 lanes, cell c in lane c mod 16), the
// reference's order for a batch of queries, taken for every query so that a query's result does not depend
// on the others in its batch (the reference's single queries use ggml_vec_dot_f32's 4×16 lanes). Cells after
// the query's position are masked to zero and change none of these sums.
//
// Cells are positions of the query's sequence. In the paged form each sequence's cells live in pages of the
// cache (see accel.Builder.PagedAttention) and every sum above still runs over cells in position order, so a
// query's result depends only on its sequence's cells, not on where their pages lie or on the other queries.
type attnStep struct {
	qID, kID, vID, posID, yID int
	seqID, pagesID            int // -1 for the single-sequence form
	sinksID                   int // -1 without attention sinks
	q, y, sinks               []float32
	k, v                      []byte
	kF16, vF16                bool
	kType, vType              quant.Type      // the caches' types (flash attention reads any accel.KVCacheType)
	kRow, vRow                int             // bytes of one head's key and value row
	kDot                      quant.DotFn     // the key type's vec_dot (flash attention)
	kRows                     quant.RowsDotFn // the same over several rows (nil for an F32 cache, converted row by row)
	pos, seq, pages           []int32
	heads, kvHeads            int
	size, vsize, ctx          int
	vstride                   int // elements between value rows (vsize, or the key size when the values are inside the keys)
	pageSize, maxPages, seqs  int // the single-sequence form is one page of ctx rows
	p                         accel.AttentionParams
	lay                       accel.AttnLayout
	ws                        []float32
	blocks                    []int32 // lane blocks: first (query, head) pair and count, per KV head (lanes only)
	lw                        int     // the lane width of the CPU's lane kernels (attention_lanes.go), 0 without
	prefetchSpan              int     // the span of a lone block's rows from which its kernels prefetch (lanePrefetchSpan)
}

func newAttention(g *accel.Graph, id int) *attnStep {
	nd := &g.Nodes[id]
	l := accel.AttnLayoutOf(g, id)
	s := &attnStep{qID: nd.Args[0].ID(), kID: nd.Args[1].ID(), vID: nd.Args[2].ID(), posID: nd.Args[3].ID(), yID: id,
		seqID: -1, pagesID: -1, kF16: g.Node(nd.Args[1]).Type == quant.F16, vF16: g.Node(nd.Args[2]).Type == quant.F16,
		heads: l.Heads, kvHeads: l.KVHeads, size: l.Size, vsize: l.VSize, vstride: l.VStride, ctx: l.Rows, p: nd.Attn,
		lay: l, pageSize: l.PageSize, maxPages: l.MaxPages, seqs: l.Seqs, sinksID: -1, lw: laneWidthFor(l.Size, l.VSize),
		prefetchSpan: lanePrefetchSpan}
	s.kType, s.vType = g.Node(nd.Args[1]).Type, g.Node(nd.Args[2]).Type
	s.kRow, _ = s.kType.RowBytes(s.size)
	s.vRow, _ = s.vType.RowBytes(s.vsize)
	if s.p.Flash {
		s.kDot = quant.DotFunc(s.kType)
		if s.kType == quant.F32 {
			s.kDot = quant.DotFunc(quant.F16)
		} else {
			s.kRows = quant.DotRows(s.kType, quant.OrderVecDot)
		}
	}
	if l.Paged {
		s.seqID, s.pagesID = nd.Args[4].ID(), nd.Args[5].ID()
	}
	if l.Sinks {
		s.sinksID = nd.Args[len(nd.Args)-1].ID()
	}
	if s.useLanes() {
		// At most one block per query beyond the whole blocks of pairs, when every query starts a sequence.
		n := l.Queries
		s.blocks = make([]int32, 0, 2*(n+(n*s.heads/s.kvHeads)/s.lw+1))
	}
	return s
}

// row returns the cache row of cell c of query i's sequence.
func (s *attnStep) row(i, c int) int {
	if s.pages == nil {
		return c
	}
	return int(s.pages[int(s.seq[i])*s.maxPages+c/s.pageSize])*s.pageSize + c%s.pageSize
}

// pageEnd returns the end of the run of cells from c of query i's sequence that lie in consecutive cache rows
// (c's page and the pages after it that follow it in the cache), at most end.
func (s *attnStep) pageEnd(i, c, end int) int {
	e := (c/s.pageSize + 1) * s.pageSize
	if s.pages != nil {
		pt := s.pages[int(s.seq[i])*s.maxPages:]
		for p := c / s.pageSize; e < end && pt[p+1] == pt[p]+1; p++ {
			e += s.pageSize
		}
	}
	return min(end, e)
}

func (s *attnStep) perShare() int {
	if s.p.Flash {
		return s.flashPerShare()
	}
	if s.useLanes() {
		return s.lanesPerShare()
	}
	return s.cells() + s.size + s.vsize*f32Lanes
}
func (s *attnStep) workspace(shares int) int { return shares * s.perShare() * 4 }

func (s *attnStep) bind(p *program, ws []byte) {
	s.q, s.y, s.pos = f32s(p.mem[s.qID]), f32s(p.mem[s.yID]), i32s(p.mem[s.posID])
	s.k, s.v = p.mem[s.kID], p.mem[s.vID]
	if s.seqID >= 0 {
		s.seq, s.pages = i32s(p.mem[s.seqID]), i32s(p.mem[s.pagesID])
	}
	if s.sinksID >= 0 {
		s.sinks = f32s(p.mem[s.sinksID])
	}
	s.ws = f32s(ws[:s.workspace(p.b.threads)])
}

// check rejects positions outside the cache (or a sequence's pages) and pages outside the cache before
// anything reads them, and forms the lane blocks.
func (s *attnStep) check() error {
	if err := s.lay.Check(s.pos, s.seq, s.pages); err != nil {
		return err
	}
	if s.useLanes() {
		s.formBlocks()
	}
	return nil
}

// cells is the number of cells a sequence can have: the cache's rows, or its pages in the table.
func (s *attnStep) cells() int { return s.maxPages * s.pageSize }

func (s *attnStep) exec(p *pool) {
	units := len(s.pos) * s.heads
	if s.useLanes() {
		units = s.laneUnits()
	}
	work := 0
	for _, q := range s.pos {
		work += int(q) + 1
	}
	p.run(s, min(units, p.shares(work*s.heads*(s.size+s.vsize), matGrain)))
}

// run takes every nw-th (query, head) pair starting at w, so that long and short rows of a causal prefill are
// spread evenly over the workers.
func (s *attnStep) run(w, nw int) {
	if s.p.Flash {
		s.runFlash(w, nw)
		return
	}
	if s.useLanes() {
		s.runLanes(w, nw)
		return
	}
	ws := s.ws[w*s.perShare() : (w+1)*s.perShare()]
	nc := s.cells()
	scores, qh, acc := ws[:nc], ws[nc:nc+s.size], ws[nc+s.size:]
	group := s.heads / s.kvHeads
	for u := w; u < len(s.pos)*s.heads; u += nw {
		i, h := u/s.heads, u%s.heads
		s.head(i, h, s.q[u*s.size:(u+1)*s.size], s.y[u*s.vsize:(u+1)*s.vsize], int(s.pos[i]), h/group, scores, qh, acc)
	}
}

// head attends query i's row q of head h (kv head g) at position pos and writes out. A sink joins the softmax's
// maximum and, after the cells' exponentials, its sum (ggml_soft_max_f32 with ggml_soft_max_add_sinks).
func (s *attnStep) head(i, h int, q, out []float32, pos, g int, scores, qh, acc []float32) {
	first := 0
	if s.p.Window > 0 {
		first = max(0, pos-s.p.Window+1)
	}
	scores = scores[:pos+1-first]
	if s.kF16 { // ggml converts q to the cache type before the F16 dot product
		for d, v := range q {
			qh[d] = f16Round(v)
		}
		q = qh[:s.size]
	}
	var capInv float32
	if s.p.SoftCap > 0 {
		capInv = 1 / s.p.SoftCap
	}
	if s.kF16 {
		s.scoresF16(i, g, q, first, scores)
	}
	m := float32(math.Inf(-1))
	j0 := 0
	if s.kF16 && s.p.SoftCap == 0 {
		j0, m = scaleMaxFast(scores, s.p.Scale, m)
	}
	for j := j0; j < len(scores); j++ {
		var sc float32
		if s.kF16 {
			sc = scores[j]
		} else {
			off := (s.row(i, first+j)*s.kvHeads + g) * s.size
			sc = quant.VecDotF32s(q, f32s(s.k)[off:off+s.size])
		}
		if s.p.SoftCap > 0 {
			sc = float32(math.Tanh(float64(float32(sc*capInv)))) * s.p.SoftCap
		}
		sc *= s.p.Scale
		scores[j] = sc
		m = max(m, sc)
	}
	if s.sinks != nil {
		m = max(m, s.sinks[h])
	}
	sum := softmaxExp(scores, first, m)
	if s.sinks != nil {
		sum += float64(expf(s.sinks[h] - m))
	}
	inv := float32(1 / sum)
	if !s.vF16 {
		s.valueF32(i, out, scores, first, g, inv, acc)
		return
	}
	clear(out)
	for j := mulRoundF16Fast(scores, inv); j < len(scores); j++ {
		scores[j] = f16Round(scores[j] * inv) // the probabilities are converted to F16 for the F16 V product
	}
	stride := s.kvHeads * s.vstride
	for j := 0; j < len(scores); {
		e := s.pageEnd(i, first+j, first+len(scores)) - first
		v := u16s(s.v)[(s.row(i, first+j)*s.kvHeads+g)*s.vstride:]
		if !valueF16Fast(out, scores[j:e], v, stride) {
			for jj, pj := range scores[j:e] {
				for d, x := range v[jj*stride : jj*stride+s.vsize] {
					out[d] += pj * quant.F16ToF32(x)
				}
			}
		}
		j = e
	}
}

// scoresF16 sets scores[j] to the F16 dot product of q with the key of cell first+j (kv head g, query i's
// sequence), page by page: dotF16, with SIMD where the CPU has it (the same bits).
func (s *attnStep) scoresF16(i, g int, q []float32, first int, scores []float32) {
	stride := s.kvHeads * s.size
	for j := 0; j < len(scores); {
		e := s.pageEnd(i, first+j, first+len(scores)) - first
		k := u16s(s.k)[(s.row(i, first+j)*s.kvHeads+g)*s.size:]
		done := dotsF16Fast(q, k, stride, scores[j:e])
		for jj := j + done; jj < e; jj++ {
			scores[jj] = dotF16(q, k[(jj-j)*stride:(jj-j)*stride+s.size])
		}
		j = e
	}
}

// softmaxExp replaces the scores of cells first… by exp(score - m) and returns their sum as
// ggml_vec_soft_max_f32 forms it: per aligned group of 16 cells a float32 vector reduction, added in float64.
func softmaxExp(scores []float32, first int, m float32) float64 {
	vexpVec(scores, scores, m)
	var sum float64
	j := 0
	if first%f32Lanes == 0 {
		j, sum = sum16Fast(scores, sum)
	}
	var grp [f32Lanes]float32
	for j < len(scores) {
		c := first + j
		end := min(len(scores), j+f32Lanes-c%f32Lanes)
		grp = [f32Lanes]float32{}
		for ; j < end; j++ {
			grp[(first+j)%f32Lanes] = scores[j]
		}
		sum += float64(quant.Reduce16(&grp))
	}
	return sum
}

// valueF32 is out = Σ_c p_c·v_c over the cells of kv head g with p_c = probs[c-first]·inv, in tinyBLAS's
// order: one 16-lane accumulator per output, cell c fused into lane c mod 16, reduced as
// _mm512_reduce_add_ps. The accumulators lie lane by lane (acc[l·vsize + d], vsize×16 floats), so that a
// cell's values are one axpy into its lane's row (vector code where the CPU has it).
func (s *attnStep) valueF32(i int, out, probs []float32, first, g int, inv float32, acc []float32) {
	v := f32s(s.v)
	vs := s.vsize
	lanes := acc[:vs*f32Lanes]
	clear(lanes)
	for j, e := range probs {
		c := first + j
		l := c % f32Lanes
		axpy(v[(s.row(i, c)*s.kvHeads+g)*s.vstride:][:vs], lanes[l*vs:(l+1)*vs], e*inv, false)
	}
	var col [f32Lanes]float32
	for d := range out {
		for l := range col {
			col[l] = lanes[l*vs+d]
		}
		out[d] = quant.Reduce16(&col)
	}
}

// f32Lanes is the number of float32 lanes of the reference build's vectors (AVX-512).
const f32Lanes = 16

// dotF16 is q·k with k in F16 (q already F16-exact): exact products, float32 sum.
func dotF16(q []float32, k []uint16) float32 {
	var sum float32
	for d, v := range k {
		sum += q[d] * quant.F16ToF32(v)
	}
	return sum
}
