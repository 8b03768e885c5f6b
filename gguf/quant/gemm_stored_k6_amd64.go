//go:build amd64 && !noasm

package quant

// gemmQ6_K registers the vec_dot-order Q6_K Gemm with its stored layout (called from gemm_amd64.go's init):
// Mul packs each group of rows into the same layout, or for fewer than minCols columns runs the AVX2 dot
// product row by row.
func gemmQ6_K() {
	typeTraits[Q6_K].gemm[OrderVecDot] = &Gemm{w: Q6_K, o: OrderVecDot, actBlock: 292, packBlock: k6xBlock,
		quantize: quantizeQ8K, fromRef: q8kFromQ8_K, pack: packQ6_Kx16, kernel: mulQ6_Kx16, vec: vecRows(dotQ6_KQ8_KAVX2),
		minCols: 8, storedBlock: k6xBlock, store: packQ6_Kx16, storedMul: mulQ6_Kx16}
}

// mulQ6_Kx16 multiplies the first rows rows of one stored Q6_Kx16 group (nb super-blocks, p) with cols Q8_K
// rows: four columns at a time (each lane m of DotQ6_KQ8_K in turn through the super-blocks), then one (all
// eight lanes in one pass), and the eight accumulators added as hsum_float_8. MulPacked (or Mul) has checked
// every bound.
func mulQ6_Kx16(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	var acc [8][4 * GemmRows]float32
	for c0 := 0; c0 < cols; {
		nc := 4
		if cols-c0 < 4 {
			nc = 1
			if streamL2 { // a direct call: through a func value acc would escape to the heap
				gemv1Q6KxL2(nb, &p[0], &a[c0*aStride], &acc)
			} else {
				gemv1Q6Kx(nb, &p[0], &a[c0*aStride], &acc)
			}
		} else {
			for m := range acc {
				gemm4Q6Kx(nb, &p[k6xQ(m, 0)], &p[k6xSDAt(0)], &a[c0*aStride], aStride, m, &acc[m][0])
			}
		}
		for c := 0; c < nc; c++ {
			o := out[(c0+c)*outStride : (c0+c)*outStride+rows]
			for r := range o {
				i := c*GemmRows + r
				o[r] = laneSum8(acc[:], i)
			}
		}
		c0 += nc
	}
}

// laneSum8 is hsum_float_8 of output i's eight lane accumulators acc[0…7][i], as the Q5_K and Q6_K Gemm drivers
// add them: ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)).
func laneSum8(acc [][4 * GemmRows]float32, i int) float32 {
	r0, r1 := acc[0][i]+acc[4][i], acc[1][i]+acc[5][i]
	r2, r3 := acc[2][i]+acc[6][i], acc[3][i]+acc[7][i]
	return (r0 + r2) + (r1 + r3)
}

// Kernels (gemm_stored_k6_amd64.s) on one stored Q6_Kx16 group of nb super-blocks.

// gemm4Q6Kx runs lane m of DotQ6_KQ8_K for the 16 rows (the lane's dwords from q = k6xQ(m, 0), the scales
// and d from sd = k6xSDAt(0)) against 4 Q8_K columns aStride bytes apart; acc gets 16 float accumulators per
// column.
//
//go:noescape
func gemm4Q6Kx(nb int, q, sd, a *byte, aStride, m int, acc *float32)

// gemv1Q6Kx runs all eight lanes for the 16 rows of the group at p against one Q8_K column; acc[m] gets lane
// m's 16 float accumulators.
//
//go:noescape
func gemv1Q6Kx(nb int, p, a *byte, acc *[8][4 * GemmRows]float32)

// gemv1Q6KxL2 is gemv1Q6Kx prefetching into L2 (streamL2: Zen 4).
//
//go:noescape
func gemv1Q6KxL2(nb int, p, a *byte, acc *[8][4 * GemmRows]float32)
