package vulkan

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	goruntime "runtime"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/backendtest"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/osmem"
)

// TestStaging runs the conformance suite on a device whose device-local memory is not mapped, so that weights
// and caches go through staging buffers (small ones, so that uploads take several chunks), as on a discrete GPU.
func TestStaging(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: the staging path is covered by the full run")
	}
	d := sharedDevice(t)
	d.noMap, d.stagingSize = true, 4096
	backendtest.Run(t, func(t *testing.T) accel.Backend { return newTestBackend(t, d) })
}

// evalWeight runs a mat-vec (1 row), a tiled product (19 rows) and a lookup of 6 rows against weight w of
// backend b and returns the three results.
func evalWeight(t *testing.T, b *Backend, w accel.Weight, rows, cols int, x []float32, ids []int32) [3][]float32 {
	t.Helper()
	var out [3][]float32
	for i, n := range []int{1, 19} {
		g := accel.NewBuilder()
		in := g.Input("x", accel.F32, n, cols)
		y := g.Output(g.MatMul(g.Weight(w), in))
		out[i] = runGraph(t, b, g, y, map[accel.Tensor][]float32{in: x[:n*cols]}, nil)
	}
	g := accel.NewBuilder()
	it := g.Input("ids", accel.I32, len(ids))
	y := g.Output(g.GetRows(g.Weight(w), it))
	out[2] = runGraph(t, b, g, y, nil, map[accel.Tensor][]int32{it: ids})
	return out
}

func runGraph(t *testing.T, b *Backend, g *accel.Builder, out accel.Tensor, f32 map[accel.Tensor][]float32, i32 map[accel.Tensor][]int32) []float32 {
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

// TestSplitWeights uploads weights of every type to a backend whose binding range is a few KiB, so that each is
// split by rows over several buffers, and checks that products and lookups equal those of an unsplit upload.
func TestSplitWeights(t *testing.T) {
	d := sharedDevice(t)
	whole, split := newTestBackend(t, d), newTestBackend(t, d)
	defer whole.Close()
	defer split.Close()
	split.partBytes = 3 << 10
	r := rand.New(rand.NewPCG(5, 6))
	const rows, cols = 37, 512
	x := make([]float32, 19*cols)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	ids := []int32{0, 36, 5, 20, 21, 36}
	for _, typ := range weightTypes {
		t.Run(typ.String(), func(t *testing.T) {
			data := randomBlocks(t, typ, rows*cols/typ.BlockElems(), r)
			wd := accel.WeightData{Name: "w", Type: typ, Shape: []int{rows, cols}, Data: data}
			ww, err := whole.Upload(wd)
			if err != nil {
				t.Fatal(err)
			}
			ws, err := split.Upload(wd)
			if err != nil {
				t.Fatal(err)
			}
			if parts := len(ws.(*weight).Parts); parts < 2 {
				t.Fatalf("%d part(s) in a binding range of %d bytes", parts, split.partBytes)
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

// TestLargeTensor uploads an F16 table of more than 1 GiB — over lavapipe's 128 MiB binding range, so it is
// split into parts — from memory outside the Go heap, checks that the Go heap stays small, and looks up rows
// in the first, a middle and the last part.
func TestLargeTensor(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: uploads 1 GiB")
	}
	d := sharedDevice(t)
	b := newTestBackend(t, d)
	defer b.Close()
	const cols = 4096
	rows := (1<<30+64<<20)/(2*cols) + 3
	src, err := osmem.Alloc(rows * cols * 2) // zero pages until written
	if err != nil {
		t.Fatal(err)
	}
	defer osmem.Free(src)
	ids := []int32{0, int32(rows / 2), int32(rows - 1), 7}
	for _, id := range ids {
		for c := 0; c < cols; c++ {
			binary.LittleEndian.PutUint16(src[(int(id)*cols+c)*2:], quant.F32ToF16(float32(id%1000)+float32(c)/8))
		}
	}
	goruntime.GC()
	w, err := b.Upload(accel.WeightData{Name: "token_embd.weight", Type: quant.F16, Shape: []int{rows, cols}, Data: src})
	if err != nil {
		t.Fatal(err)
	}
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	if ms.HeapAlloc > 64<<20 {
		t.Errorf("Go heap %d MiB after uploading a 1 GiB weight", ms.HeapAlloc>>20)
	}
	t.Logf("%d parts; Go heap %d MiB", len(w.(*weight).Parts), ms.HeapAlloc>>20)
	g := accel.NewBuilder()
	it := g.Input("ids", accel.I32, len(ids))
	y := g.Output(g.GetRows(g.Weight(w), it))
	got := runGraph(t, b, g, y, nil, map[accel.Tensor][]int32{it: ids})
	for i, id := range ids {
		for _, c := range []int{0, 1, cols - 1} {
			want := quant.F16ToF32(quant.F32ToF16(float32(id%1000) + float32(c)/8))
			if v := got[i*cols+c]; v != want {
				t.Fatalf("row %d column %d: %g, want %g", id, c, v, want)
			}
		}
	}
}

// decodeProgram compiles one decode step of a small transformer layer on b: projections of Q8_0, Q4_K, F16 and
// Q6_K weights, RoPE, KV stores into F16 caches of 64 positions, attention, an F32 norm weight, SwiGLU. It
// returns the program and its input x [1, 256], position and output [1, 256].
func decodeProgram(t testing.TB, b *Backend) (p accel.Program, x, pos, out accel.Tensor) {
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

// TestProgramRunAllocs checks that setting inputs, running and reading a compiled program allocates nothing.
func TestProgramRunAllocs(t *testing.T) {
	d := sharedDevice(t)
	b := newTestBackend(t, d)
	defer b.Close()
	p, x, pos, out := decodeProgram(t, b)
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

// BenchmarkDecodeStep measures one recorded decode step of decodeProgram's layer: submit, wait, read.
func BenchmarkDecodeStep(b *testing.B) {
	d := openDevice(b, false)
	defer d.Close()
	be, err := NewBackendOn(d)
	if err != nil {
		b.Skip(err)
	}
	defer be.Close()
	p, x, pos, out := decodeProgram(b, be)
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

// TestDebug checks CompileOptions.Debug: every named computed node is reported after a run with its values,
// including nodes whose memory later steps reuse.
func TestDebug(t *testing.T) {
	d := sharedDevice(t)
	b := newTestBackend(t, d)
	defer b.Close()
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
