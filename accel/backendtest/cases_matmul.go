package backendtest

import (
	"fmt"
	"math"

	"github.com/forma-llm/forma/accel"
)

// matRel is the MatMul tolerance relative to Σ|W||A|: block sums are exact integers, the float32 accumulation
// over blocks and the scale products add a few ulp each.
const matRel = 1e-5

// matShapes are (n, in, out) triples; in is a multiple of 256 so every type fits, plus smaller rows for the
// 32-element block types.
func matShapes(typ accel.DType, short bool) [][3]int {
	s := [][3]int{{1, 256, 7}, {5, 512, 33}, {17, 256, 64}}
	if typ.BlockElems() <= 32 {
		s = append(s, [3]int{3, 96, 5}, [3]int{2, 32, 1})
	}
	if short {
		s = s[:2]
	}
	return s
}

func testMatMul(e *env) {
	for _, typ := range e.be.Caps().WeightTypes {
		for _, s := range matShapes(typ, e.short) {
			n, in, out := s[0], s[1], s[2]
			data := e.quantData(typ, out, in)
			x := e.normal(n*in, 1)
			x[0] = 0 // zero blocks and a large outlier exercise the activation scales
			for i := 0; i < min(32, in); i++ {
				x[i] = 0
			}
			x[len(x)-1] = 40
			g := e.graph()
			got := g.run(g.b.MatMul(g.b.Weight(e.weight("w", typ, []int{out, in}, data)), g.inputF32("x", x, n, in)))[0]
			want, scale := e.refMatMul(typ, data, out, in, x)
			expect(e.t, fmt.Sprintf("%s [%d %d]·[%d %d]ᵀ", typ, n, in, out, in), got, want, scaleTol(scale, matRel))
		}
	}
}

func testGetRows(e *env) {
	for _, typ := range e.be.Caps().WeightTypes {
		const rows = 11
		cols := max(64, typ.BlockElems())
		data := e.quantData(typ, rows, cols)
		table := e.dequant(typ, data, rows*cols)
		for _, ids := range [][]int32{{3}, {0, 10, 3, 3, 7}} {
			g := e.graph()
			got := g.run(g.b.GetRows(g.b.Weight(e.weight("table", typ, []int{rows, cols}, data)), g.inputI32("ids", ids)))[0]
			var want []float64
			for _, id := range ids {
				want = append(want, widen(table[int(id)*cols:(int(id)+1)*cols])...)
			}
			big := 0.0
			for _, v := range want {
				big = math.Max(big, math.Abs(v))
			}
			expect(e.t, fmt.Sprintf("get_rows %v of %s", ids, typ), got, want, func(int) float64 { return 1e-6 * big })
		}
	}
	// Rows of an intermediate (as a pass picks the rows whose logits it computes), in any order, repeated.
	x := e.normal(5*7, 1)
	ids := []int32{4, 0, 4, 2}
	g := e.graph()
	got := g.run(g.b.GetRows(g.b.Scale(g.inputF32("x", x, 5, 7), 2), g.inputI32("ids", ids)))[0]
	var want []float64
	for _, id := range ids {
		for _, v := range x[int(id)*7 : (int(id)+1)*7] {
			want = append(want, 2*float64(v))
		}
	}
	expect(e.t, fmt.Sprintf("get_rows %v of an intermediate", ids), got, want, exact)
}
