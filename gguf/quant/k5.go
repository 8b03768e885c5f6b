package quant

// Q5_K: 176 bytes / 256 elements = 5.5 bits per weight.
//
//	d      f16        super-block scale for the scales
//	dmin   f16        super-block scale for the minimums
//	scales [12]byte   eight 6-bit scales and minimums, packed as in Q4_K
//	qh     [32]byte   fifth bits: element 32·k + l has its bit in bit k of qh[l]
//	qs     [128]byte  low four bits, packed as in Q4_K
//	x = d·scale·q − dmin·min
//
// Quantization is ggml's quantize_row_q5_K_ref, the Q4_K search with levels 0…31 (rmin −0.5, 16 steps).

// DequantizeQ5_K expands len(dst) elements (a multiple of 256) from Q5_K blocks in src.
func DequantizeQ5_K(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := src[i*176 : i*176+176]
		y := dst[i*QKK : i*QKK+QKK]
		d, dmin := f16at(b, 0), f16at(b, 2)
		qh := b[16:48]
		for g := 0; g < 4; g++ {
			ql := b[48+32*g : 48+32*g+32]
			sc1, m1 := scaleMinK4(2*g, b[4:16])
			sc2, m2 := scaleMinK4(2*g+1, b[4:16])
			d1, mn1 := d*float32(sc1), dmin*float32(m1)
			d2, mn2 := d*float32(sc2), dmin*float32(m2)
			u1, u2 := byte(1)<<(2*g), byte(2)<<(2*g)
			out := y[64*g : 64*g+64]
			for l := 0; l < 32; l++ {
				lo, hi := ql[l]&0xf, ql[l]>>4
				if qh[l]&u1 != 0 {
					lo += 16
				}
				if qh[l]&u2 != 0 {
					hi += 16
				}
				out[l] = float32(d1*float32(lo)) - mn1
				out[l+32] = float32(d2*float32(hi)) - mn2
			}
		}
	}
}

// QuantizeQ5_K quantizes len(src) elements (a multiple of 256) into Q5_K blocks, following ggml's
// quantize_row_q5_K_ref.
func QuantizeQ5_K(src []float32, dst []byte) {
	var l [QKK]uint8
	for i := 0; i < len(src)/QKK; i++ {
		x := src[i*QKK : i*QKK+QKK]
		b := dst[i*176 : i*176+176]
		scales, mins := kxSubScales(x, 31, -0.5, 0.1, 15, &l)
		kxPackScales(x, &scales, &mins, 31, b[0:16], &l)
		qh := b[16:48]
		clear(qh)
		for g := 0; g < 4; g++ {
			ql := b[48+32*g : 48+32*g+32]
			for k := 0; k < 32; k++ {
				l1, l2 := l[64*g+k], l[64*g+k+32]
				if l1 > 15 {
					l1 -= 16
					qh[k] |= 1 << (2 * g)
				}
				if l2 > 15 {
					l2 -= 16
					qh[k] |= 2 << (2 * g)
				}
				ql[k] = l1 | l2<<4
			}
		}
	}
}
