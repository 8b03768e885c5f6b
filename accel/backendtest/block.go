package backendtest

import (
	"fmt"
	"math"
	"sync"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// A small llama-style transformer block (RMSNorm → Q/K/V → RoPE → KV store → attention → output projection →
// residual → RMSNorm → SwiGLU FFN → residual), run as a prefill of 5 tokens and two decode steps by three
// programs that share weights and KV buffers. The caches must keep the rows earlier programs stored.
const (
	blockDim     = 64
	blockHeads   = 4
	blockKVHeads = 2
	blockHead    = 16
	blockFFN     = 96
	blockCtx     = 16
	blockEps     = 1e-5
)

// blockSteps are the positions of the three runs.
var blockSteps = [][]int32{{0, 1, 2, 3, 4}, {5}, {6}}

// blockVariant picks the matrix and cache types. Errors of single ops compound through the block; rel bounds
// the largest deviation relative to the largest output value:
//   - F32 weights and cache: float32 rounding only, 1e-5;
//   - F16 weights and cache: both sides round activations, q and probabilities to F16 from values that differ in
//     the last float32 bits, so a rounding may go the other way (2^-11 of one term), 1e-3;
//   - Q8_0 weights: likewise an activation's 8-bit quantization may round the other way (1/254 of its block's
//     largest value), 5e-3.
type blockVariant struct {
	name    string
	weights accel.DType
	cache   accel.DType
	rel     float64
}

var blockVariants = []blockVariant{
	{"f32", quant.F32, quant.F32, 1e-5},
	{"f16", quant.F16, quant.F16, 1e-3},
	{"q8_0-f16-cache", quant.Q8_0, quant.F16, 5e-3},
}

// blockModel holds the block's weights, uploaded and as bytes for the reference.
type blockModel struct {
	v     blockVariant
	w     map[string]accel.Weight
	data  map[string][]byte
	shape map[string][2]int // [out, in]
	norm  map[string][]float32
	rope  accel.RoPEParams
	attn  accel.AttentionParams
}

func newBlockModel(e *env, v blockVariant) *blockModel {
	m := &blockModel{v: v, w: map[string]accel.Weight{}, data: map[string][]byte{}, shape: map[string][2]int{},
		norm: map[string][]float32{},
		rope: accel.RoPEParams{Mode: accel.RoPENeoX, Dims: blockHead, Base: 10000, FreqScale: 1, AttnFactor: 1},
		attn: accel.AttentionParams{Scale: float32(1 / math.Sqrt(blockHead))}}
	mats := map[string][2]int{
		"wq": {blockHeads * blockHead, blockDim}, "wk": {blockKVHeads * blockHead, blockDim},
		"wv": {blockKVHeads * blockHead, blockDim}, "wo": {blockDim, blockHeads * blockHead},
		"wg": {blockFFN, blockDim}, "wu": {blockFFN, blockDim}, "wd": {blockDim, blockFFN},
	}
	for _, name := range []string{"wq", "wk", "wv", "wo", "wg", "wu", "wd"} {
		s := mats[name]
		m.data[name] = e.quantData(v.weights, s[0], s[1])
		m.shape[name] = s
		m.w[name] = e.weight(name, v.weights, s[:], m.data[name])
	}
	for _, name := range []string{"attn_norm", "ffn_norm"} {
		m.norm[name] = e.uniform(blockDim, 0.8, 1.2)
		m.w[name] = e.f32Weight(name, []int{blockDim}, m.norm[name])
	}
	return m
}

// graph builds one run of the block over x [n, dim] at positions pos.
func (m *blockModel) graph(e *env, kbuf, vbuf accel.Buffer, x []float32, pos []int32) (*graph, accel.Tensor) {
	g := e.graph()
	b := g.b
	n := len(pos)
	w := func(name string) accel.Tensor { return b.Weight(m.w[name]) }
	in, p := g.inputF32("x", x, n, blockDim), g.inputI32("pos", pos)
	h := b.Mul(b.RMSNorm(in, blockEps), w("attn_norm"))
	q := b.RoPE(b.Reshape(b.MatMul(w("wq"), h), n, blockHeads, blockHead), p, m.rope, accel.Tensor{})
	k := b.RoPE(b.Reshape(b.MatMul(w("wk"), h), n, blockKVHeads, blockHead), p, m.rope, accel.Tensor{})
	v := b.Reshape(b.MatMul(w("wv"), h), n, blockKVHeads, blockHead)
	kc, vc := b.KVStore(b.Buffer(kbuf), k, p), b.KVStore(b.Buffer(vbuf), v, p)
	x2 := b.Add(in, b.MatMul(w("wo"), b.Attention(q, kc, vc, p, m.attn)))
	h2 := b.Mul(b.RMSNorm(x2, blockEps), w("ffn_norm"))
	out := b.Add(x2, b.MatMul(w("wd"), b.SwiGLU(b.MatMul(w("wg"), h2), b.MatMul(w("wu"), h2))))
	return g, b.Output(out)
}

// blockRef runs the block in float64, rounding to float32 where a backend stores values, and keeps the caches.
type blockRef struct {
	e    *env
	m    *blockModel
	k, v []float32 // cache rows [ctx, kvHeads, head], F16-rounded for an F16 cache
}

func newBlockRef(e *env, m *blockModel) *blockRef {
	return &blockRef{e: e, m: m, k: make([]float32, blockCtx*blockKVHeads*blockHead), v: make([]float32, blockCtx*blockKVHeads*blockHead)}
}

func narrow(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func (r *blockRef) linear(name string, x []float32) []float32 {
	s := r.m.shape[name]
	want, _ := r.e.refMatMul(r.m.v.weights, r.m.data[name], s[0], s[1], x)
	return narrow(want)
}

func (r *blockRef) normed(x []float32, weight []float32) []float32 {
	y := refRMSNorm(x, blockDim, blockEps)
	out := make([]float32, len(y))
	for i := range y {
		out[i] = float32(y[i]) * weight[i%blockDim]
	}
	return out
}

// step runs the block for x at pos and returns its output.
func (r *blockRef) step(x []float32, pos []int32) []float64 {
	rope := newRoPERef(r.m.rope, nil)
	h := r.normed(x, r.m.norm["attn_norm"])
	qr, _ := rope.apply(r.linear("wq", h), pos, blockHeads, blockHead)
	kr, _ := rope.apply(r.linear("wk", h), pos, blockKVHeads, blockHead)
	k, v := narrow(kr), r.linear("wv", h)
	row := blockKVHeads * blockHead
	for i, p := range pos {
		for j := 0; j < row; j++ {
			kv, vv := k[i*row+j], v[i*row+j]
			if r.m.v.cache == quant.F16 {
				kv, vv = f16Round(kv), f16Round(vv)
			}
			r.k[int(p)*row+j], r.v[int(p)*row+j] = kv, vv
		}
	}
	f16 := r.m.v.cache == quant.F16
	ar := &attnRef{p: r.m.attn, kF16: f16, vF16: f16, heads: blockHeads, kvHeads: blockKVHeads, size: blockHead,
		vsize: blockHead, k: r.k, v: r.v}
	att, _ := ar.apply(narrow(qr), pos)
	o := r.linear("wo", narrow(att))
	x2 := make([]float32, len(x))
	for i := range x2 {
		x2[i] = x[i] + o[i]
	}
	h2 := r.normed(x2, r.m.norm["ffn_norm"])
	gate, up := r.linear("wg", h2), r.linear("wu", h2)
	f := make([]float32, len(gate))
	for i := range f {
		f[i] = float32(refSiLU(float64(gate[i])) * float64(up[i]))
	}
	d := r.linear("wd", f)
	out := make([]float64, len(x))
	for i := range out {
		out[i] = float64(x2[i]) + float64(d[i])
	}
	return out
}

// blockTol bounds each element's deviation by rel times the largest |value|.
func blockTol(want []float64, rel float64) func(int) float64 {
	big := 0.0
	for _, v := range want {
		big = math.Max(big, math.Abs(v))
	}
	return func(int) float64 { return rel * big }
}

func testBlock(e *env, v blockVariant) {
	m := newBlockModel(e, v)
	ref := newBlockRef(e, m)
	kbuf := e.buffer("k", v.cache, blockCtx, blockKVHeads, blockHead)
	vbuf := e.buffer("v", v.cache, blockCtx, blockKVHeads, blockHead)
	for _, pos := range blockSteps {
		x := e.normal(len(pos)*blockDim, 1)
		g, out := m.graph(e, kbuf, vbuf, x, pos)
		p := g.program()
		if err := p.Run(); err != nil {
			e.t.Fatalf("Run at %v: %v", pos, err)
		}
		got := readAll(e.t, p, g.b, []accel.Tensor{out})[0]
		want := ref.step(x, pos)
		expect(e.t, fmt.Sprintf("block %s at positions %v", v.name, pos), got, want, blockTol(want, v.rel))
	}
}

// testConcurrent runs four sessions of the block (one program per step, own caches) at the same time on one
// backend, as a server does, and checks each against the reference.
func testConcurrent(e *env) {
	v := blockVariants[1]
	m := newBlockModel(e, v)
	const sessions = 4
	inputs := make([][]float32, len(blockSteps))
	wants := make([][]float64, len(blockSteps))
	ref := newBlockRef(e, m)
	for i, pos := range blockSteps {
		inputs[i] = e.normal(len(pos)*blockDim, 1)
		wants[i] = ref.step(inputs[i], pos)
	}
	type session struct {
		progs []accel.Program
		outs  []accel.Tensor
		got   [][]float32
		err   error
	}
	ss := make([]*session, sessions)
	for s := range ss {
		ss[s] = &session{}
		kbuf := e.buffer("k", v.cache, blockCtx, blockKVHeads, blockHead)
		vbuf := e.buffer("v", v.cache, blockCtx, blockKVHeads, blockHead)
		for i, pos := range blockSteps {
			g, out := m.graph(e, kbuf, vbuf, inputs[i], pos)
			ss[s].progs = append(ss[s].progs, g.program())
			ss[s].outs = append(ss[s].outs, out)
			ss[s].got = append(ss[s].got, make([]float32, len(pos)*blockDim))
		}
	}
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, p := range s.progs {
				if s.err = p.Run(); s.err != nil {
					return
				}
				if s.err = p.Read(s.outs[i], s.got[i]); s.err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for n, s := range ss {
		if s.err != nil {
			e.t.Fatalf("session %d: %v", n, s.err)
		}
		for i, pos := range blockSteps {
			expect(e.t, fmt.Sprintf("session %d at %v", n, pos), s.got[i], wants[i], blockTol(wants[i], v.rel))
		}
	}
}
