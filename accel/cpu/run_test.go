package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// llamaConfig is a small llama-like model for allocation tests and Run benchmarks.
type llamaConfig struct {
	vocab, dim, heads, kvHeads, head, ffn, layers, ctx int
	weights, cache                                     accel.DType
}

var smallLlama = llamaConfig{vocab: 512, dim: 256, heads: 4, kvHeads: 2, head: 64, ffn: 512, layers: 2, ctx: 64,
	weights: quant.Q4_0, cache: quant.F16}

// llama is an uploaded model and its caches.
type llama struct {
	c       llamaConfig
	b       *Backend
	w       map[string]accel.Weight
	k, v    []accel.Buffer
	weights int64 // bytes of matrix data
}

func newLlama(tb testing.TB, b *Backend, c llamaConfig) *llama {
	rng := rand.New(rand.NewPCG(1, 2))
	m := &llama{c: c, b: b, w: map[string]accel.Weight{}}
	upload := func(name string, typ accel.DType, rows, cols int) {
		vals := make([]float32, rows*cols)
		for i := range vals {
			vals[i] = float32(rng.NormFloat64() / math.Sqrt(float64(cols)))
		}
		rb, _ := typ.RowBytes(cols)
		data := make([]byte, rows*rb)
		if err := quant.Quantize(typ, vals, data); err != nil {
			tb.Fatal(err)
		}
		w, err := b.Upload(accel.WeightData{Name: name, Type: typ, Shape: []int{rows, cols}, Data: data})
		if err != nil {
			tb.Fatal(err)
		}
		m.w[name] = w
		if typ != quant.F32 {
			m.weights += int64(len(data))
		}
	}
	upload("tok_embd", c.weights, c.vocab, c.dim)
	upload("output", c.weights, c.vocab, c.dim)
	upload("output_norm", quant.F32, 1, c.dim)
	for l := 0; l < c.layers; l++ {
		for _, mat := range []struct {
			name      string
			out, in   int
			weightTyp accel.DType
		}{
			{"attn_q", c.heads * c.head, c.dim, c.weights}, {"attn_k", c.kvHeads * c.head, c.dim, c.weights},
			{"attn_v", c.kvHeads * c.head, c.dim, c.weights}, {"attn_output", c.dim, c.heads * c.head, c.weights},
			{"ffn_gate", c.ffn, c.dim, c.weights}, {"ffn_up", c.ffn, c.dim, c.weights}, {"ffn_down", c.dim, c.ffn, c.weights},
			{"attn_norm", 1, c.dim, quant.F32}, {"ffn_norm", 1, c.dim, quant.F32},
		} {
			upload(fmt.Sprintf("blk.%d.%s", l, mat.name), mat.weightTyp, mat.out, mat.in)
		}
		for _, kv := range []*[]accel.Buffer{&m.k, &m.v} {
			buf, err := b.NewBuffer(accel.TensorDesc{Name: "cache", Type: c.cache, Shape: []int{c.ctx, c.kvHeads, c.head}})
			if err != nil {
				tb.Fatal(err)
			}
			*kv = append(*kv, buf)
		}
	}
	return m
}

// graph builds a forward pass over n tokens; it returns the graph and its token, position and logits tensors.
func (m *llama) graph(tb testing.TB, n int) (*accel.Graph, accel.Tensor, accel.Tensor, accel.Tensor) {
	c := m.c
	b := accel.NewBuilder()
	w := func(name string) accel.Tensor { return b.Weight(m.w[name]) }
	vec := func(name string) accel.Tensor { return b.Reshape(w(name), c.dim) }
	tok, pos := b.Input("tokens", quant.I32, n), b.Input("pos", quant.I32, n)
	rope := accel.RoPEParams{Mode: accel.RoPENormal, Dims: c.head, Base: 10000, FreqScale: 1}
	x := b.GetRows(w("tok_embd"), tok)
	for l := 0; l < c.layers; l++ {
		p := func(s string) string { return fmt.Sprintf("blk.%d.%s", l, s) }
		h := b.Mul(b.RMSNorm(x, 1e-5), vec(p("attn_norm")))
		q := b.RoPE(b.Reshape(b.MatMul(w(p("attn_q")), h), n, c.heads, c.head), pos, rope, accel.Tensor{})
		k := b.RoPE(b.Reshape(b.MatMul(w(p("attn_k")), h), n, c.kvHeads, c.head), pos, rope, accel.Tensor{})
		v := b.Reshape(b.MatMul(w(p("attn_v")), h), n, c.kvHeads, c.head)
		kc, vc := b.KVStore(b.Buffer(m.k[l]), k, pos), b.KVStore(b.Buffer(m.v[l]), v, pos)
		a := b.Attention(q, kc, vc, pos, accel.AttentionParams{Scale: float32(1 / math.Sqrt(float64(c.head)))})
		x = b.Name(b.Add(x, b.MatMul(w(p("attn_output")), a)), "attn_out", l)
		h = b.Mul(b.RMSNorm(x, 1e-5), vec(p("ffn_norm")))
		f := b.SwiGLU(b.MatMul(w(p("ffn_gate")), h), b.MatMul(w(p("ffn_up")), h))
		x = b.Name(b.Add(x, b.MatMul(w(p("ffn_down")), f)), "l_out", l)
	}
	logits := b.Output(b.MatMul(w("output"), b.Mul(b.RMSNorm(x, 1e-5), vec("output_norm"))))
	g, err := b.Build()
	if err != nil {
		tb.Fatal(err)
	}
	return g, tok, pos, logits
}

// TestRunAllocatesNothing checks the per-token loop: setting inputs and running a compiled decode step.
func TestRunAllocatesNothing(t *testing.T) {
	for _, threads := range []int{1, 3} {
		b := newTestBackend(t, threads)
		defer b.Close()
		m := newLlama(t, b, smallLlama)
		g, tok, pos, _ := m.graph(t, 1)
		prog, err := b.Compile(g, accel.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids, p := []int32{7}, []int32{0}
		allocs := testing.AllocsPerRun(20, func() {
			p[0] = (p[0] + 1) % int32(smallLlama.ctx)
			if err := prog.SetInt32(tok, ids); err != nil {
				t.Fatal(err)
			}
			if err := prog.SetInt32(pos, p); err != nil {
				t.Fatal(err)
			}
			if err := prog.Run(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%d threads: Run allocates %.1f times per call, want 0", threads, allocs)
		}
	}
}

// TestDebugHook checks that the hook sees named nodes with the values the graph computed.
func TestDebugHook(t *testing.T) {
	b := newTestBackend(t, 2)
	defer b.Close()
	m := newLlama(t, b, smallLlama)
	g, tok, pos, logits := m.graph(t, 2)
	seen := map[string][]float32{}
	prog, err := b.Compile(g, accel.CompileOptions{Debug: func(n *accel.Node, v []float32) {
		seen[fmt.Sprintf("%s.%d", n.Name, n.Layer)] = append([]float32(nil), v...)
	}})
	if err != nil {
		t.Fatal(err)
	}
	prog.SetInt32(tok, []int32{1, 2})
	prog.SetInt32(pos, []int32{0, 1})
	if err := prog.Run(); err != nil {
		t.Fatal(err)
	}
	for l := 0; l < smallLlama.layers; l++ {
		for _, name := range []string{"attn_out", "l_out"} {
			v := seen[fmt.Sprintf("%s.%d", name, l)]
			if len(v) != 2*smallLlama.dim {
				t.Errorf("%s.%d: hook got %d values, want %d", name, l, len(v), 2*smallLlama.dim)
			}
		}
	}
	out := make([]float32, 2*smallLlama.vocab)
	if err := prog.Read(logits, out); err != nil {
		t.Fatal(err)
	}
	// l_out of the last layer feeds the logits: it must be finite and not all zero.
	var sum float64
	for _, v := range seen[fmt.Sprintf("l_out.%d", smallLlama.layers-1)] {
		sum += math.Abs(float64(v))
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		t.Errorf("last layer output sums to %g", sum)
	}
}

// BenchmarkRun is one decode step of the small llama model.
func BenchmarkRun(b *testing.B) {
	be, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	m := newLlama(b, be, smallLlama)
	g, tok, pos, _ := m.graph(b, 1)
	prog, err := be.Compile(g, accel.CompileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(m.weights)
	p, ids := []int32{0}, []int32{5}
	for b.Loop() {
		p[0] = (p[0] + 1) % int32(smallLlama.ctx)
		prog.SetInt32(tok, ids)
		prog.SetInt32(pos, p)
		if err := prog.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestUnalignedF32Weight uploads F32 data that does not start on a 4-byte boundary (kernels view F32 weights
// as []float32, so the backend realigns such data).
func TestUnalignedF32Weight(t *testing.T) {
	b := newTestBackend(t, 2)
	defer b.Close()
	raw := make([]byte, 4*3+1)
	quant.QuantizeF32([]float32{1, 2, 3}, raw[1:])
	w, err := b.Upload(accel.WeightData{Name: "bias", Type: quant.F32, Shape: []int{3}, Data: raw[1:]})
	if err != nil {
		t.Fatal(err)
	}
	bld := accel.NewBuilder()
	x := bld.Input("x", quant.F32, 2, 3)
	y := bld.Output(bld.Add(x, bld.Weight(w)))
	g, err := bld.Build()
	if err != nil {
		t.Fatal(err)
	}
	prog, err := b.Compile(g, accel.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	prog.SetFloat32(x, []float32{10, 20, 30, 40, 50, 60})
	if err := prog.Run(); err != nil {
		t.Fatal(err)
	}
	got := make([]float32, 6)
	prog.Read(y, got)
	if fmt.Sprint(got) != "[11 22 33 41 52 63]" {
		t.Errorf("x + unaligned bias = %v", got)
	}
}
