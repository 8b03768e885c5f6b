package backendtest

import (
	"fmt"
	"math"
)

// testTempScale checks the attention temperature by position on rows of several dimensions, at positions
// either side of the floor's steps (where ⌊pos/floor⌋ changes) and far out.
func testTempScale(e *env) {
	const floor, heads, d = 16, 3, 5
	pos := []int32{0, 1, 14, 15, 16, 17, 31, 32, 47, 48, 255, 256, 100000}
	n := len(pos)
	x := e.normal(n*heads*d, 1)
	for _, scale := range []float32{0.1, -0.25} {
		g := e.graph()
		got := g.run(g.b.TempScale(g.inputF32("x", x, n, heads, d), g.inputI32("pos", pos, n), scale, floor))[0]
		want := make([]float64, len(x))
		for i := range want {
			p := float64(pos[i/(heads*d)])
			want[i] = float64(x[i]) * (1 + float64(scale)*math.Log(math.Floor(p/floor)+1))
		}
		expect(e.t, fmt.Sprintf("temperature scale %g, floor %d", scale, floor), got, want,
			func(i int) float64 { return 2e-7*math.Abs(want[i]) + 1e-9 })
	}
}
