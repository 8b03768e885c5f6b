//go:build amd64 && !noasm

package quant

// gemmQ6_KAVX2 registers the vec_dot-order Q6_K Gemm on the Q6_Kx16 stored layout (gemm_k6.go) for CPUs with
// AVX2 but without AVX-512 VNNI (called from gemm_avx2_amd64.go's init): the kernels of
// gemm_avx2_k6_amd64.s, 8 rows a 256-bit register. Mul packs into the same layout for enough columns and runs
// the AVX2 dot product row by row for fewer.
func gemmQ6_KAVX2() {
	typeTraits[Q6_K].gemm[OrderVecDot] = &Gemm{w: Q6_K, o: OrderVecDot, actBlock: 292, packBlock: k6xBlock,
		quantize: quantizeQ8K, fromRef: q8kFromQ8_K, pack: packQ6_Kx16A, kernel: mulQ6_Kx16AVX2, vec: vecRows(dotQ6_KQ8_KAVX2),
		minCols: 8, storedBlock: k6xBlock, store: packQ6_Kx16A, storedMul: mulQ6_Kx16AVX2}
}

// mulQ6_Kx16AVX2 multiplies the first rows rows of one stored Q6_Kx16 group (nb super-blocks, p) with cols
// Q8_K rows: four columns at a time (lane m of DotQ6_KQ8_K for 8 rows a call), then one (all eight lanes of
// the 16 rows in one pass), and the eight accumulators added as hsum_float_8. MulPacked (or Mul) has
// checked every bound.
func mulQ6_Kx16AVX2(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	var acc [8][4 * GemmRows]float32
	for c0 := 0; c0 < cols; {
		nc := 4
		if cols-c0 < 4 {
			nc = 1
			gemv1Q6KxAVX2(nb, &p[0], &a[c0*aStride], &acc)
		} else {
			for m := range acc {
				for h := 0; h < 2 && 8*h < rows; h++ {
					gemm4Q6KxAVX2(nb, &p[k6xQ(m, 0)+32*h], &p[k6xSDAt(0)+16*h], &a[c0*aStride], aStride, m, &acc[m][8*h])
				}
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

// Kernels (gemm_avx2_k6_amd64.s) on one stored Q6_Kx16 group of nb super-blocks.

// gemm4Q6KxAVX2 runs lane m of DotQ6_KQ8_K for the 8 rows of one half of the group (the lane's dwords from q
// = k6xQ(m, 0) + 32·half, the scales and d from sd = k6xSDAt(0) + 16·half) against 4 Q8_K columns aStride
// bytes apart; acc gets the 8 float accumulators of column c at acc[16c:].
//
//go:noescape
func gemm4Q6KxAVX2(nb int, q, sd, a *byte, aStride, m int, acc *float32)

// gemv1Q6KxAVX2 runs all eight lanes for the 16 rows of the group at p against one Q8_K column; acc[m] gets
// lane m's 16 float accumulators.
//
//go:noescape
func gemv1Q6KxAVX2(nb int, p, a *byte, acc *[8][4 * GemmRows]float32)
