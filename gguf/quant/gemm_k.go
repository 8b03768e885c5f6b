package quant

// Batched kernels for the K-quants (see gemm.go). Packed groups keep lanes = rows; each group's integer sum
// is exact, and the scales are folded into float vectors at packing time (sc·d and min·dmin are exact in
// float32: at most 6 × 11 significant bits). The float accumulation differs from the reference's eight
// lanes, as the SIMD dot products' does.

// Activation layout for Q4_K and Q5_K ("Q8_KS4"), 292 bytes per 256 elements:
//
//	d     float32      the Q8_K scale
//	qs    [256]int8    the Q8_K quants
//	psums [8]float32   psums[j] = bsums[2j] + bsums[2j+1]: Σ qs of group j (32 elements)
const q8ks4Block = 292

// Activation layout for Q6_K ("Q8_KS6"), 324 bytes per 256 elements:
//
//	d       float32     the Q8_K scale
//	16 × {
//	  corr  int32       −32·bsums[k], the quants' offset times the sum of group k (16 elements)
//	  qs    [16]int8    the Q8_K quants of group k
//	}
const q8ks6Block = 324

func quantizeQ8KS4(src []float32, dst []byte) {
	for i := 0; i < len(src)/QKK; i++ {
		b := dst[i*q8ks4Block : (i+1)*q8ks4Block]
		QuantizeQ8_K(src[i*QKK:(i+1)*QKK], b)
		var bs [16]int
		for k := range bs {
			bs[k] = bsum(b[260:], k)
		}
		for j := 0; j < 8; j++ {
			putF32(b, 260+4*j, float32(bs[2*j]+bs[2*j+1]))
		}
	}
}

func quantizeQ8KS6(src []float32, dst []byte) {
	var tmp [292]byte
	for i := 0; i < len(src)/QKK; i++ {
		b := dst[i*q8ks6Block : (i+1)*q8ks6Block]
		QuantizeQ8_K(src[i*QKK:(i+1)*QKK], tmp[:])
		copy(b, tmp[:4])
		for k := 0; k < 16; k++ {
			putU32(b, 4+20*k, uint32(int32(-32*bsum(tmp[260:], k))))
			copy(b[8+20*k:], tmp[4+16*k:4+16*k+16])
		}
	}
}

// Packed layout of GemmRows rows of Q4_K or Q5_K, 5120 bytes per super-block:
//
//	8 × { qs [8][GemmRows][4]uint8; scd [GemmRows]float32 }   group j (32 elements) and sc_j·d per row
//	mind [8][GemmRows]float32                                   min_j·dmin per row
const (
	k4Group     = 8*GemmRows*4 + 4*GemmRows // one group's quants and scales
	k4PackBlock = 8*k4Group + 8*GemmRows*4
)

// Packed layout of GemmRows rows of Q6_K, 5120 bytes per super-block:
//
//	16 × { qs [4][GemmRows][4]uint8; scd [GemmRows]float32 }  group k (16 elements, q in 0…63) and sc_k·d
const (
	k6Group     = 4*GemmRows*4 + 4*GemmRows
	k6PackBlock = 16 * k6Group
)

func packK(nb int, w []byte, wStride, rows, wBlock, pBlock int, dst []byte, packRow func(p []byte, r int, blk []byte)) {
	for b := 0; b < nb; b++ {
		p := dst[b*pBlock : (b+1)*pBlock]
		for r := 0; r < GemmRows; r++ {
			if r >= rows {
				for off := 4 * r; off < pBlock; off += 4 * GemmRows {
					putU32(p, off, 0) // every field is a [..][GemmRows]4-byte array
				}
				continue
			}
			o := r*wStride + b*wBlock
			packRow(p, r, w[o:o+wBlock])
		}
	}
}

// packK4Row stores one row's super-block of Q4_K (qh nil) or Q5_K: the quants of group j (32 elements) are
// the low (j even) or high nibbles of qs[32·(j/2):], plus 16·bit j of qh for Q5_K; scales and minimums
// multiplied out.
func packK4Row(p []byte, r int, d, dmin float32, sc, qs, qh []byte) {
	for j := 0; j < 8; j++ {
		g := p[j*k4Group:]
		shift := 4 * (j % 2)
		src := qs[32*(j/2) : 32*(j/2)+32]
		for i := 0; i < 8; i++ {
			v := getU32(src, 4*i) >> shift & 0x0f0f0f0f
			if qh != nil {
				v |= (getU32(qh, 4*i) >> j & 0x01010101) << 4
			}
			putU32(g, i*4*GemmRows+4*r, v)
		}
		s, m := scaleMinK4(j, sc)
		putF32(g, 8*4*GemmRows+4*r, float32(s)*d)
		putF32(p, 8*k4Group+4*GemmRows*j+4*r, float32(m)*dmin)
	}
}

func packQ4_K(nb int, w []byte, wStride, rows int, dst []byte) {
	packK(nb, w, wStride, rows, 144, k4PackBlock, dst, func(p []byte, r int, blk []byte) {
		packK4Row(p, r, f16at(blk, 0), f16at(blk, 2), blk[4:16], blk[16:144], nil)
	})
}

func packQ5_K(nb int, w []byte, wStride, rows int, dst []byte) {
	packK(nb, w, wStride, rows, 176, k4PackBlock, dst, func(p []byte, r int, blk []byte) {
		packK4Row(p, r, f16at(blk, 0), f16at(blk, 2), blk[4:16], blk[48:176], blk[16:48])
	})
}

func packQ6_K(nb int, w []byte, wStride, rows int, dst []byte) {
	packK(nb, w, wStride, rows, 210, k6PackBlock, dst, func(p []byte, r int, blk []byte) {
		d := f16at(blk, 208)
		for k := 0; k < 16; k++ { // group k: elements 16k…16k+15
			g := p[k*k6Group:]
			half, e0 := k/8, 16*(k%8)
			quarter := e0 / 32
			for i := 0; i < 4; i++ {
				e := e0%32 + 4*i
				lo := getU32(blk, 64*half+e+32*(quarter%2)) >> (4 * (quarter / 2)) & 0x0f0f0f0f
				hi := getU32(blk, 128+32*half+e) >> (2 * quarter) & 0x03030303
				putU32(g, i*4*GemmRows+4*r, lo|hi<<4)
			}
			putF32(g, 4*4*GemmRows+4*r, float32(int8(blk[192+k]))*d)
		}
	})
}
