package quant

// Q6_K: 210 bytes / 256 elements = 6.5625 bits per weight.
//
//	ql     [128]byte  low four bits; in each half of 128 elements, byte l (0…31) holds element l (low nibble)
//	                  and l+64 (high nibble), byte l+32 holds elements l+32 and l+96
//	qh     [64]byte   high two bits; in each half, byte l holds elements l, l+32, l+64, l+96 in bits
//	                  0-1, 2-3, 4-5, 6-7
//	scales [16]int8   one signed 8-bit scale per 16 elements
//	d      f16        super-block scale
//	x = d·scale·(q − 32),  q in 0…63
//
// Quantization is ggml's quantize_row_q6_K_ref: make_qx_quants per 16 elements (weights x²), the scales
// quantized to int8 against the signed largest one (iscale = −128/max), then the quants recomputed.

// DequantizeQ6_K expands len(dst) elements (a multiple of 256) from Q6_K blocks in src.
func DequantizeQ6_K(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := src[i*210 : i*210+210]
		y := dst[i*QKK : i*QKK+QKK]
		d := f16at(b, 208)
		for half := 0; half < 2; half++ {
			ql := b[64*half : 64*half+64]
			qh := b[128+32*half : 128+32*half+32]
			sc := b[192+8*half : 192+8*half+8]
			out := y[128*half : 128*half+128]
			for l := 0; l < 32; l++ {
				is := l / 16
				h := qh[l]
				q1 := int(ql[l]&0xf|(h&3)<<4) - 32
				q2 := int(ql[l+32]&0xf|(h>>2&3)<<4) - 32
				q3 := int(ql[l]>>4|(h>>4&3)<<4) - 32
				q4 := int(ql[l+32]>>4|(h>>6&3)<<4) - 32
				out[l] = d * float32(int8(sc[is])) * float32(q1)
				out[l+32] = d * float32(int8(sc[is+2])) * float32(q2)
				out[l+64] = d * float32(int8(sc[is+4])) * float32(q3)
				out[l+96] = d * float32(int8(sc[is+6])) * float32(q4)
			}
		}
	}
}

// QuantizeQ6_K quantizes len(src) elements (a multiple of 256) into Q6_K blocks, following ggml's
// quantize_row_q6_K_ref.
func QuantizeQ6_K(src []float32, dst []byte) {
	var (
		l      [QKK]int8
		scales [16]float32
	)
	for i := 0; i < len(src)/QKK; i++ {
		x := src[i*QKK : i*QKK+QKK]
		b := dst[i*210 : i*210+210]
		var maxScale, maxAbs float32
		for j := 0; j < 16; j++ {
			scales[j] = makeQX(32, x[16*j:16*j+16], l[16*j:16*j+16])
			if a := abs32(scales[j]); a > maxAbs {
				maxAbs, maxScale = a, scales[j]
			}
		}
		if maxAbs < groupMaxEps {
			clear(b)
			continue
		}
		iscale := -128 / maxScale
		putF16(b, 208, 1/iscale)
		sc := b[192:208]
		for j := range sc {
			sc[j] = byte(int8(min(127, nearestInt(iscale*scales[j]))))
		}
		dAll := f16at(b, 208)
		for j := 0; j < 16; j++ {
			d := dAll * float32(int8(sc[j]))
			if d == 0 {
				continue
			}
			for k := 0; k < 16; k++ {
				l[16*j+k] = int8(clampInt(nearestInt(x[16*j+k]/d), -32, 31) + 32)
			}
		}
		packQ6(&l, b[0:128], b[128:192])
	}
}

func packQ6(l *[QKK]int8, ql, qh []byte) {
	for half := 0; half < 2; half++ {
		L := l[128*half : 128*half+128]
		lo := ql[64*half : 64*half+64]
		hi := qh[32*half : 32*half+32]
		for k := 0; k < 32; k++ {
			a, b, c, d := uint8(L[k]), uint8(L[k+32]), uint8(L[k+64]), uint8(L[k+96])
			lo[k] = a&0xf | (c&0xf)<<4
			lo[k+32] = b&0xf | (d&0xf)<<4
			hi[k] = a>>4 | (b>>4)<<2 | (c>>4)<<4 | (d>>4)<<6
		}
	}
}
