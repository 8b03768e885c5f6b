package gputest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// Programs on a backend: compiling and running graphs, weights split into parts, allocations per run, debug
// reports.

// evalWeight runs a mat-vec (1 row), a tiled product (19 rows) and a lookup of 6 rows against weight w of
// backend b and returns the three results.
func evalWeight(t *testing.T, b accel.Backend, w accel.Weight, rows, cols int, x []float32, ids []int32) [3][]float32 {
	t.Helper()
	var out [3][]float32
	for i, n := range []int{1, 19} {
		g := accel.NewBuilder()
		in := g.Input("x", accel.F32, n, cols)
		y := g.Output(g.MatMul(g.Weight(w), in))
		out[i] = Run(t, b, g, y, map[accel.Tensor][]float32{in: x[:n*cols]}, nil)
	}
	g := accel.NewBuilder()
	it := g.Input("ids", accel.I32, len(ids))
	y := g.Output(g.GetRows(g.Weight(w), it))
	out[2] = Run(t, b, g, y, nil, map[accel.Tensor][]int32{it: ids})
	return out
}

// Run compiles the graph of g with output out on b, sets its inputs, runs it and returns out's values.
func Run(t testing.TB, b accel.Backend, g *accel.Builder, out accel.Tensor, f32 map[accel.Tensor][]float32, i32 map[accel.Tensor][]int32) []float32 {
	t.Helper()
	gr, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Compile(gr, accel.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for in, v := range f32 {
		if err := p.SetFloat32(in, v); err != nil {
			t.Fatal(err)
		}
	}
	for in, v := range i32 {
		if err := p.SetInt32(in, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Run(); err != nil {
		t.Fatal(err)
	}
	res := make([]float32, accel.Elements(g.Shape(out)))
	if err := p.Read(out, res); err != nil {
		t.Fatal(err)
	}
	return res
}

// SplitWeights uploads weights of every type to whole and to split, a backend whose parts are a few KiB (3 KiB
// suits), so that each is split by rows over several buffers (parts counts them), and checks that products and
// lookups equal those of the unsplit upload.
func SplitWeights(t *testing.T, whole, split accel.Backend, parts func(accel.Weight) int) {
	r := rand.New(rand.NewPCG(5, 6))
	const rows, cols = 37, 512
	x := make([]float32, 19*cols)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	ids := []int32{0, 36, 5, 20, 21, 36}
	for _, typ := range split.Caps().WeightTypes {
		t.Run(typ.String(), func(t *testing.T) {
			data := RandomBlocks(t, typ, rows*cols/typ.BlockElems(), r)
			wd := accel.WeightData{Name: "w", Type: typ, Shape: []int{rows, cols}, Data: data}
			ww, err := whole.Upload(wd)
			if err != nil {
				t.Fatal(err)
			}
			ws, err := split.Upload(wd)
			if err != nil {
				t.Fatal(err)
			}
			if n := parts(ws); n < 2 {
				t.Fatalf("%d part(s): the weight is not split", n)
			}
			a, b := evalWeight(t, whole, ww, rows, cols, x, ids), evalWeight(t, split, ws, rows, cols, x, ids)
			for k, what := range []string{"mat-vec", "tiled product", "get_rows"} {
				for i := range a[k] {
					if math.Float32bits(a[k][i]) != math.Float32bits(b[k][i]) {
						t.Fatalf("%s [%d]: split %g, whole %g", what, i, b[k][i], a[k][i])
					}
				}
			}
		})
	}
}

// DecodeProgram compiles one decode step of a small transformer layer on b: projections of Q8_0, Q4_K, F16 and
// Q6_K weights, RoPE, KV stores into F16 caches of 64 positions, attention, an F32 norm weight, SwiGLU. It
// returns the program and its input x [1, 256], position and output [1, 256].
func DecodeProgram(t testing.TB, b accel.Backend) (p accel.Program, x, pos, out accel.Tensor) {
	var caches [2]accel.Buffer
	for i := range caches {
		c, err := b.NewBuffer(accel.TensorDesc{Name: "kv", Type: quant.F16, Shape: []int{64, 2, 64}})
		if err != nil {
			t.Fatal(err)
		}
		caches[i] = c
	}
	kc, vc := caches[0], caches[1]
	r := rand.New(rand.NewPCG(7, 8))
	up := func(name string, typ quant.Type, rows, cols int) accel.Weight {
		vals := make([]float32, rows*cols)
		for i := range vals {
			vals[i] = float32(r.NormFloat64())
		}
		rb, _ := typ.RowBytes(cols)
		data := make([]byte, rows*rb)
		if err := quant.Quantize(typ, vals, data); err != nil {
			t.Fatal(err)
		}
		w, err := b.Upload(accel.WeightData{Name: name, Type: typ, Shape: []int{rows, cols}, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	const dim, heads, kvHeads, head = 256, 4, 2, 64
	g := accel.NewBuilder()
	x = g.Input("x", accel.F32, 1, dim)
	pos = g.Input("pos", accel.I32, 1)
	norm := g.Weight(up("norm", quant.F32, 1, dim))
	h := g.Mul(g.RMSNorm(x, 1e-5), g.Reshape(norm, dim))
	rope := accel.RoPEParams{Mode: accel.RoPENeoX, Dims: head, Base: 10000, FreqScale: 1}
	q := g.RoPE(g.Reshape(g.MatMul(g.Weight(up("q", quant.Q8_0, heads*head, dim)), h), 1, heads, head), pos, rope, accel.Tensor{})
	k := g.RoPE(g.Reshape(g.MatMul(g.Weight(up("k", quant.Q4_K, kvHeads*head, dim)), h), 1, kvHeads, head), pos, rope, accel.Tensor{})
	v := g.Reshape(g.MatMul(g.Weight(up("v", quant.F16, kvHeads*head, dim)), h), 1, kvHeads, head)
	a := g.Attention(q, g.KVStore(g.Buffer(kc), k, pos), g.KVStore(g.Buffer(vc), v, pos), pos, accel.AttentionParams{Scale: 0.125})
	o := g.Add(x, g.MatMul(g.Weight(up("o", quant.Q8_0, dim, heads*head)), a))
	ff := g.SwiGLU(g.MatMul(g.Weight(up("gate", quant.Q4_K, 512, dim)), o), g.MatMul(g.Weight(up("up", quant.Q4_K, 512, dim)), o))
	out = g.Output(g.Add(o, g.MatMul(g.Weight(up("down", quant.Q6_K, dim, 512)), ff)))
	gr, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	if p, err = b.Compile(gr, accel.CompileOptions{}); err != nil {
		t.Fatal(err)
	}
	return p, x, pos, out
}

// RunAllocs checks that setting inputs, running and reading a program compiled on b (DecodeProgram) allocates
// nothing.
func RunAllocs(t *testing.T, b accel.Backend) {
	p, x, pos, out := DecodeProgram(t, b)
	xs, ps, res := make([]float32, 256), []int32{0}, make([]float32, 256)
	step := func() {
		ps[0] = (ps[0] + 1) % 64
		if err := p.SetFloat32(x, xs); err != nil {
			t.Fatal(err)
		}
		if err := p.SetInt32(pos, ps); err != nil {
			t.Fatal(err)
		}
		if err := p.Run(); err != nil {
			t.Fatal(err)
		}
		if err := p.Read(out, res); err != nil {
			t.Fatal(err)
		}
	}
	step()
	if n := testing.AllocsPerRun(20, step); n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}

// BenchDecode measures one run of DecodeProgram's layer compiled on be: submit, wait, read.
func BenchDecode(b *testing.B, be accel.Backend) {
	p, x, pos, out := DecodeProgram(b, be)
	defer p.Close()
	res := make([]float32, 256)
	p.SetFloat32(x, make([]float32, 256))
	p.SetInt32(pos, []int32{3})
	for b.Loop() {
		if err := p.Run(); err != nil {
			b.Fatal(err)
		}
		if err := p.Read(out, res); err != nil {
			b.Fatal(err)
		}
	}
}

// Debug checks b's CompileOptions.Debug: every named computed node is reported after a run with its values,
// including nodes whose memory later steps reuse.
func Debug(t *testing.T, b accel.Backend) {
	g := accel.NewBuilder()
	x := g.Input("x", accel.F32, 2, 4)
	s := g.Name(g.Scale(x, 2), "scaled", 0)
	h := g.Name(g.RMSNorm(s, 1e-6), "normed", 0)
	out := g.Output(g.Name(g.Scale(g.Reshape(h, 8), 3), "out", -1))
	gr, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string][]float32{}
	p, err := b.Compile(gr, accel.CompileOptions{Debug: func(n *accel.Node, v []float32) {
		seen[n.Name] = append([]float32(nil), v...)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	xs := []float32{1, 2, 3, 4, -1, 0.5, 0, 2}
	p.SetFloat32(x, xs)
	if err := p.Run(); err != nil {
		t.Fatal(err)
	}
	res := make([]float32, 8)
	if err := p.Read(out, res); err != nil {
		t.Fatal(err)
	}
	for i, v := range seen["scaled"] {
		if v != 2*xs[i] {
			t.Fatalf("scaled[%d] = %g, want %g", i, v, 2*xs[i])
		}
	}
	if len(seen["normed"]) != 8 || len(seen["out"]) != 8 {
		t.Fatalf("debug saw %v", seen)
	}
	for i := range res {
		if seen["out"][i] != res[i] || res[i] != 3*seen["normed"][i] {
			t.Fatalf("out[%d]: debug %g, read %g, normed %g", i, seen["out"][i], res[i], seen["normed"][i])
		}
	}
}
