//go:build amd64 && !noasm

package quant

// The batched kernels need AVX-512 VNNI (VPDPBUSD on 512-bit registers, 32 vector registers, mask registers
// for the partial stores and gathers): Ice Lake, Sapphire Rapids, Zen 4 and later.

func init() {
	if !hasVNNI {
		return
	}
	typeTraits[Q4_0].gemm[OrderRepacked] = &Gemm{w: Q4_0, o: OrderRepacked, actBlock: q8sBlock, packBlock: q8PackBlock,
		quantize: quantizeQ8S, fromRef: q8sFromQ8_0, pack: gatherPack(packQ4_0G, packQ4_0, 18), kernel: gemmCols(gemm8Q8S, gemm1Q8S, 8),
		vec: gemvQ4_0R, minCols: 2}
	storedQ4_0(typeTraits[Q4_0].gemm[OrderRepacked])
	typeTraits[Q8_0].gemm[OrderVecDot] = &Gemm{w: Q8_0, o: OrderVecDot, actBlock: q8gBlock, packBlock: q8PackBlock,
		quantize: quantizeQ8G(128), fromRef: q8gFromQ8_0(128), pack: gatherPack(packQ8_0G, packQ8_0, 34), kernel: gemmCols(gemm2Q8G, gemm1Q8G, 2),
		vec: vecRows(dotQ8_0Q8GVNNI), minCols: 2}
	storedQ8_0(typeTraits[Q8_0].gemm[OrderVecDot])
	typeTraits[Q4_K].gemm[OrderRepacked] = &Gemm{w: Q4_K, o: OrderRepacked, actBlock: q8kwBlock, packBlock: q4kPackBlock,
		extra: q4kAccCols * q4kAccBytes, quantize: quantizeQ8KW, fromRef: q8kwFromQ8_K, pack: packQ4_K,
		kernel: gemmQ4_K, vec: gemvQ4_K, minCols: 12}
	q8kwPermute = hasVBMI
	q8kwLanes = func(dst, q []byte) {
		_, _ = dst[511], q[255]
		q8kwQuants(&dst[0], &q[0])
		if q8kwPermute {
			q8kwPermuted(&q[0])
		}
	}
	storedQ4_K(typeTraits[Q4_K].gemm[OrderRepacked])
	gemmIQ4_XS()
	storedIQ4_XS(typeTraits[IQ4_XS].gemm[OrderVecDot])
	typeTraits[MXFP4].gemm[OrderVecDot] = &Gemm{w: MXFP4, o: OrderVecDot, actBlock: q8sBlock, packBlock: mxxBlock,
		quantize: quantizeQ8S, fromRef: q8sFromQ8_0, pack: packMXFP4x16, kernel: gemmCols(gemm4MXx, gemv1MXx, 4),
		minCols: 1, storedBlock: mxxBlock, store: packMXFP4x16, storedMul: gemmCols(gemm4MXx, gemv1MXx, 4)}
	gemmQ5_K()
	gemmQ6_K()
	packLane = func(p, qs []byte, scales [8]uint16) {
		_, _ = p[q4kPackD-4*GemmRows+3], qs[127] // the last dword written, the last byte read
		packQ4KLane(&p[0], &qs[0], &scales)
	}
}

// gemmQ4_K runs the packed rows over the columns q4kAccCols at a time: the accumulators (in packed after the
// nb packed super-blocks) are zeroed, every super-block is added in, and the sums are finished into out.
func gemmQ4_K(nb int, packed, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	acc := packed[nb*q4kPackBlock : nb*q4kPackBlock+q4kAccCols*q4kAccBytes]
	for c0 := 0; c0 < cols; c0 += q4kAccCols {
		nc := min(q4kAccCols, cols-c0)
		clear(acc[:nc*q4kAccBytes])
		gemmQ4K16(nb, &packed[0], &a[c0*aStride], aStride, nc, &acc[0])
		gemmQ4K16Finish(nc, &acc[0], &out[c0*outStride], outStride, 1<<rows-1)
	}
}

// gemvQ4_K multiplies rows Q4_K rows with one Q8_KW row through the decode kernel. Mul has checked the
// bounds.
//
// Without AVX-512 VBMI (VPERMB) the quants stay in Q8_K's order (q8kwPermute) and it uses the AVX2 kernel.
func gemvQ4_K(nb int, w []byte, wStride, rows int, a []byte, out []float32) {
	if !q8kwPermute {
		for r := 0; r < rows; r++ {
			out[r] = dotQ4_KQ8_KRepackedAVX2(nb, &w[r*wStride], &a[0], q8kwBlock)
		}
		return
	}
	for r := 0; r < rows; r++ {
		out[r] = dotQ4_KQ8_KWRepackedVNNI(nb, &w[r*wStride], &a[0], q8kwBlock)
	}
}

// gatherPack returns a packer of a 32-element format (wBlock bytes per block) that gathers each packed
// vector's lanes straight from the rows with kernel k; portable does the same in Go where the gathers'
// int32 offsets would overflow.
func gatherPack(k func(nb int, w *byte, wStride int, dst *byte, mask int), portable func(nb int, w []byte, wStride, rows int, dst []byte), wBlock int) func(nb int, w []byte, wStride, rows int, dst []byte) {
	return func(nb int, w []byte, wStride, rows int, dst []byte) {
		if (GemmRows-1)*wStride >= 1<<31 {
			portable(nb, w, wStride, rows, dst)
			return
		}
		_, _ = w[(rows-1)*wStride+nb*wBlock-1], dst[nb*q8PackBlock-1]
		k(nb, &w[0], wStride, &dst[0], 1<<rows-1)
	}
}

type (
	gemmNFn func(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)
	gemm1Fn func(nb int, packed, a *byte, out *float32, mask int)
)

// gemmCols runs kn over the columns step at a time, then k1 over the rest (all of them where kn is nil). Mul
// has checked every bound.
func gemmCols(kn gemmNFn, k1 gemm1Fn, step int) func(nb int, packed, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	return func(nb int, packed, a []byte, aStride, cols int, out []float32, outStride, rows int) {
		mask := 1<<rows - 1
		c := 0
		for ; kn != nil && c+step <= cols; c += step {
			kn(nb, &packed[0], &a[c*aStride], aStride, &out[c*outStride], outStride, mask)
		}
		for ; c < cols; c++ {
			k1(nb, &packed[0], &a[c*aStride], &out[c*outStride], mask)
		}
	}
}

// gemvQ4_0R multiplies rows Q4_0 rows with one Q8_0S row, 16 rows at a time (gathering the rows' blocks
// into lanes), in the repacked order. Mul has checked the bounds.
func gemvQ4_0R(nb int, w []byte, wStride, rows int, a []byte, out []float32) {
	if 15*wStride >= 1<<31 { // the gather's int32 offsets
		for r := 0; r < rows; r++ {
			out[r] = dotQ4_0Q8SRef(nb, w[r*wStride:], a)
		}
		return
	}
	for r0 := 0; r0 < rows; r0 += GemmRows {
		nr := min(GemmRows, rows-r0)
		gemvQ4_0R16(nb, &w[r0*wStride], wStride, &a[0], &out[r0], 1<<nr-1)
	}
}

// dotQ4_0Q8SRef is DotQ4_0Q8_0Interleaved on a Q8_0S activation row.
func dotQ4_0Q8SRef(nb int, w, a []byte) float32 {
	var acc float32
	for ib := 0; ib < nb; ib++ {
		x, y := w[ib*18:ib*18+18], a[ib*q8sBlock:(ib+1)*q8sBlock]
		s := int32(0)
		for j := 0; j < QK/2; j++ {
			s += (int32(x[2+j]&15) - 8) * int32(int8(y[8+j]))
			s += (int32(x[2+j]>>4) - 8) * int32(int8(y[24+j]))
		}
		acc = fma32(float32(s), f16at(x, 0)*f32at(y, 0), acc)
	}
	return acc
}

// Kernels (gemm_amd64.s): nb packed blocks of GemmRows rows against 8, 2 (or 1) activation rows; the rows
// selected by mask of out[c*outStride+r] are written.

//go:noescape
func gemm8Q8S(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)

//go:noescape
func gemm1Q8S(nb int, packed, a *byte, out *float32, mask int)

//go:noescape
func gemm2Q8G(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)

//go:noescape
func gemm1Q8G(nb int, packed, a *byte, out *float32, mask int)

// gemvQ4_0R16 computes the rows of mask (at most 16, wStride apart) against one Q8_0S row.
//
//go:noescape
func gemvQ4_0R16(nb int, w *byte, wStride int, a *byte, out *float32, mask int)

// dotQ8_0Q8GVNNI is DotQ8_0Q8_0 of one Q8_0 row with one Q8_0G row.
//
//go:noescape
func dotQ8_0Q8GVNNI(nb int, w, a *byte) float32

// gemmQ4K16 adds nb packed Q4_K super-blocks times cols Q8_KW columns (aStride bytes apart) into the
// accumulators at acc (q4kAccBytes per column).
//
//go:noescape
func gemmQ4K16(nb int, packed, a *byte, aStride, cols int, acc *byte)

// gemmQ4K16Finish writes the sum minus the minimum terms of cols columns' accumulators to out[c*outStride+r]
// for the rows r of mask.
//
//go:noescape
func gemmQ4K16Finish(cols int, acc *byte, out *float32, outStride, mask int)

// packQ4KLane writes the 256 scaled quants of one Q4_K super-block (qs: its 128 quant bytes) into lane dst of
// a packed block.
//
//go:noescape
func packQ4KLane(dst, qs *byte, scales *[8]uint16)

// q8kwQuants writes the 512 bytes of int16 quant pairs of a Q8_KW block from its 256 quants q.
//
//go:noescape
func q8kwQuants(dst, q *byte)

// packQ4_0G and packQ8_0G are packQ4_0 and packQ8_0 for the rows of mask (the others zero), with gathers.
//
//go:noescape
func packQ4_0G(nb int, w *byte, wStride int, dst *byte, mask int)

//go:noescape
func packQ8_0G(nb int, w *byte, wStride int, dst *byte, mask int)

// dotQ4_KQ8_KWRepackedVNNI is DotQ4_KQ8_KRepacked of one Q4_K row with Q8_KW activation blocks (quants
// permuted) aStride bytes apart (AVX-512 VNNI and VBMI).
//
//go:noescape
func dotQ4_KQ8_KWRepackedVNNI(nb int, w, a *byte, aStride int) float32

// q8kwPermuted puts the 256 quants at q into the decode kernel's order, in place.
//
//go:noescape
func q8kwPermuted(q *byte)

// Kernels (gemm_stored_mx_amd64.s) on one stored MXFP4x16 group of nb blocks at p, against 4 or 1 Q8_0S
// activation rows; the rows selected by mask of out[c*outStride+r] are written.

//go:noescape
func gemm4MXx(nb int, p, a *byte, aStride int, out *float32, outStride, mask int)

//go:noescape
func gemv1MXx(nb int, p, a *byte, out *float32, mask int)

// gemmIQ4_XS registers IQ4_XS's Gemm (the IQ4_XSL layout, gemm_iq4l.go), with AVX-512 VNNI or AVX2 kernels.
func gemmIQ4_XS() {
	typeTraits[IQ4_XS].gemm[OrderVecDot] = &Gemm{w: IQ4_XS, o: OrderVecDot, actBlock: q8klBlock, packBlock: ix4lBlock,
		quantize: quantizeQ8KL, fromRef: q8klFromQ8_K, pack: packIQ4_XSL, kernel: mulIQ4_XSL,
		vec: gemvIQ4_XSL, minCols: ix4lMinCols, packGroups: 4, packBytes: 512 << 10, tileBytes: 256 << 10}
}

// mulIQ4_XSL multiplies one packed IQ4_XSL group (gemm_iq4l.go) with the columns four at a time with AVX-512
// VNNI (iq4lLanes4), three with AVX2 only (mulIQ4_XSL3); a last partial step repeats its last column: each
// lane's accumulators, then each (row, column)'s eight added as hsum_float_8. Mul has checked the bounds.
func mulIQ4_XSL(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	var lanes [8][4 * GemmRows]float32
	var sums [4 * GemmRows]float32
	var dy [ix4lDYBlocks * 3 * GemmRows]float32
	dt := &p[8*nb*ix4lLane]
	step := 3
	if hasVNNI {
		step = 4
	}
	for c := 0; c < cols; c += step {
		var col [4]*byte
		for k := range col {
			col[k] = &a[min(c+k, cols-1)*aStride+292]
		}
		if hasVNNI {
			iq4lLanes4(nb, &p[0], nb*ix4lLane, dt, col[0], col[1], col[2], col[3], &lanes[0][0], &sums[0])
		} else {
			mulIQ4_XSL3(nb, p, a, [3]int{min(c, cols-1) * aStride, min(c+1, cols-1) * aStride,
				min(c+2, cols-1) * aStride}, &lanes, &dy, &sums)
		}
		for k := 0; k < step && c+k < cols; k++ {
			copy(out[(c+k)*outStride:(c+k)*outStride+rows], sums[GemmRows*k:GemmRows*k+rows])
		}
	}
}

// ix4lDYBlocks is how many super-blocks mulIQ4_XSL3 takes at a time (its products d·yd fill 3 KiB).
const ix4lDYBlocks = 16

// mulIQ4_XSL3 sets sums[16c + r] to the dot product of row r and column c < 3 (the Q8_KL row at a[col[c]:])
// with AVX2 (iq4lLanes3AVX2, its lanes' accumulators in lanes and the products d·yd in dy), ix4lDYBlocks
// super-blocks at a time.
func mulIQ4_XSL3(nb int, p, a []byte, col [3]int, lanes *[8][4 * GemmRows]float32, dy *[ix4lDYBlocks * 3 * GemmRows]float32, sums *[4 * GemmRows]float32) {
	for i := 0; i < nb; i += ix4lDYBlocks {
		n, off := min(ix4lDYBlocks, nb-i), i*q8klBlock+292
		a0, a1, a2 := &a[col[0]+off], &a[col[1]+off], &a[col[2]+off]
		_ = p[(7*nb+i+n)*ix4lLane-1]            // lane 7's last super-block
		_ = p[8*nb*ix4lLane+(i+n)*4*GemmRows-1] // the rows' last d
		var s *float32
		if i+n == nb {
			s = &sums[0]
		}
		iq4lLanes3AVX2(n, &p[i*ix4lLane], nb*ix4lLane, &p[8*nb*ix4lLane+i*4*GemmRows], &dy[0], a0, a1, a2, &lanes[0][0], i, s)
	}
}

// gemvIQ4_XSL multiplies rows IQ4_XS rows with one Q8_KL row by the row dot (its Q8_K blocks q8klBlock bytes
// apart). Mul has checked the bounds.
func gemvIQ4_XSL(nb int, w []byte, wStride, rows int, a []byte, out []float32) {
	for r := 0; r < rows; r++ {
		out[r] = dotIQ4_XSQ8_KAVX2(nb, &w[r*wStride], &a[0], q8klBlock)
	}
}

// iq4lLanes4 (gemm_iq4l_amd64.s) computes the eight lanes (lane m's super-blocks stride bytes after lane
// m−1's) of 16 rows of one packed IQ4_XSL group against four Q8_KL columns' lane sections with AVX-512 VNNI:
// acc[64m+16c+r], then their hsum_float_8 in sums[16c+r].
//
//go:noescape
func iq4lLanes4(nb int, p *byte, stride int, d *byte, a0, a1, a2, a3 *byte, acc, sums *float32)

// iq4lLanes3AVX2 (gemm_iq4l_amd64.s) is iq4lLanes4 with AVX2 only for the eight lanes (lane m's super-blocks
// stride bytes after lane m−1's) and three columns (acc[64m+16c+r], c < 3, added to unless add is 0), with
// the products d·yd it writes to dy first, and, where sums is not nil, the lanes then added into sums[16c+r].
//
//go:noescape
func iq4lLanes3AVX2(nb int, p *byte, stride int, d *byte, dy *float32, a0, a1, a2 *byte, acc *float32, add int, sums *float32)
