//go:build amd64 && !noasm

package quant

// storedQ4_0 gives the repacked-order Q4_0 Gemm its stored layout (called from gemm_amd64.go's init).
func storedQ4_0(g *Gemm) {
	g.storedBlock, g.store, g.storedMul = q4xBlock, packQ4_0x16, gemmCols(gemm8Q4x, gemv1Q4x, 8)
}

// storedQ8_0 gives the vec_dot-order Q8_0 Gemm its stored layout.
func storedQ8_0(g *Gemm) {
	g.storedBlock, g.store, g.storedMul = q8xBlock, packQ8_0x16, gemmCols(gemm2Q8x, gemm1Q8x, 2)
}

// Kernels (gemm_stored_amd64.s) on one stored Q4_0x16 group of nb blocks at p, against 8 or 1 Q8_0S
// activation rows; the rows selected by mask of out[c*outStride+r] are written.

//go:noescape
func gemm8Q4x(nb int, p, a *byte, aStride int, out *float32, outStride, mask int)

//go:noescape
func gemv1Q4x(nb int, p, a *byte, out *float32, mask int)

// The same on one stored Q8_0x16 group against 2 or 1 Q8_0G rows (gemm_amd64.s, beside the kernels on
// packed groups whose macros they share).

//go:noescape
func gemm2Q8x(nb int, p, a *byte, aStride int, out *float32, outStride, mask int)

//go:noescape
func gemm1Q8x(nb int, p, a *byte, out *float32, mask int)

// storedQ4_K gives the repacked-order Q4_K Gemm its stored layout where Q8_KW's quants are in the order its
// kernels read (q8kwPermute, AVX-512 VBMI).
func storedQ4_K(g *Gemm) {
	if !q8kwPermute {
		return
	}
	g.storedBlock, g.store, g.storedMul = k4xBlock, packQ4_Kx16, gemmCols(gemm4Q4Kx, gemv1Q4Kx, 4)
	k4xLane = func(dst, qs []byte) {
		_, _ = dst[31*4*GemmRows+3], qs[127] // the last dword written, the last byte read
		k4xQuants(&dst[0], &qs[0])
	}
}

// Kernels (gemm_stored_k4_amd64.s) on one stored Q4_Kx16 group of nb super-blocks at p, against 4 or 1 Q8_KW
// activation rows (quants permuted); the rows selected by mask of out[c*outStride+r] are written.

//go:noescape
func gemm4Q4Kx(nb int, p, a *byte, aStride int, out *float32, outStride, mask int)

//go:noescape
func gemv1Q4Kx(nb int, p, a *byte, out *float32, mask int)

// k4xQuants writes the 128 quant bytes of one Q4_K super-block at qs into the 32 slots of one lane of a stored
// super-block at dst, in the permuted order (VBMI).
//
//go:noescape
func k4xQuants(dst, qs *byte)

// storedIQ4_XS gives the vec_dot-order IQ4_XS Gemm its stored layout (gemm_stored_iq4.go) for products of up to
// ix4xMaxCols activation rows (decoding, parallel sequences, speculative passes): the one-column kernel
// streams the weights where the row dot (dotIQ4_XSQ8_KAVX2, ~10 GB/s a core) held decoding below the
// memory's rate.
func storedIQ4_XS(g *Gemm) {
	g.storedBlock, g.store, g.storedMul, g.storedCols = ix4xBlock, packIQ4_XSx16, gemmCols(nil, gemv1IQ4x, 1), ix4xMaxCols
}

// gemv1IQ4x (gemm_stored_iq4_amd64.s) multiplies one stored IQ4_XSx16 group of nb super-blocks with one Q8_KL
// activation row; the rows selected by mask of out are written.
//
//go:noescape
func gemv1IQ4x(nb int, p, a *byte, out *float32, mask int)
