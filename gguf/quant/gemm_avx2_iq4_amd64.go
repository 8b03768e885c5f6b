//go:build amd64 && !noasm

package quant

// IQ4_XS in the repacked order on the IQ4_XSx16 stored layout (gemm_stored_iq4.go) for CPUs with AVX2 but
// without AVX-512 VNNI (registered from gemm_avx2_amd64.go's init), 8 rows a 256-bit register
// (gemm_avx2_iq4_amd64.s).
//
// VPMADDUBSW multiplies unsigned with signed bytes and saturates each pair's sum to an int16, so the table
// values plus 128 (up to 241) of the VNNI kernels do not fit it. The kernels multiply |y| (unsigned, at most
// 128) with kvalue·sign(y) (VPSIGNB, at most 127 in magnitude): a pair is at most 2·128·127 < 2¹⁵, exact.
// The activation layout ("Q8_KXA") is therefore Q8_KX's blocks (gemm_stored_iq4.go, read as they are by the
// single-row kernel and the layout's scalar reference) followed, after the row's last block, by |y| of
// every quant: 548 bytes per 256 elements, block b's |y| at nb·292 + 256·b of the row.
const q8kxaBlock = q8kxBlock + QKK

func gemmIQ4_XSAVX2() {
	typeTraits[IQ4_XS].gemm[OrderRepacked] = &Gemm{w: IQ4_XS, o: OrderRepacked, actBlock: q8kxaBlock,
		packBlock: ix4Block, quantize: quantizeQ8KXA, fromRef: q8kxaFromQ8_K, pack: packIQ4_XSx16,
		kernel: mulIQ4_XSx16AVX2, vec: vecRows(dotIQ4_XSQ8_KPanelAVX2), minCols: 4, storedBlock: ix4Block,
		store: packIQ4_XSx16, storedMul: mulIQ4_XSx16AVX2}
}

// quantizeQ8KXA quantizes src into a Q8_KXA row.
func quantizeQ8KXA(src []float32, dst []byte) {
	nb := len(src) / QKK
	quantizeQ8KX(src, dst[:nb*q8kxBlock])
	q8kxaAbs(nb, dst)
}

// q8kxaFromQ8_K converts a Q8_K activation row into Q8_KXA, keeping every quant and scale.
func q8kxaFromQ8_K(ref, dst []byte) {
	nb := len(ref) / 292
	q8kxFromQ8_K(ref, dst[:nb*q8kxBlock])
	q8kxaAbs(nb, dst)
}

// q8kxaAbs writes |y| of the nb Q8_KX blocks of row after them (VPABSB: −128 becomes 0x80, 128 as the
// unsigned byte it is read as).
func q8kxaAbs(nb int, row []byte) {
	abs := row[nb*q8kxBlock : nb*q8kxaBlock]
	for b := 0; b < nb; b++ {
		absQKK(&abs[b*QKK], &row[b*q8kxBlock+4])
	}
}

// absQKK writes the absolute values of the QKK int8 at src to dst.
//
//go:noescape
func absQKK(dst, src *byte)

// mulIQ4_XSx16AVX2 multiplies the first rows rows of one IQ4_XSx16 group (nb super-blocks at p) with cols
// Q8_KXA rows: 4 columns and 8 rows per kernel call, then the last columns one at a time with all 16 rows
// (a group's rows past rows are padding: their lanes are computed and dropped). MulPacked (or Mul) has
// checked the bounds.
func mulIQ4_XSx16AVX2(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	var tmp [4 * GemmRows]float32
	c := 0
	for ; c+4 <= cols; c += 4 {
		for h := 0; h < 2 && 8*h < rows; h++ {
			gemm4IQ4xAVX2(nb, &p[32*h], &p[ix4Ls+8*h], &a[c*aStride], aStride, &tmp[8*h])
		}
		for j := 0; j < 4; j++ {
			copy(out[(c+j)*outStride:(c+j)*outStride+rows], tmp[GemmRows*j:GemmRows*j+rows])
		}
	}
	for ; c < cols; c++ {
		gemv16IQ4xAVX2(nb, &p[0], &a[c*aStride], &tmp[0])
		copy(out[c*outStride:c*outStride+rows], tmp[:rows])
	}
}

// gemm4IQ4xAVX2 computes 8 rows of one stored IQ4_XSx16 group (their d and quant dwords from q, their
// sub-block scales from ls, both a stored super-block apart) against 4 Q8_KXA columns aStride bytes apart:
// out[16c+r].
//
//go:noescape
func gemm4IQ4xAVX2(nb int, q, ls, a *byte, aStride int, out *float32)

// gemv16IQ4xAVX2 computes the 16 rows of one stored IQ4_XSx16 group against one Q8_KXA column: out[r].
//
//go:noescape
func gemv16IQ4xAVX2(nb int, p, a *byte, out *float32)
