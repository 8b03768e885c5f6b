package cpu

import (
	"fmt"
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
type attnStep struct {
	qID, kID, vID, posID, yID int
	q, y                      []float32
	k, v                      []byte
	kF16, vF16                bool
	pos                       []int32
	heads, kvHeads            int
	size, vsize, ctx          int
	p                         accel.AttentionParams
	ws                        []float32
}

func newAttention(g *accel.Graph, id int) *attnStep {
	nd := &g.Nodes[id]
	q, k, v := &g.Nodes[nd.Args[0].ID()], &g.Nodes[nd.Args[1].ID()], &g.Nodes[nd.Args[2].ID()]
	return &attnStep{qID: nd.Args[0].ID(), kID: nd.Args[1].ID(), vID: nd.Args[2].ID(), posID: nd.Args[3].ID(), yID: id,
		kF16: k.Type == quant.F16, vF16: v.Type == quant.F16, heads: q.Shape[1], kvHeads: k.Shape[1],
		size: q.Shape[2], vsize: v.Shape[2], ctx: k.Shape[0], p: nd.Attn}
}

func (s *attnStep) perShare() int {
	if s.useLanes() {
		return s.lanesPerShare()
	}
	return s.ctx + s.size + s.vsize*f32Lanes
}
func (s *attnStep) workspace(shares int) int { return shares * s.perShare() * 4 }

func (s *attnStep) bind(p *program, ws []byte) {
	s.q, s.y, s.pos = f32s(p.mem[s.qID]), f32s(p.mem[s.yID]), i32s(p.mem[s.posID])
	s.k, s.v = p.mem[s.kID], p.mem[s.vID]
	s.ws = f32s(ws[:s.workspace(p.b.threads)])
}

// check rejects positions outside the cache before anything reads it.
func (s *attnStep) check() error {
	for i, p := range s.pos {
		if p < 0 || int(p) >= s.ctx {
			return fmt.Errorf("query %d: position %d outside the cache [0, %d)", i, p, s.ctx)
		}
	}
	return nil
}

func (s *attnStep) exec(p *pool) {
	units := len(s.pos) * s.heads
	if s.useLanes() {
		units = s.kvHeads * s.laneBlocks()
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
	if s.useLanes() {
		s.runLanes(w, nw)
		return
	}
	ws := s.ws[w*s.perShare() : (w+1)*s.perShare()]
	scores, qh, acc := ws[:s.ctx], ws[s.ctx:s.ctx+s.size], ws[s.ctx+s.size:]
	group := s.heads / s.kvHeads
	for u := w; u < len(s.pos)*s.heads; u += nw {
		i, h := u/s.heads, u%s.heads
		s.head(s.q[u*s.size:(u+1)*s.size], s.y[u*s.vsize:(u+1)*s.vsize], int(s.pos[i]), h/group, scores, qh, acc)
	}
}

// head attends one query row q of kv head g at position pos and writes out.
func (s *attnStep) head(q, out []float32, pos, g int, scores, qh, acc []float32) {
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
	m := float32(math.Inf(-1))
	for j := range scores {
		off := ((first+j)*s.kvHeads + g) * s.size
		var sc float32
		if s.kF16 {
			sc = dotF16(q, u16s(s.k)[off:off+s.size])
		} else {
			sc = quant.VecDotF32(q, f32s(s.k)[off:off+s.size])
		}
		if s.p.SoftCap > 0 {
			sc = float32(math.Tanh(float64(float32(sc*capInv)))) * s.p.SoftCap
		}
		sc *= s.p.Scale
		scores[j] = sc
		m = max(m, sc)
	}
	sum := softmaxExp(scores, first, m)
	inv := float32(1 / sum)
	if !s.vF16 {
		s.valueF32(out, scores, first, g, inv, acc)
		return
	}
	clear(out)
	for j, e := range scores {
		pj := f16Round(e * inv) // the probabilities are converted to F16 for the F16 V product
		off := ((first+j)*s.kvHeads + g) * s.vsize
		for d, v := range u16s(s.v)[off : off+s.vsize] {
			out[d] += pj * quant.F16ToF32(v)
		}
	}
}

// softmaxExp replaces the scores of cells first… by exp(score - m) and returns their sum as
// ggml_vec_soft_max_f32 forms it: per aligned group of 16 cells a float32 vector reduction, added in float64.
func softmaxExp(scores []float32, first int, m float32) float64 {
	var sum float64
	var grp [f32Lanes]float32
	for j := 0; j < len(scores); {
		c := first + j
		end := min(len(scores), j+f32Lanes-c%f32Lanes)
		grp = [f32Lanes]float32{}
		for ; j < end; j++ {
			e := vexpf(scores[j] - m)
			scores[j] = e
			grp[(first+j)%f32Lanes] = e
		}
		sum += float64(quant.Reduce16(&grp))
	}
	return sum
}

// valueF32 is out = Σ_c p_c·v_c over the cells of kv head g with p_c = probs[c-first]·inv, in tinyBLAS's
// order: one 16-lane accumulator per output, cell c fused into lane c mod 16, reduced as
// _mm512_reduce_add_ps. acc holds vsize×16 floats.
func (s *attnStep) valueF32(out, probs []float32, first, g int, inv float32, acc []float32) {
	v := f32s(s.v)
	vs := s.vsize
	lanes := acc[:vs*f32Lanes]
	clear(lanes)
	for j, e := range probs {
		c := first + j
		p, l := e*inv, c%f32Lanes
		row := v[(c*s.kvHeads+g)*vs:][:vs]
		for d, x := range row {
			lanes[d*f32Lanes+l] = fma32(p, x, lanes[d*f32Lanes+l])
		}
	}
	for d := range out {
		out[d] = quant.Reduce16((*[f32Lanes]float32)(lanes[d*f32Lanes:]))
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
