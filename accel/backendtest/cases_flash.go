package backendtest

import (
	"fmt"
	"math"
	"strings"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// flashCases: grouped queries, head sizes 64 and 128 (a V head size of its own), a sliding window, a soft-cap
// (applied to the scaled score in flash attention: SoftCap·tanh(s·Scale/SoftCap)).
var flashCases = []struct {
	name                     string
	heads, kvHeads           int
	size, vsize, ctx, window int
	softCap                  float32
}{
	{"gqa2-64", 4, 2, 64, 64, 20, 0, 0},
	{"gqa4-128-window", 4, 1, 128, 64, 12, 5, 0},
	{"softcap", 2, 2, 64, 64, 10, 0, 0.5},
}

// testFlashAttention checks flash attention (backends with Caps.FlashAttention; the others must refuse it by
// name, never run it as the default attention) on every KV cache type against
// a float64 reference over what the cache holds: F32 caches are read as F16 (as llama.cpp casts them), q is
// rounded to F16 or quantized to Q8_0 for quantized keys. An F32 cache is also run with the Hadamard rotations,
// which leave the result unchanged up to the F16 rounding of the rotated values.
func testFlashAttention(e *env) {
	if !e.be.Caps().FlashAttention {
		testFlashRefused(e)
		return
	}
	for _, c := range flashCases {
		for _, cache := range []accel.DType{quant.F16, quant.F32, quant.Q8_0, quant.Q4_0} {
			for _, pos := range [][]int32{{0}, {int32(c.ctx - 1), 3, 7}} {
				p := accel.AttentionParams{Scale: float32(1 / math.Sqrt(float64(c.size))), Window: c.window, SoftCap: c.softCap, Flash: true}
				runFlash(e, c.name, c.heads, c.kvHeads, c.size, c.vsize, c.ctx, cache, p, pos)
				if cache == quant.F32 {
					p.RotK, p.RotV = accel.KVRotation(quant.Q8_0, c.size, true), accel.KVRotation(quant.Q8_0, c.vsize, false)
					runFlash(e, c.name+" rotated", c.heads, c.kvHeads, c.size, c.vsize, c.ctx, cache, p, pos)
				}
			}
		}
	}
}

// stored returns the values a cache of type t holds after storing x (rows of n elements), as flash attention
// reads them.
func stored(t accel.DType, x []float32, n int) []float32 {
	out := make([]float32, len(x))
	switch t {
	case quant.F16, quant.F32:
		for i, v := range x {
			out[i] = f16Round(v)
		}
	default:
		rb, _ := t.RowBytes(n)
		buf := make([]byte, rb)
		for r := 0; r < len(x); r += n {
			if t == quant.Q8_0 {
				quant.QuantizeQ8_0(x[r:r+n], buf)
			} else {
				quant.QuantizeQ4_0(x[r:r+n], buf)
			}
			if err := quant.Dequantize(t, buf, out[r:r+n]); err != nil {
				panic(err)
			}
		}
	}
	return out
}

func runFlash(e *env, name string, heads, kvHeads, size, vsize, ctx int, cache accel.DType, p accel.AttentionParams, pos []int32) {
	kv, vv := e.normal(ctx*kvHeads*size, 1), e.normal(ctx*kvHeads*vsize, 1)
	q := e.normal(len(pos)*heads*size, 2)
	all := make([]int32, ctx)
	for i := range all {
		all[i] = int32(i)
	}
	g := e.graph()
	kt := g.b.KVStoreRotated(g.b.Buffer(e.buffer("k", cache, ctx, kvHeads, size)), g.inputF32("kin", kv, ctx, kvHeads, size), g.inputI32("kpos", all), p.RotK)
	vt := g.b.KVStoreRotated(g.b.Buffer(e.buffer("v", cache, ctx, kvHeads, vsize)), g.inputF32("vin", vv, ctx, kvHeads, vsize), g.inputI32("vpos", all), p.RotV)
	got := g.run(g.b.Attention(g.inputF32("q", q, len(pos), heads, size), kt, vt, g.inputI32("pos", pos), p))[0]
	ks, vs := stored(cache, kv, size), stored(cache, vv, vsize)
	qs := stored(quant.F16, q, size)
	if cache.BlockElems() > 1 {
		qs = stored(quant.Q8_0, q, size)
	}
	maxV := 0.0
	for _, v := range vs {
		maxV = math.Max(maxV, math.Abs(float64(v)))
	}
	// F16 accumulators round every step (2^-11 relative), F32 ones hardly; the scores are float32 sums.
	tol := 1e-4 * maxV
	if cache == quant.F16 || cache == quant.F32 {
		tol = float64(ctx+2) * 0x1p-11 * maxV
	}
	want := make([]float64, len(pos)*heads*vsize)
	group := heads / kvHeads
	for i, ps := range pos {
		first := 0
		if p.Window > 0 {
			first = max(0, int(ps)-p.Window+1)
		}
		for h := 0; h < heads; h++ {
			g := h / group
			qh := qs[(i*heads+h)*size:][:size]
			var w []float64
			m := math.Inf(-1)
			for c := first; c <= int(ps); c++ {
				var s float64
				for d, x := range ks[(c*kvHeads+g)*size:][:size] {
					s += float64(qh[d]) * float64(x)
				}
				s *= float64(p.Scale)
				if cp := float64(p.SoftCap); cp > 0 {
					s = cp * math.Tanh(s/cp)
				}
				w, m = append(w, s), math.Max(m, s)
			}
			var sum float64
			out := want[(i*heads+h)*vsize:][:vsize]
			for j, s := range w {
				e := math.Exp(s - m)
				sum += e
				for d, x := range vs[((first+j)*kvHeads+g)*vsize:][:vsize] {
					out[d] += e * float64(x)
				}
			}
			for d := range out {
				out[d] /= sum
			}
		}
	}
	expect(e.t, fmt.Sprintf("flash attention %s %s cache, positions %v", name, cache, pos), got, want, func(int) float64 { return tol })
}

// testFlashRefused: a backend without flash attention fails to compile it with an error naming it.
func testFlashRefused(e *env) {
	b := accel.NewBuilder()
	q, pos := b.Input("q", accel.F32, 1, 4, 64), b.Input("pos", accel.I32, 1)
	k, v := b.Buffer(e.buffer("k", quant.F16, 16, 2, 64)), b.Buffer(e.buffer("v", quant.F16, 16, 2, 64))
	b.Output(b.Attention(q, k, v, pos, accel.AttentionParams{Scale: 0.125, Flash: true}))
	g, err := b.Build()
	if err != nil {
		e.t.Fatal(err)
	}
	p, err := e.be.Compile(g, accel.CompileOptions{})
	if err == nil {
		p.Close()
		e.t.Errorf("flash attention compiled on a backend without Caps.FlashAttention")
	} else if !strings.Contains(err.Error(), "flash attention") {
		e.t.Errorf("flash attention refused with %q, want an error naming it", err)
	}
}
