//go:build amd64 && !noasm

package quant

// Batched kernels for CPUs with AVX2, FMA and F16C but without AVX-512 VNNI (most desktop Intel CPUs, and
// FORMA_CPU=avx2): the stored layouts of gemm_stored.go (Q4_0x16, and Q8_0x16S: Q8_0 in the vec_dot order,
// quants signed), gemm_stored_k4.go (Q4_Kx16, quants in Q8_K's order), gemm_k6.go (Q6_Kx16,
// gemm_avx2_k6_amd64.go), gemm_stored_mx.go (MXFP4x16) and, for decoding, gemm_stored_iq4.go (IQ4_XSx16),
// read 8 rows per 256-bit register with VPMADDUBSW/VPMADDWD in place of VPDPBUSD (see gemm_avx2_amd64.s,
// gemm_avx2_q8_amd64.s, gemm_avx2_k4_amd64.s, gemm_avx2_k6_amd64.s, gemm_avx2_mx_amd64.s and
// gemm_avx2_iq4_amd64.s). Mul packs into the same layouts (with the portable packers) for enough columns, and
// multiplies the original rows one at a time for fewer.

func init() {
	if !hasAVX2 || hasVNNI {
		return
	}
	typeTraits[Q4_0].gemm[OrderRepacked] = &Gemm{w: Q4_0, o: OrderRepacked, actBlock: q8sBlock, packBlock: q4xBlock,
		quantize: quantizeQ8S, fromRef: q8sFromQ8_0, pack: packQ4_0x16, kernel: mulQ4x16AVX2,
		vec: vecRows(dotQ4_0Q8SAVX2), minCols: 4, storedBlock: q4xBlock, store: packQ4_0x16, storedMul: mulQ4x16AVX2}
	typeTraits[Q4_K].gemm[OrderRepacked] = &Gemm{w: Q4_K, o: OrderRepacked, actBlock: q8kwBlock, packBlock: k4xBlock,
		quantize: quantizeQ8KW, fromRef: q8kwFromQ8_K, pack: packQ4_Kx16, kernel: mulQ4Kx16AVX2,
		vec: gemvQ4_K, minCols: 8, storedBlock: k4xBlock, store: packQ4_Kx16, storedMul: mulQ4Kx16AVX2}
	typeTraits[Q8_0].gemm[OrderVecDot] = &Gemm{w: Q8_0, o: OrderVecDot, actBlock: q8sBlock, packBlock: q8xBlock,
		act127: true, quantize: quantizeQ8S, fromRef: q8sFromQ8_0, pack: packQ8_0x16S, kernel: mulQ8x16AVX2,
		vec: vecRows(dotQ8_0Q8SAVX2), minCols: 16, storedBlock: q8xBlock, store: packQ8_0x16S, storedMul: mulQ8x16AVX2}
	typeTraits[MXFP4].gemm[OrderVecDot] = &Gemm{w: MXFP4, o: OrderVecDot, actBlock: q8sBlock, packBlock: mxxBlock,
		quantize: quantizeQ8S, fromRef: q8sFromQ8_0, pack: packMXFP4x16, kernel: mulMXx16AVX2, minCols: 1,
		storedBlock: mxxBlock, store: packMXFP4x16, storedMul: mulMXx16AVX2}
	gemmQ6_KAVX2()
	gemmIQ4_XS()
	storedIQ4_XSAVX2(typeTraits[IQ4_XS].gemm[OrderVecDot])
	for _, w := range []Type{Q4_0, Q4_K, Q8_0, Q6_K, MXFP4} {
		for _, g := range typeTraits[w].gemm {
			if g != nil {
				g.tileBytes = avx2TileBytes
			}
		}
	}
}

// mulMXx16AVX2 multiplies the first rows rows of one MXFP4x16 group (nb blocks at p) with cols Q8_0S rows: 4
// columns and 8 rows per kernel call, then the last columns one at a time with all 16 rows. MulPacked (or Mul)
// has checked the bounds.
func mulMXx16AVX2(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	var tmp [4 * GemmRows]float32
	c := 0
	for ; c+4 <= cols; c += 4 {
		for h := 0; h < 2 && 8*h < rows; h++ {
			gemm4MXxAVX2(nb, &p[0], &a[c*aStride], aStride, h, &tmp[8*h])
		}
		for j := 0; j < 4; j++ {
			copy(out[(c+j)*outStride:(c+j)*outStride+rows], tmp[GemmRows*j:GemmRows*j+rows])
		}
	}
	for ; c < cols; c++ {
		gemv16MXxAVX2(nb, &p[0], &a[c*aStride], &tmp[0])
		copy(out[c*outStride:c*outStride+rows], tmp[:rows])
	}
}

// gemm4MXxAVX2 computes the 8 rows of half half (0 or 1) of one stored MXFP4x16 group against 4 Q8_0S columns
// aStride bytes apart: out[16c+r] (gemm_avx2_mx_amd64.s).
//
//go:noescape
func gemm4MXxAVX2(nb int, p, a *byte, aStride, half int, out *float32)

// gemv16MXxAVX2 computes the 16 rows of one stored MXFP4x16 group against one Q8_0S column: out[r].
//
//go:noescape
func gemv16MXxAVX2(nb int, p, a *byte, out *float32)

// avx2TileBytes is the activation tile of the AVX2 Gemms' MulPacked: a quarter of a typical 1 MiB L2 (a
// prefill's 512 Q8_K rows of 1024 elements, 600 KB, passed once per group of rows from the L3, made the
// IQ4_XS kernels wait on memory).
const avx2TileBytes = 256 << 10

// dotQ8_0Q8SAVX2 is DotQ8_0Q8_0 of one Q8_0 row with one Q8_0S row.
//
//go:noescape
func dotQ8_0Q8SAVX2(nb int, w, a *byte) float32

// mulQ8x16AVX2 multiplies the first rows rows of one Q8_0x16S group (nb blocks at p) with cols Q8_0S rows:
// the column pairs 8 rows a pass, then each column with rows left (an odd last one, or the rows of a partial
// half) with all 16 rows at once through a buffer. MulPacked (or Mul) has checked the bounds.
func mulQ8x16AVX2(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	done := 0 // the rows the column pairs have written
	if cols >= 2 {
		for ; done+8 <= rows; done += 8 {
			gemm2Q8xAVX2(nb, &p[0], &a[0], aStride, cols/2, done/8, &out[done], outStride)
		}
	}
	var tmp [GemmRows]float32
	for c := 0; c < cols; c++ {
		lo := done
		if c >= cols&^1 { // the odd last column: no pair wrote it
			lo = 0
		}
		if lo < rows {
			gemv16Q8xAVX2(nb, &p[0], &a[c*aStride], &tmp[0])
			copy(out[c*outStride+lo:c*outStride+rows], tmp[lo:rows])
		}
	}
}

// gemm2Q8xAVX2 computes the 8 rows of half half of one stored Q8_0x16S group against 2·pairs Q8_0S columns
// aStride bytes apart: out[c*outStride+r], r < 8.
//
//go:noescape
func gemm2Q8xAVX2(nb int, p, a *byte, aStride, pairs, half int, out *float32, outStride int)

// gemv16Q8xAVX2 computes the 16 rows of one stored Q8_0x16S group against one Q8_0S column: out[r].
//
//go:noescape
func gemv16Q8xAVX2(nb int, p, a *byte, out *float32)

// mulQ4x16AVX2 multiplies the first rows rows of one Q4_0x16 group (nb blocks at p) with cols Q8_0S rows:
// 4 columns and 8 rows per kernel call, then the last columns one at a time with all 16 rows. MulPacked (or
// Mul) has checked the bounds.
func mulQ4x16AVX2(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	var tmp [4 * GemmRows]float32
	c := 0
	for ; c+4 <= cols; c += 4 {
		for h := 0; h < 2 && 8*h < rows; h++ {
			gemm4Q4xAVX2(nb, &p[0], &a[c*aStride], aStride, 16*h, &tmp[8*h])
		}
		for j := 0; j < 4; j++ {
			copy(out[(c+j)*outStride:(c+j)*outStride+rows], tmp[GemmRows*j:GemmRows*j+rows])
		}
	}
	for ; c < cols; c++ {
		gemv16Q4xAVX2(nb, &p[0], &a[c*aStride], &tmp[0])
		copy(out[c*outStride:c*outStride+rows], tmp[:rows])
	}
}

// dotQ4_0Q8SAVX2 is DotQ4_0Q8_0Interleaved of one Q4_0 row with one Q8_0S row.
//
//go:noescape
func dotQ4_0Q8SAVX2(nb int, w, a *byte) float32

// gemm4Q4xAVX2 computes the 8 rows of half half/16 of one stored Q4_0x16 group against 4 Q8_0S columns
// aStride bytes apart: out[16c+r].
//
//go:noescape
func gemm4Q4xAVX2(nb int, p, a *byte, aStride, half int, out *float32)

// gemv16Q4xAVX2 computes the 16 rows of one stored Q4_0x16 group against one Q8_0S column: out[r].
//
//go:noescape
func gemv16Q4xAVX2(nb int, p, a *byte, out *float32)

// mulQ4Kx16AVX2 multiplies the first rows rows of one Q4_Kx16 group (nb super-blocks at p, quants in Q8_K's
// order) with cols Q8_KW rows: 4 columns and 8 rows per kernel call, then the last columns one at a time, 16
// rows a call (a group's rows past rows are padding: their lanes are computed and dropped).
// MulPacked (or Mul) has checked the bounds.
func mulQ4Kx16AVX2(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	var tmp [4 * GemmRows]float32
	var work [4 * 4 * 8]float32
	c := 0
	for ; c+4 <= cols; c += 4 {
		for h := 0; h < 2 && 8*h < rows; h++ {
			gemm4Q4KxAVX2(nb, &p[0], &a[c*aStride], aStride, 16*h, &tmp[8*h], &work[0])
		}
		for j := 0; j < 4; j++ {
			copy(out[(c+j)*outStride:(c+j)*outStride+rows], tmp[GemmRows*j:GemmRows*j+rows])
		}
	}
	for ; c < cols; c++ {
		gemv16Q4KxAVX2(nb, &p[0], &a[c*aStride], &tmp[0], &work[0])
		copy(out[c*outStride:c*outStride+rows], tmp[:rows])
	}
}

// gemm4Q4KxAVX2 computes the 8 rows of half half/16 of one stored Q4_Kx16 group against 4 Q8_KW columns
// aStride bytes apart: out[16c+r]; work holds 128 floats of accumulators.
//
//go:noescape
func gemm4Q4KxAVX2(nb int, p, a *byte, aStride, half int, out, work *float32)

// gemv16Q4KxAVX2 computes the 16 rows of one stored Q4_Kx16 group against one Q8_KW column (out[r]) in one
// pass; work holds 32 floats.
//
//go:noescape
func gemv16Q4KxAVX2(nb int, p, a *byte, out, work *float32)

// storedIQ4_XSAVX2 gives the IQ4_XS Gemm the stored layout for decoding (gemm_stored_iq4.go) with the AVX2
// kernel: the row dot had run ~10 GB/s of weights a core. Its VPSIGNB takes activation quants in −127…127
// (act127), all that Q8_K's quantization makes.
func storedIQ4_XSAVX2(g *Gemm) {
	g.storedBlock, g.store, g.storedMul, g.storedCols = ix4xBlock, packIQ4_XSx16, mulIQ4x16AVX2, ix4xMaxCols
	g.act127 = true
}

// mulIQ4x16AVX2 multiplies the first rows rows of one stored IQ4_XSx16 group (nb super-blocks at p) with cols
// Q8_KL rows, one column and 8 rows a kernel call. MulPacked has checked the bounds.
func mulIQ4x16AVX2(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	var tmp [GemmRows]float32
	for c := 0; c < cols; c++ {
		for h := 0; h < 2 && 8*h < rows; h++ {
			gemv8IQ4xAVX2(nb, &p[0], &a[c*aStride], h, &tmp[8*h])
		}
		copy(out[c*outStride:c*outStride+rows], tmp[:rows])
	}
}

// gemv8IQ4xAVX2 computes rows 8·half … 8·half+7 of one stored IQ4_XSx16 group against one Q8_KL column:
// out[0…7] (gemm_avx2_iq4_amd64.s).
//
//go:noescape
func gemv8IQ4xAVX2(nb int, p, a *byte, half int, out *float32)
