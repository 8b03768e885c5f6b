package quant

// Q2_K: 84 bytes / 256 elements = 2.625 bits per weight.
//
//	scales [16]byte  per 16 elements: low nibble = scale, high nibble = minimum (4 bits each)
//	qs     [64]byte  2-bit quants; in each half of 128 elements, byte l (0…31) holds elements
//	                 l, l+32, l+64, l+96 in bits 0-1, 2-3, 4-5, 6-7
//	d      f16       super-block scale for the scales
//	dmin   f16       super-block scale for the minimums
//	x = d·scale·q − dmin·min
//
// Quantization is ggml's quantize_row_q2_K_ref: make_qkx2_quants per 16 elements (weights |x|, absolute
// error), the 16 scales and minimums quantized to 4 bits against their maxima, then the quants recomputed.

// DequantizeQ2_K expands len(dst) elements (a multiple of 256) from Q2_K blocks in src.
func DequantizeQ2_K(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := src[i*84 : i*84+84]
		y := dst[i*QKK : i*QKK+QKK]
		d, dmin := f16at(b, 80), f16at(b, 82)
		is := 0
		for half := 0; half < 2; half++ {
			q := b[16+32*half : 16+32*half+32]
			for j := 0; j < 4; j++ {
				shift := 2 * j
				for g := 0; g < 2; g++ { // two groups of 16 share each shift
					sc := b[is]
					is++
					dl := d * float32(sc&0xf)
					ml := dmin * float32(sc>>4)
					out := y[128*half+32*j+16*g:]
					for l := 0; l < 16; l++ {
						out[l] = float32(dl*float32((q[16*g+l]>>shift)&3)) - ml
					}
				}
			}
		}
	}
}

// QuantizeQ2_K quantizes len(src) elements (a multiple of 256) into Q2_K blocks, following ggml's
// quantize_row_q2_K_ref.
func QuantizeQ2_K(src []float32, dst []byte) {
	var (
		l            [QKK]uint8
		laux         [16]uint8
		w            [16]float32
		scales, mins [16]float32
	)
	const q4scale = 15
	for i := 0; i < len(src)/QKK; i++ {
		x := src[i*QKK : i*QKK+QKK]
		b := dst[i*84 : i*84+84]
		var maxScale, maxMin float32
		for j := 0; j < 16; j++ {
			xs := x[16*j : 16*j+16]
			for k, v := range xs {
				w[k] = abs32(v)
			}
			scales[j], mins[j] = makeQKX2(3, xs, w[:], l[16*j:16*j+16], laux[:], -0.5, 0.1, 15, true)
			maxScale = max(maxScale, scales[j])
			maxMin = max(maxMin, mins[j])
		}
		sc := b[0:16]
		clear(sc)
		putF16(b, 80, 0)
		if maxScale > 0 {
			iscale := q4scale / maxScale
			for j := range sc {
				sc[j] = uint8(nearestInt(iscale * scales[j]))
			}
			putF16(b, 80, maxScale/q4scale)
		}
		putF16(b, 82, 0)
		if maxMin > 0 {
			iscale := q4scale / maxMin
			for j := range sc {
				sc[j] |= uint8(nearestInt(iscale*mins[j])) << 4
			}
			putF16(b, 82, maxMin/q4scale)
		}
		dAll, mAll := f16at(b, 80), f16at(b, 82)
		for j := 0; j < 16; j++ {
			d := dAll * float32(sc[j]&0xf)
			if d == 0 {
				continue
			}
			dm := mAll * float32(sc[j]>>4)
			for k := 0; k < 16; k++ {
				l[16*j+k] = uint8(clampInt(nearestInt((x[16*j+k]+dm)/d), 0, 3))
			}
		}
		pack2bit(&l, b[16:80])
	}
}
