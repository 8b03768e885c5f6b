package cpu

import (
	"fmt"
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// attnStep is causal grouped-query attention over a KV cache, computed as llama.cpp's graph does without flash
// attention (kq = k·q, soft-cap, softmax with scale and mask, kqv = v·kq) but one (query, head) at a time.
// Each worker has a row of scores (the context length) and a rounded copy of q in the workspace.
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

func (s *attnStep) perShare() int            { return s.ctx + s.size }
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
	work := 0
	for _, q := range s.pos {
		work += int(q) + 1
	}
	p.run(s, min(units, p.shares(work*s.heads*(s.size+s.vsize), matGrain)))
}

// run takes every nw-th (query, head) pair starting at w, so that long and short rows of a causal prefill are
// spread evenly over the workers.
func (s *attnStep) run(w, nw int) {
	ws := s.ws[w*s.perShare() : (w+1)*s.perShare()]
	scores, qh := ws[:s.ctx], ws[s.ctx:]
	group := s.heads / s.kvHeads
	for u := w; u < len(s.pos)*s.heads; u += nw {
		i, h := u/s.heads, u%s.heads
		s.head(s.q[u*s.size:(u+1)*s.size], s.y[u*s.vsize:(u+1)*s.vsize], int(s.pos[i]), h/group, scores, qh)
	}
}

// head attends one query row q of kv head g at position pos and writes out.
func (s *attnStep) head(q, out []float32, pos, g int, scores, qh []float32) {
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
			sc = dotF32(q, f32s(s.k)[off:off+s.size])
		}
		if s.p.SoftCap > 0 {
			sc = float32(math.Tanh(float64(float32(sc*capInv)))) * s.p.SoftCap
		}
		sc *= s.p.Scale
		scores[j] = sc
		m = max(m, sc)
	}
	var sum float64
	for j, sc := range scores {
		e := vexpf(sc - m)
		scores[j] = e
		sum += float64(e)
	}
	inv := float32(1 / sum)
	clear(out)
	for j, e := range scores {
		pj := e * inv
		off := ((first+j)*s.kvHeads + g) * s.vsize
		if s.vF16 { // the probabilities are converted to F16 for the F16 V product
			pj = f16Round(pj)
			for d, v := range u16s(s.v)[off : off+s.vsize] {
				out[d] += pj * quant.F16ToF32(v)
			}
		} else {
			for d, v := range f32s(s.v)[off : off+s.vsize] {
				out[d] += float32(pj * v)
			}
		}
	}
}

// dotF16 is q·k with k in F16 (q already F16-exact): exact products, float32 sum.
func dotF16(q []float32, k []uint16) float32 {
	var sum float32
	for d, v := range k {
		sum += q[d] * quant.F16ToF32(v)
	}
	return sum
}

// dotF32 is q·k in float32, each product rounded.
func dotF32(q, k []float32) float32 {
	var sum float32
	for d, v := range k {
		sum += float32(q[d] * v)
	}
	return sum
}
