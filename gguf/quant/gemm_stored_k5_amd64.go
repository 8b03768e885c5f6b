//go:build amd64 && !noasm

package quant

// gemmQ5_K registers the vec_dot-order Q5_K Gemm with its stored layout (called from gemm_amd64.go's init):
// Mul packs each group of rows into the same layout, or for fewer than minCols columns runs the AVX2 dot
// product row by row (below about 24 columns packing costs more than it saves, BenchmarkGemmSmall).
func gemmQ5_K() {
	typeTraits[Q5_K].gemm[OrderVecDot] = &Gemm{w: Q5_K, o: OrderVecDot, actBlock: 292, packBlock: k5xBlock,
		quantize: quantizeQ8K, fromRef: q8kFromQ8_K, pack: packQ5_Kx16, kernel: mulQ5_Kx16, vec: vecRows(dotQ5_KQ8_KAVX2),
		minCols: 24, storedBlock: k5xBlock, store: packQ5_Kx16, storedMul: mulQ5_Kx16}
}

// mulQ5_Kx16 multiplies the first rows rows of one stored Q5_Kx16 group (nb super-blocks, p) with cols Q8_K
// rows: four columns at a time (each lane m of DotQ5_KQ8_K in turn through the super-blocks, then the
// minimum terms), then one (all eight lanes and the minimum terms in one pass); the eight accumulators added
// as hsum_float_8, then the minimum terms' one. MulPacked (or Mul) has checked every bound.
func mulQ5_Kx16(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	var acc [9][4 * GemmRows]float32
	for c0 := 0; c0 < cols; {
		nc := 4
		if cols-c0 < 4 {
			nc = 1
			if streamL2 { // a direct call: through a func value acc would escape to the heap
				gemv1Q5KxL2(nb, &p[0], &a[c0*aStride], &acc)
			} else {
				gemv1Q5Kx(nb, &p[0], &a[c0*aStride], &acc)
			}
		} else {
			for m := 0; m < 8; m++ {
				gemm4Q5Kx(nb, &p[k5xQ(m, 0)], &p[k5xSDAt(0)], &a[c0*aStride], aStride, m, &acc[m][0])
			}
			gemm4Q5KxMins(nb, &p[k5xSDAt(0)], &a[c0*aStride], aStride, &acc[8][0])
		}
		for c := 0; c < nc; c++ {
			o := out[(c0+c)*outStride : (c0+c)*outStride+rows]
			for r := range o {
				i := c*GemmRows + r
				o[r] = laneSum8(acc[:8], i) + acc[8][i]
			}
		}
		c0 += nc
	}
}

// Kernels (gemm_stored_k5_amd64.s) on one stored Q5_Kx16 group of nb super-blocks.

// gemm4Q5Kx runs lane m of DotQ5_KQ8_K for the 16 rows (the lane's dwords from q = k5xQ(m, 0), the scales
// and d from sd = k5xSDAt(0)) against 4 Q8_K columns aStride bytes apart; acc gets 16 float accumulators per
// column.
//
//go:noescape
func gemm4Q5Kx(nb int, q, sd, a *byte, aStride, m int, acc *float32)

// gemm4Q5KxMins runs DotQ5_KQ8_K's minimum terms for the 16 rows (the minimums and dmin from sd =
// k5xSDAt(0)) against 4 Q8_K columns aStride bytes apart; acc gets 16 float accumulators per column.
//
//go:noescape
func gemm4Q5KxMins(nb int, sd, a *byte, aStride int, acc *float32)

// gemv1Q5Kx runs all eight lanes and the minimum terms for the 16 rows of the group at p against one Q8_K
// column; acc[m] gets lane m's 16 float accumulators, acc[8] the minimum terms'.
//
//go:noescape
func gemv1Q5Kx(nb int, p, a *byte, acc *[9][4 * GemmRows]float32)

// gemv1Q5KxL2 is gemv1Q5Kx prefetching into L2 (streamL2: Zen 4).
//
//go:noescape
func gemv1Q5KxL2(nb int, p, a *byte, acc *[9][4 * GemmRows]float32)
