//go:build amd64 && !noasm

package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAMD64Variants runs every amd64 kernel of a type, not only the one DotFunc picks on this CPU, against
// the reference, exactly as TestFastDotExact does (random bytes, power-of-two scales).
func TestAMD64Variants(t *testing.T) {
	variants := []struct {
		w    Type
		name string
		f    DotFn
		ok   bool
	}{
		{Q4_0, "avx2", dotQ4_0Fast, hasAVX2},
		{Q4_0, "avx512", dotQ4_0Fast512, hasAVX512},
		{Q8_0, "avx2", dotQ8_0Fast, hasAVX2},
		{Q8_0, "avx512", dotQ8_0Fast512, hasAVX512},
	}
	r := rand.New(rand.NewPCG(61, 62))
	random := func(int) byte { return byte(r.Uint32()) }
	for _, v := range variants {
		t.Run(fmt.Sprintf("%s/%s", v.w, v.name), func(t *testing.T) {
			if !v.ok {
				t.Skip("not on this CPU")
			}
			for _, nb := range []int{1, 2, 3, 17, 64} {
				for trial := 0; trial < 10; trial++ {
					wb, ab := randBlocks(r, v.w, nb, random), randBlocks(r, Q8_0, nb, random)
					got, want := v.f(nb*QK, unaligned(wb, trial), ab), RefDotFunc(v.w)(nb*QK, wb, ab)
					if math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("nb=%d: %v, reference %v", nb, got, want)
					}
				}
			}
		})
	}
}
