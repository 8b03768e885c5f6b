package backendtest

import (
	"fmt"
	"math"
	"testing"

	"github.com/forma-llm/forma/accel"
)

// The cases of the mixture-of-experts ops.

func testSigmoid(e *env) {
	x := e.uniform(300, -20, 20)
	unaryCase(e, "sigmoid", x, []int{3, 100}, func(b *accel.Builder, t accel.Tensor) accel.Tensor { return b.Sigmoid(t) },
		func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }, elemRel, elemAbs)
}

// testTopK checks the order of ggml's descending argsort (libstdc++'s std::sort, argsort_cases.go) on rows full
// of ties, for every k, and on random rows.
func testTopK(e *env) {
	for _, c := range argsortCases {
		m := len(c.vals)
		x := make([]float32, m)
		for i, v := range c.vals {
			x[i] = float32(v) / 4
		}
		for _, k := range []int{1, min(8, m), m} {
			g := e.graph()
			got := g.run(g.b.TopK(g.inputF32("x", x, 1, m), k))[0]
			want := make([]float64, k)
			for i := range want {
				want[i] = float64(c.order[i])
			}
			expect(e.t, fmt.Sprintf("top %d of %d values with ties", k, m), got, want, exact)
		}
	}
	const n, m, k = 5, 64, 6
	x := e.normal(n*m, 1)
	g := e.graph()
	got := g.run(g.b.TopK(g.inputF32("x", x, n, m), k))[0]
	var want []float64
	for r := 0; r < n; r++ {
		row := x[r*m : (r+1)*m]
		used := make([]bool, m)
		for j := 0; j < k; j++ {
			best := -1
			for i, v := range row {
				if !used[i] && (best < 0 || v > row[best]) {
					best = i
				}
			}
			used[best] = true
			want = append(want, float64(best))
		}
	}
	expect(e.t, "top 6 of random rows", got, want, exact)
}

func testPick(e *env) {
	const n, m, k = 4, 9, 3
	x := e.normal(n*m, 1)
	ids := []int32{8, 0, 3, 1, 1, 2, 7, 6, 5, 4, 0, 8}
	g := e.graph()
	got := g.run(g.b.Pick(g.inputF32("x", x, n, m), g.inputI32("ids", ids, n, k)))[0]
	want := make([]float64, n*k)
	for i, c := range ids {
		want[i] = float64(x[i/k*m+int(c)])
	}
	expect(e.t, "pick", got, want, exact)
}

func testDivSum(e *env) {
	for _, s := range [][2]int{{3, 8}, {1, 4}, {5, 33}} {
		x := e.uniform(s[0]*s[1], 0, 1)
		if s[0] == 3 {
			for i := 0; i < s[1]; i++ { // a row whose sum is under the least divisor
				x[i] = 1e-6
			}
		}
		const least = 6.103515625e-5
		g := e.graph()
		got := g.run(g.b.DivSum(g.inputF32("x", x, s[0], s[1]), least))[0]
		want := make([]float64, len(x))
		for r := 0; r < s[0]; r++ {
			sum := 0.0
			for _, v := range x[r*s[1] : (r+1)*s[1]] {
				sum += float64(v)
			}
			for i := r * s[1]; i < (r+1)*s[1]; i++ {
				want[i] = float64(x[i]) / math.Max(sum, least)
			}
		}
		expect(e.t, fmt.Sprintf("div_sum %v", s), got, want, relTol(want, elemRel, 0))
	}
}

// moeShapes are (experts, out, in, rows, slots).
var moeShapes = [][5]int{{4, 33, 256, 1, 2}, {6, 16, 512, 9, 3}, {3, 40, 256, 5, 3}}

// testMatMulID multiplies by chosen experts with both input forms (one row per token, one per slot), repeated
// experts, experts nobody chose, and the form without ids (a matrix per slot), for every weight type.
func testMatMulID(e *env) {
	for _, typ := range e.be.Caps().WeightTypes {
		shapes := moeShapes
		if testing.Short() {
			shapes = shapes[:1]
		}
		for _, s := range shapes {
			experts, out, in, n, k := s[0], s[1], s[2], s[3], s[4]
			if in%typ.BlockElems() != 0 {
				continue
			}
			rb, _ := typ.RowBytes(in)
			data := e.quantData(typ, experts*out, in)
			ids := make([]int32, n*k)
			for i := range ids {
				ids[i] = int32(e.rng.IntN(experts - 1)) // the last expert is never chosen
			}
			for _, perSlot := range []bool{false, true} {
				rows := n
				if perSlot {
					rows = n * k
				}
				x := e.normal(rows*in, 1)
				g := e.graph()
				w := g.b.Weight(e.weight("w", typ, []int{experts, out, in}, data))
				var xt accel.Tensor
				if perSlot {
					xt = g.inputF32("x", x, n, k, in)
				} else {
					xt = g.inputF32("x", x, n, in)
				}
				got := g.run(g.b.MatMulID(w, xt, g.inputI32("ids", ids, n, k)))[0]
				want, scale := make([]float64, 0, n*k*out), make([]float64, 0, n*k*out)
				for p, ex := range ids {
					r := p / k
					if perSlot {
						r = p
					}
					wv, sc := e.refMatMul(typ, data[int(ex)*out*rb:(int(ex)+1)*out*rb], out, in, x[r*in:(r+1)*in])
					want, scale = append(want, wv...), append(scale, sc...)
				}
				expect(e.t, fmt.Sprintf("mat_mul_id %s %v per-slot %v", typ, s, perSlot), got, want, scaleTol(scale, matRel))
			}
			// Without ids: slot j of every row uses matrix j.
			x := e.normal(n*experts*in, 1)
			g := e.graph()
			w := g.b.Weight(e.weight("w", typ, []int{experts, out, in}, data))
			got := g.run(g.b.MatMulID(w, g.inputF32("x", x, n, experts, in), accel.Tensor{}))[0]
			var want, scale []float64
			for p := 0; p < n*experts; p++ {
				ex := p % experts
				wv, sc := e.refMatMul(typ, data[ex*out*rb:(ex+1)*out*rb], out, in, x[p*in:(p+1)*in])
				want, scale = append(want, wv...), append(scale, sc...)
			}
			expect(e.t, fmt.Sprintf("mat_mul_id %s %v per head", typ, s), got, want, scaleTol(scale, matRel))
		}
	}
}

func testAddID(e *env) {
	const n, k, d, experts = 3, 2, 37, 5
	x, bias := e.normal(n*k*d, 1), e.normal(experts*d, 1)
	ids := []int32{4, 0, 2, 2, 1, 3}
	g := e.graph()
	got := g.run(g.b.AddID(g.inputF32("x", x, n, k, d), g.b.Weight(e.f32Weight("b", []int{experts, d}, bias)),
		g.inputI32("ids", ids, n, k)))[0]
	want := make([]float64, len(x))
	for i := range want {
		want[i] = float64(x[i]) + float64(bias[int(ids[i/d])*d+i%d])
	}
	expect(e.t, "add_id", got, want, relTol(want, elemRel, elemAbs))
}

func testSwiGLUOAI(e *env) {
	const alpha, limit = 1.702, 7
	for _, n := range []int{1, 37, 512} {
		gate, up := e.uniform(n, -12, 12), e.uniform(n, -10, 10)
		g := e.graph()
		got := g.run(g.b.SwiGLUOAI(g.inputF32("g", gate, n), g.inputF32("u", up, n), alpha, limit))[0]
		want := make([]float64, n)
		for i := range want {
			x := math.Min(float64(gate[i]), limit)
			y := math.Max(math.Min(float64(up[i]), limit), -limit)
			want[i] = x / (1 + math.Exp(-float64(float32(alpha))*x)) * (y + 1)
		}
		expect(e.t, fmt.Sprintf("swiglu_oai %d", n), got, want, relTol(want, elemRel, elemAbs))
	}
}

func testWeightedSum(e *env) {
	for _, s := range [][3]int{{1, 8, 40}, {5, 1, 16}, {3, 4, 33}} {
		n, k, d := s[0], s[1], s[2]
		x, w := e.normal(n*k*d, 1), e.uniform(n*k, 0, 1)
		g := e.graph()
		got := g.run(g.b.WeightedSum(g.inputF32("x", x, n, k, d), g.inputF32("w", w, n, k)))[0]
		want, tol := make([]float64, n*d), make([]float64, n*d)
		for i := range want {
			r, c := i/d, i%d
			for j := 0; j < k; j++ {
				p := float64(x[(r*k+j)*d+c]) * float64(w[r*k+j])
				want[i] += p
				tol[i] += float64(k+1) * 0x1p-24 * math.Abs(p)
			}
			tol[i] += 1e-30
		}
		expect(e.t, fmt.Sprintf("weighted_sum %v", s), got, want, func(i int) float64 { return tol[i] })
	}
}

func testConcat(e *env) {
	a, b := e.normal(2*3*5, 1), e.normal(2*3*4, 1)
	g := e.graph()
	got := g.run(g.b.Concat(g.inputF32("a", a, 2, 3, 5), g.inputF32("b", b, 2, 3, 4)))[0]
	var want []float64
	for r := 0; r < 6; r++ {
		want = append(want, widen(a[r*5:(r+1)*5])...)
		want = append(want, widen(b[r*4:(r+1)*4])...)
	}
	expect(e.t, "concat", got, want, exact)
}
