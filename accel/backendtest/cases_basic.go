package backendtest

import (
	"fmt"
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// Element-wise arithmetic is float32 against float64: a few ulp.
const (
	elemRel = 1e-5
	elemAbs = 1e-7
)

// testReshape reshapes an input (read back directly), a computed result (read by a later op) and a weight.
func testReshape(e *env) {
	x := e.normal(2*3*8, 1)
	g := e.graph()
	in := g.inputF32("x", x, 2, 3, 8)
	direct := g.b.Reshape(in, 6, 8)
	scaled := g.b.Scale(g.b.Reshape(g.b.Scale(in, 2), 48), 0.5)
	wv := e.normal(48, 1)
	w := g.b.Weight(e.f32Weight("w", []int{4, 12}, wv))
	sum := g.b.Add(g.b.Reshape(in, 6, 8), g.b.Reshape(w, 6, 8))
	res := g.run(direct, scaled, sum)
	expect(e.t, "reshape of an input", res[0], widen(x), exact)
	expect(e.t, "reshape of a result", res[1], widen(x), exact)
	want := make([]float64, 48)
	for i := range want {
		want[i] = float64(x[i] + wv[i])
	}
	expect(e.t, "reshape of a weight", res[2], want, relTol(want, elemRel, elemAbs))
}

// testRows views row ranges of an input, of a result and of quantized weights used by MatMul.
func testRows(e *env) {
	x := e.normal(7*16, 1)
	g := e.graph()
	in := g.inputF32("x", x, 7, 16)
	view := g.b.Rows(in, 2, 3)
	ofResult := g.b.Scale(g.b.Rows(g.b.Scale(in, 1), 4, 3), 3)
	res := g.run(view, ofResult)
	expect(e.t, "rows [2,5) of an input", res[0], widen(x[2*16:5*16]), exact)
	want := make([]float64, 3*16)
	for i := range want {
		want[i] = 3 * float64(x[4*16+i])
	}
	expect(e.t, "rows [4,7) of a result", res[1], want, relTol(want, elemRel, elemAbs))

	for _, typ := range []accel.DType{quant.F32, quant.F16, quant.Q8_0, quant.Q4_K} {
		if !e.be.Caps().SupportsWeight(typ) {
			continue
		}
		const rows, cols = 9, 256
		data := e.quantData(typ, rows, cols)
		rb, _ := typ.RowBytes(cols)
		a := e.normal(2*cols, 1)
		g := e.graph()
		w := g.b.Weight(e.weight("w", typ, []int{rows, cols}, data))
		y := g.b.MatMul(g.b.Rows(w, 3, 4), g.inputF32("a", a, 2, cols))
		got := g.run(y)[0]
		want, scale := e.refMatMul(typ, data[3*rb:7*rb], 4, cols, a)
		expect(e.t, fmt.Sprintf("matmul by rows [3,7) of a %s weight", typ), got, want, scaleTol(scale, matRel))
	}
}

func scaleTol(scale []float64, rel float64) func(int) float64 {
	return func(i int) float64 { return rel*scale[i] + 1e-30 }
}

// testBinary covers same-shape operands and broadcasts of trailing dimensions, from inputs and weights.
func testBinary(e *env, op accel.Op) {
	shapes := []struct{ a, b []int }{
		{[]int{5, 33}, []int{5, 33}},
		{[]int{1, 40}, []int{40}},
		{[]int{6, 24}, []int{24}},
		{[]int{3, 4, 10}, []int{4, 10}},
		{[]int{2, 3, 2, 5}, []int{5}},
	}
	for _, s := range shapes {
		a, bv := e.normal(accel.Elements(s.a), 2), e.normal(accel.Elements(s.b), 2)
		for _, fromWeight := range []bool{false, true} {
			g := e.graph()
			var bt accel.Tensor
			if fromWeight {
				bt = g.b.Weight(e.f32Weight("b", s.b, bv))
			} else {
				bt = g.inputF32("b", bv, s.b...)
			}
			at := g.inputF32("a", a, s.a...)
			var y accel.Tensor
			if op == accel.OpAdd {
				y = g.b.Add(at, bt)
			} else {
				y = g.b.Mul(at, bt)
			}
			got := g.run(y)[0]
			want := make([]float64, len(a))
			for i := range want {
				x, z := float64(a[i]), float64(bv[i%len(bv)])
				if op == accel.OpAdd {
					want[i] = x + z
				} else {
					want[i] = x * z
				}
			}
			expect(e.t, fmt.Sprintf("%s %v by %v (weight %v)", op, s.a, s.b, fromWeight), got, want, relTol(want, elemRel, 1e-6))
		}
	}
}

// unaryCase runs a one-operand op over x of the given shape and compares with f.
func unaryCase(e *env, name string, x []float32, shape []int, op func(b *accel.Builder, t accel.Tensor) accel.Tensor,
	f func(float64) float64, rel, abs float64) {
	g := e.graph()
	got := g.run(op(g.b, g.inputF32("x", x, shape...)))[0]
	want := make([]float64, len(x))
	for i, v := range x {
		want[i] = f(float64(v))
	}
	expect(e.t, name, got, want, relTol(want, rel, abs))
}

func testScale(e *env) {
	for _, s := range []float32{0.125, -3, 1e-3} {
		x := e.normal(3*37, 4)
		unaryCase(e, fmt.Sprintf("scale by %g", s), x, []int{3, 37},
			func(b *accel.Builder, t accel.Tensor) accel.Tensor { return b.Scale(t, s) },
			func(v float64) float64 { return v * float64(s) }, 1e-6, 0)
	}
}

// rowShapes are [rows, cols] for the row-wise ops: one row, odd widths, many rows, a wide row.
var rowShapes = [][2]int{{1, 64}, {3, 33}, {17, 24}, {2, 1000}, {4, 1}}

func testRMSNorm(e *env) {
	for _, s := range rowShapes {
		for _, eps := range []float32{1e-6, 1e-5} {
			x := e.normal(s[0]*s[1], 3)
			g := e.graph()
			got := g.run(g.b.RMSNorm(g.inputF32("x", x, s[0], s[1]), eps))[0]
			want := refRMSNorm(x, s[1], eps)
			expect(e.t, fmt.Sprintf("rms_norm %v eps %g", s, eps), got, want, relTol(want, elemRel, 1e-6))
		}
	}
}

func testLayerNorm(e *env) {
	for _, s := range rowShapes {
		x := e.normal(s[0]*s[1], 2)
		for i := range x {
			x[i] += 3 // a mean far from 0 checks the centring
		}
		g := e.graph()
		got := g.run(g.b.LayerNorm(g.inputF32("x", x, s[0], s[1]), 1e-5))[0]
		want := refLayerNorm(x, s[1], 1e-5)
		expect(e.t, fmt.Sprintf("layer_norm %v", s), got, want, relTol(want, elemRel, 1e-5))
	}
}

func testSoftmax(e *env) {
	for _, s := range rowShapes {
		x := e.normal(s[0]*s[1], 5)
		g := e.graph()
		got := g.run(g.b.Softmax(g.inputF32("x", x, s[0], s[1])))[0]
		want := make([]float64, 0, len(x))
		for r := 0; r < s[0]; r++ {
			want = append(want, refSoftmax(widen(x[r*s[1]:(r+1)*s[1]]))...)
		}
		expect(e.t, fmt.Sprintf("softmax %v", s), got, want, relTol(want, elemRel, elemAbs))
	}
}

func testSiLU(e *env) {
	x := append(e.uniform(200, -20, 20), e.normal(57, 1)...)
	x = append(x, 0, -0.0, 88, -88, 1e-6, -1e-6)
	unaryCase(e, "silu", x, []int{len(x)}, (*accel.Builder).SiLU, refSiLU, elemRel, elemAbs)
}

// f16Exact returns n values in [lo, hi) rounded to F16 (see the GELU tolerance in doc.go).
func (e *env) f16Exact(n int, lo, hi float64) []float32 {
	v := e.uniform(n, lo, hi)
	for i := range v {
		v[i] = f16Round(v[i])
	}
	return v
}

// geluTol is the tolerance of a GELU result y = gelu(x): llama.cpp's CPU reads it from a table of F16 values
// (relative error up to 2^-11) computed in float32, where 1 + tanh(·) loses absolute 2^-23 when x is very
// negative (an error of about 2^-23·|x|).
func geluTol(x, y float64) float64 {
	return 0x1p-11*1.05*math.Abs(y) + 0x1p-22*math.Abs(x) + 1e-7
}

func testGELU(e *env) {
	x := append(e.f16Exact(300, -12, 12), e.f16Exact(100, -1, 1)...)
	x = append(x, 0, 10, -10, 9.99, -9.99, 65504, -65504, -0.5)
	for i := range x {
		x[i] = f16Round(x[i])
	}
	g := e.graph()
	got := g.run(g.b.GELU(g.inputF32("x", x, 4, len(x)/4)))[0]
	want := make([]float64, len(x))
	for i, v := range x {
		want[i] = refGELU(float64(v))
	}
	expect(e.t, "gelu", got, want, func(i int) float64 { return geluTol(float64(x[i]), want[i]) })
}

func testSwiGLU(e *env) {
	for _, n := range []int{1, 37, 512} {
		gate, up := e.uniform(n, -12, 12), e.normal(n, 2)
		g := e.graph()
		got := g.run(g.b.SwiGLU(g.inputF32("g", gate, n), g.inputF32("u", up, n)))[0]
		want := make([]float64, n)
		for i := range want {
			want[i] = refSiLU(float64(gate[i])) * float64(up[i])
		}
		expect(e.t, fmt.Sprintf("swiglu %d", n), got, want, relTol(want, elemRel, elemAbs))
	}
}

func testGeGLU(e *env) {
	for _, n := range []int{1, 40, 512} {
		gate, up := e.f16Exact(n, -12, 12), e.normal(n, 2)
		g := e.graph()
		res := g.run(g.b.GeGLU(g.inputF32("g", gate, n), g.inputF32("u", up, n)))[0]
		want, tol := make([]float64, n), make([]float64, n)
		for i := range want {
			y := refGELU(float64(gate[i]))
			want[i] = y * float64(up[i])
			tol[i] = geluTol(float64(gate[i]), y)*math.Abs(float64(up[i])) + elemRel*math.Abs(want[i])
		}
		expect(e.t, fmt.Sprintf("geglu %d", n), res, want, func(i int) float64 { return tol[i] })
	}
}

func testSoftCap(e *env) {
	for _, c := range []float32{5, 30, 50} {
		x := e.uniform(300, -3*float64(c), 3*float64(c))
		unaryCase(e, fmt.Sprintf("softcap %g", c), x, []int{3, 100},
			func(b *accel.Builder, t accel.Tensor) accel.Tensor { return b.SoftCap(t, c) },
			func(v float64) float64 { return float64(c) * math.Tanh(v/float64(c)) }, elemRel, 1e-6*float64(c))
	}
}

func testSlice(e *env) {
	cases := []struct {
		shape        []int
		start, count int
	}{{[]int{1, 48}, 0, 16}, {[]int{5, 48}, 16, 32}, {[]int{3, 2, 9}, 4, 5}, {[]int{4, 7}, 6, 1}}
	for _, c := range cases {
		x := e.normal(accel.Elements(c.shape), 1)
		g := e.graph()
		got := g.run(g.b.Slice(g.inputF32("x", x, c.shape...), c.start, c.count))[0]
		last := c.shape[len(c.shape)-1]
		var want []float64
		for r := 0; r < len(x)/last; r++ {
			want = append(want, widen(x[r*last+c.start:r*last+c.start+c.count])...)
		}
		expect(e.t, fmt.Sprintf("slice [%d,+%d) of %v", c.start, c.count, c.shape), got, want, exact)
	}
}

func testPermute(e *env) {
	cases := []struct{ shape, axes []int }{
		{[]int{3, 5}, []int{1, 0}},
		{[]int{4, 3, 8}, []int{1, 0, 2}},
		{[]int{4, 3, 8}, []int{2, 0, 1}},
		{[]int{2, 3, 4, 5}, []int{0, 2, 1, 3}},
		{[]int{2, 3, 4, 5}, []int{3, 1, 0, 2}},
		{[]int{1, 6}, []int{0, 1}},
	}
	for _, c := range cases {
		x := e.normal(accel.Elements(c.shape), 1)
		g := e.graph()
		got := g.run(g.b.Permute(g.inputF32("x", x, c.shape...), c.axes...))[0]
		want := refPermute(x, c.shape, c.axes)
		expect(e.t, fmt.Sprintf("permute %v by %v", c.shape, c.axes), got, want, exact)
	}
}

// refPermute moves element x[i0][i1]… to y[i_axes[0]][i_axes[1]]….
func refPermute(x []float32, shape, axes []int) []float64 {
	nd := len(shape)
	out := make([]int, nd)
	for k, a := range axes {
		out[k] = shape[a]
	}
	y := make([]float64, len(x))
	idx := make([]int, nd)
	for flat := range x {
		for k, rest := nd-1, flat; k >= 0; k-- {
			idx[k], rest = rest%shape[k], rest/shape[k]
		}
		o := 0
		for k, a := range axes {
			o = o*out[k] + idx[a]
		}
		y[o] = float64(x[flat])
	}
	return y
}
