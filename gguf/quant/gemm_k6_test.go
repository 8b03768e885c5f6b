package quant

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestGemmQ6_KShapes checks every Q6_K Gemm (the CPU's, through Mul with its packing and vector paths and
// through its stored layout, and the stored layout's scalar reference) against DotQ6_KQ8_K bit for bit, for
// every column count from 1 to 13 (the 4-column kernel, the 1-column one and their mixtures), row counts
// around a group of GemmRows and several super-block counts, on random bytes (every quant and scale value).
func TestGemmQ6_KShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	var gs []*Gemm
	for _, g := range storedGemms() {
		if g.Weight() == Q6_K {
			gs = append(gs, g)
		}
	}
	if len(gs) == 0 {
		t.Fatal("no Q6_K Gemm listed, not even the scalar reference")
	}
	for i, g := range gs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			for _, nb := range []int{1, 3, 8} {
				for _, rows := range []int{1, 15, 16, 17, 35} {
					for cols := 1; cols <= 13; cols++ {
						n := nb * QKK
						w, a := randScaled(r, Q6_K, nb*rows), randScaled(r, Q8_K, nb*cols)
						what := fmt.Sprintf("nb=%d rows=%d cols=%d", nb, rows, cols)
						checkStored(t, g, n, rows, cols, w, a, what)
						if g.kernel != nil {
							checkGemm(t, g, n, rows, cols, w, a, what)
						}
					}
				}
			}
		})
	}
}
