//go:build amd64 && !noasm

package quant

// The Q5_K Gemm for CPUs with AVX2, FMA and F16C but without AVX-512 VNNI (FORMA_CPU=avx2): Mul packs each
// group of rows into the Q5_Kx16 layout (gemm_k5.go) and multiplies it 8 rows per 256-bit register with
// VPMADDUBSW/VPMADDWD in place of VPDPBUSD/VPDPWSSD (gemm_avx2_k5_amd64.s); for fewer than minCols columns
// it multiplies the original rows one at a time with the AVX2 dot product (below about 24 columns packing
// costs more than it saves, BenchmarkGemmSmall). It has no stored layout: its
// kernels run one lane of DotQ5_KQ8_K at a time through the super-blocks, a strided walk that suits a packed
// group in the cache but not a decode pass over a stored matrix in memory, which the row dot streams.

func init() {
	if !hasAVX2 || hasVNNI {
		return
	}
	typeTraits[Q5_K].gemm[OrderVecDot] = &Gemm{w: Q5_K, o: OrderVecDot, actBlock: 292, packBlock: k5xBlock,
		quantize: quantizeQ8K, fromRef: q8kFromQ8_K, pack: packQ5_Kx16, kernel: mulQ5Kx16AVX2, vec: vecRows(dotQ5_KQ8_KAVX2),
		minCols: 24}
}

// mulQ5Kx16AVX2 multiplies the first rows rows of one Q5_Kx16 group (nb super-blocks at p) with cols Q8_K
// rows: per half of 8 rows, four columns at a time (the last ones one at a time, as four copies of the
// column), each lane m of DotQ5_KQ8_K and then the minimum terms through the super-blocks; the eight
// accumulators added as hsum_float_8, then the minimum terms'. Mul has checked every bound.
func mulQ5Kx16AVX2(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	var acc [9][4 * GemmRows]float32
	for c0 := 0; c0 < cols; {
		nc, stride := 4, aStride
		if cols-c0 < 4 {
			nc, stride = 1, 0
		}
		for h := 0; h < 2 && 8*h < rows; h++ {
			for m := 0; m < 8; m++ {
				gemm4Q5KxAVX2(nb, &p[k5xQ(m, 0)], &p[k5xSDAt(0)], &a[c0*aStride], stride, m, 8*h, &acc[m][8*h])
			}
			gemm4Q5KxMinsAVX2(nb, &p[k5xSDAt(0)], &a[c0*aStride], stride, 8*h, &acc[8][8*h])
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

// gemm4Q5KxAVX2 runs lane m of DotQ5_KQ8_K for the 8 rows h8…h8+7 of one Q5_Kx16 group (the lane's dwords
// from q = k5xQ(m, 0), the scales and d from sd = k5xSDAt(0)) against 4 Q8_K columns aStride bytes apart;
// acc gets 8 float accumulators per column, 16 floats apart.
//
//go:noescape
func gemm4Q5KxAVX2(nb int, q, sd, a *byte, aStride, m, h8 int, acc *float32)

// gemm4Q5KxMinsAVX2 runs DotQ5_KQ8_K's minimum terms for the 8 rows h8…h8+7 of one Q5_Kx16 group (the
// minimums and dmin from sd = k5xSDAt(0)) against 4 Q8_K columns aStride bytes apart; acc gets 8 float
// accumulators per column, 16 floats apart.
//
//go:noescape
func gemm4Q5KxMinsAVX2(nb int, sd, a *byte, aStride, h8 int, acc *float32)
