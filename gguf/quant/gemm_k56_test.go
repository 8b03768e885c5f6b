package quant

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestGemmKShapes checks every Q5_K and Q6_K Gemm (the CPU's, through Mul with its packing and vector paths
// and through its stored layout where it has one, and the stored layout's scalar reference) against the vec_dot reference bit
// for bit, for every column count from 1 to 13 (the 4-column kernels, the 1-column ones and their mixtures),
// row counts around a group of GemmRows and several super-block counts, on random bytes (every quant and
// scale value).
func TestGemmKShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	for _, wt := range []Type{Q5_K, Q6_K} {
		var gs []*Gemm
		for _, g := range storedGemms() {
			if g.Weight() == wt {
				gs = append(gs, g)
			}
		}
		if g := GemmFor(wt, OrderVecDot); g != nil && g.storedBlock == 0 {
			gs = append(gs, g)
		}
		if len(gs) == 0 {
			t.Fatalf("no %s Gemm listed, not even the scalar reference", wt)
		}
		for i, g := range gs {
			t.Run(fmt.Sprintf("%s/%d", wt, i), func(t *testing.T) {
				for _, nb := range []int{1, 3, 8} {
					for _, rows := range []int{1, 15, 16, 17, 35} {
						for cols := 1; cols <= 13; cols++ {
							n := nb * QKK
							w, a := randScaled(r, wt, nb*rows), randScaled(r, Q8_K, nb*cols)
							what := fmt.Sprintf("nb=%d rows=%d cols=%d", nb, rows, cols)
							if g.storedBlock != 0 {
								checkStored(t, g, n, rows, cols, w, a, what)
							}
							if g.kernel != nil {
								checkGemm(t, g, n, rows, cols, w, a, what)
							}
						}
					}
				}
			})
		}
	}
}
