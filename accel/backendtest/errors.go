package backendtest

import (
	"errors"
	"strings"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// errorCases check that bad requests are errors (never panics, never out-of-bounds reads) and that a program
// keeps working after a failed run.
var errorCases = []struct {
	name string
	f    func(e *env)
}{
	{"attention-position-out-of-range", testAttentionPositions},
	{"kv-store-position-out-of-range", testKVStorePositions},
	{"short-conv-position-out-of-range", testShortConvPositions},
	{"get-rows-id-out-of-range", testGetRowsIDs},
	{"bad-inputs", testBadInputs},
	{"bad-uploads", testBadUploads},
	{"foreign-objects", testForeign},
	{"closed", testClosed},
}

// attnProgram builds a small attention over caches filled in the same graph; the query positions are an input.
func attnProgram(e *env, pos []int32) (accel.Program, accel.Tensor) {
	const ctx = 8
	g := e.graph()
	rows := make([]int32, ctx)
	for i := range rows {
		rows[i] = int32(i)
	}
	kt := g.b.KVStore(g.b.Buffer(e.buffer("k", quant.F16, ctx, 1, 8)), g.inputF32("k", e.normal(ctx*8, 1), ctx, 1, 8), g.inputI32("rows", rows))
	vt := g.b.KVStore(g.b.Buffer(e.buffer("v", quant.F16, ctx, 1, 8)), g.b.Reshape(g.inputF32("v", e.normal(ctx*8, 1), ctx, 8), ctx, 1, 8), g.b.Rows(g.inputI32("rows2", rows), 0, ctx))
	p := g.inputI32("pos", pos)
	g.b.Output(g.b.Attention(g.inputF32("q", e.normal(len(pos)*2*8, 1), len(pos), 2, 8), kt, vt, p, accel.AttentionParams{Scale: 0.35}))
	return g.program(), p
}

func testAttentionPositions(e *env) {
	prog, pos := attnProgram(e, []int32{0, 1})
	for _, bad := range [][]int32{{0, 8}, {-1, 2}, {1 << 30, 0}} {
		if err := prog.SetInt32(pos, bad); err != nil {
			e.t.Fatalf("SetInt32: %v", err)
		}
		if err := prog.Run(); err == nil {
			e.t.Errorf("attention at positions %v over a cache of 8: no error", bad)
		}
	}
	if err := prog.SetInt32(pos, []int32{7, 3}); err != nil {
		e.t.Fatal(err)
	}
	if err := prog.Run(); err != nil {
		e.t.Errorf("valid positions after failed runs: %v", err)
	}
}

func testKVStorePositions(e *env) {
	g := e.graph()
	pos := g.inputI32("pos", []int32{0, 1})
	g.b.Output(g.b.KVStore(g.b.Buffer(e.buffer("c", quant.F32, 4, 2)), g.inputF32("x", e.normal(4, 1), 2, 2), pos))
	// A 2-D cache is not [ctx, heads, size]: the builder rejects it, and so must Build.
	if _, err := g.b.Build(); err == nil {
		e.t.Errorf("KVStore into a 2-D cache built without error")
	}
	// Two stores: into cache a at valid positions, then into cache b at the positions under test.
	g = e.graph()
	x := g.inputF32("x", e.uniform(4, 1, 2), 2, 1, 2)
	outA := g.b.Output(g.b.KVStore(g.b.Buffer(e.buffer("a", quant.F32, 4, 1, 2)), x, g.inputI32("ok", []int32{0, 1})))
	pos = g.inputI32("pos", []int32{0, 1})
	g.b.Output(g.b.KVStore(g.b.Buffer(e.buffer("b", quant.F32, 4, 1, 2)), g.b.Scale(x, 2), pos))
	prog := g.program()
	for _, bad := range [][]int32{{0, 4}, {-1, 0}} {
		prog.SetInt32(pos, bad)
		if err := prog.Run(); err == nil {
			e.t.Errorf("KV store at positions %v of a 4-row cache: no error", bad)
		}
	}
	// A failed run changes nothing: positions are inputs, checked before any step runs.
	cache := make([]float32, 8)
	if err := prog.Read(outA, cache); err != nil {
		e.t.Fatal(err)
	}
	expect(e.t, "the other cache after failed runs", cache, make([]float64, 8), exact)
}

func testGetRowsIDs(e *env) {
	g := e.graph()
	ids := g.inputI32("ids", []int32{0})
	g.b.Output(g.b.GetRows(g.b.Weight(e.f32Weight("table", []int{3, 4}, e.normal(12, 1))), ids))
	prog := g.program()
	for _, bad := range [][]int32{{3}, {-1}} {
		prog.SetInt32(ids, bad)
		if err := prog.Run(); err == nil {
			e.t.Errorf("get_rows of row %v of a 3-row table: no error", bad)
		}
	}
}

func testBadInputs(e *env) {
	g := e.graph()
	x := g.inputF32("x", e.normal(6, 1), 2, 3)
	ids := g.inputI32("ids", []int32{1, 2})
	y := g.b.Scale(x, 2)
	out := g.b.Output(g.b.Add(y, g.b.GetRows(g.b.Weight(e.f32Weight("t", []int{4, 3}, e.normal(12, 1))), ids)))
	prog := g.program()
	checks := []struct {
		what string
		err  error
	}{
		{"SetInt32 with 3 values for 2", prog.SetInt32(ids, []int32{1, 2, 3})},
		{"SetInt32 with 1 value for 2", prog.SetInt32(ids, []int32{1})},
		{"SetFloat32 with 5 values for 6", prog.SetFloat32(x, make([]float32, 5))},
		{"SetFloat32 on an I32 input", prog.SetFloat32(ids, make([]float32, 2))},
		{"SetInt32 on an F32 input", prog.SetInt32(x, make([]int32, 6))},
		{"SetFloat32 on a computed node", prog.SetFloat32(y, make([]float32, 6))},
		{"SetFloat32 on an invalid tensor", prog.SetFloat32(accel.Tensor{}, nil)},
		{"Read of a node that is not an output", prog.Read(y, make([]float32, 6))},
		{"Read into a short slice", prog.Read(out, make([]float32, 5))},
	}
	for _, c := range checks {
		if c.err == nil {
			e.t.Errorf("%s: no error", c.what)
		}
	}
	if err := prog.Run(); err != nil {
		e.t.Errorf("Run after rejected calls: %v", err)
	}
}

func testBadUploads(e *env) {
	if _, err := e.be.Upload(accel.WeightData{Name: "blk.0.attn_q.weight", Type: quant.F32, Shape: []int{4, 8}, Data: make([]byte, 4*31)}); err == nil ||
		!strings.Contains(err.Error(), "blk.0.attn_q.weight") {
		e.t.Errorf("upload with too little data: err = %v, want an error naming the tensor", err)
	}
	if _, err := e.be.Upload(accel.WeightData{Name: "w", Type: quant.Q8_0, Shape: []int{2, 48}, Data: make([]byte, 2*34)}); err == nil {
		e.t.Errorf("upload of Q8_0 rows of 48 (not whole blocks): no error")
	}
	for _, t := range []accel.DType{quant.IQ2_XXS, quant.I8, quant.Type(1000)} {
		if e.be.Caps().SupportsWeight(t) {
			continue
		}
		if _, err := e.be.Upload(accel.WeightData{Name: "odd", Type: t, Shape: []int{1, 256}, Data: make([]byte, 1024)}); err == nil ||
			!strings.Contains(err.Error(), "odd") {
			e.t.Errorf("upload of unsupported type %s: err = %v, want an error naming the tensor", t, err)
		}
	}
	if _, err := e.be.NewBuffer(accel.TensorDesc{Name: "kv", Type: quant.Q4_K, Shape: []int{4, 256}}); err == nil {
		e.t.Errorf("Q4_K buffer: no error")
	}
	if e.be.Caps().FlashAttention { // quantized KV caches: whole blocks only
		if _, err := e.be.NewBuffer(accel.TensorDesc{Name: "kv", Type: quant.Q8_0, Shape: []int{4, 48}}); err == nil {
			e.t.Errorf("Q8_0 buffer of rows of 48: no error")
		}
	} else if _, err := e.be.NewBuffer(accel.TensorDesc{Name: "kv", Type: quant.Q8_0, Shape: []int{4, 32}}); err == nil {
		e.t.Errorf("Q8_0 buffer without flash attention: no error")
	}
	if _, err := e.be.NewBuffer(accel.TensorDesc{Name: "kv", Type: quant.F16, Shape: []int{4, 0}}); err == nil {
		e.t.Errorf("buffer of shape [4 0]: no error")
	}
}

// testForeign compiles graphs holding a weight or buffer of another backend.
func testForeign(e *env) {
	other := e.newBackend()
	defer other.Close()
	w, err := other.Upload(accel.WeightData{Name: "w", Type: quant.F32, Shape: []int{2}, Data: make([]byte, 8)})
	if err != nil {
		e.t.Fatal(err)
	}
	b := accel.NewBuilder()
	b.Output(b.Add(b.Input("x", quant.F32, 2), b.Weight(w)))
	g, err := b.Build()
	if err != nil {
		e.t.Fatal(err)
	}
	if p, err := e.be.Compile(g, accel.CompileOptions{}); err == nil {
		p.Close()
		e.t.Errorf("compiling with another backend's weight: no error")
	}
}

func testClosed(e *env) {
	g := e.graph()
	out := g.b.Output(g.b.Scale(g.inputF32("x", []float32{1, 2}, 2), 2))
	prog := g.program()
	if err := prog.Close(); err != nil {
		e.t.Fatal(err)
	}
	if err := prog.Close(); err != nil {
		e.t.Errorf("second Close: %v", err)
	}
	if err := prog.Run(); !errors.Is(err, accel.ErrClosed) {
		e.t.Errorf("Run after Close: %v, want ErrClosed", err)
	}
	if err := prog.Read(out, make([]float32, 2)); err == nil {
		e.t.Errorf("Read after Close: no error")
	}

	buf := e.buffer("kv", quant.F32, 4, 1, 2)
	g = e.graph()
	g.b.Output(g.b.KVStore(g.b.Buffer(buf), g.inputF32("x", []float32{1, 2}, 1, 1, 2), g.inputI32("p", []int32{0})))
	prog = g.program()
	buf.Close()
	if err := prog.Run(); err == nil {
		e.t.Errorf("Run after its buffer was closed: no error")
	}

	if err := e.be.Close(); err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.be.Upload(accel.WeightData{Name: "w", Type: quant.F32, Shape: []int{1}, Data: make([]byte, 4)}); err == nil {
		e.t.Errorf("Upload after Close: no error")
	}
}
