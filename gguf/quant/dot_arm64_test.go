//go:build arm64 && !noasm

package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNEONBothPaths runs the variant of each integer kernel that DotFunc does not use on this CPU (the
// widening-multiply one where dotprod exists) against the reference, exactly as TestFastDotExact does.
func TestNEONBothPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	random := func(int) byte { return byte(r.Uint32()) }
	for _, c := range []struct {
		w Type
		k blockKernel
	}{{Q4_0, q40Other}, {Q8_0, q80Other}} {
		if c.k == nil {
			t.Logf("%s: no dotprod, one variant only", c.w)
			continue
		}
		for _, nb := range []int{1, 2, 3, 17, 64} {
			for trial := 0; trial < 10; trial++ {
				wb, ab := randBlocks(r, c.w, nb, random), randBlocks(r, Q8_0, nb, random)
				got, want := c.k(nb, &wb[0], &ab[0]), RefDotFunc(c.w)(nb*QK, wb, ab)
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("%s nb=%d: other kernel %v, reference %v", c.w, nb, got, want)
				}
			}
		}
	}
}
