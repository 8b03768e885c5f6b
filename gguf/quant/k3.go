package quant

// Q3_K: 110 bytes / 256 elements = 3.4375 bits per weight.
//
//	hmask  [32]byte  high (third) bit: element 32·k + l has its bit in bit k of hmask[l]
//	qs     [64]byte  low two bits, packed as in Q2_K
//	scales [12]byte  16 signed 6-bit scales (stored +32): scale j keeps its low four bits in the low nibble
//	                 of byte j (j < 8) or the high nibble of byte j−8 (j ≥ 8), and its top two bits in bits
//	                 2·(j/4)…2·(j/4)+1 of byte 8 + j%4
//	d      f16       super-block scale
//	x = d·(scale − 32)·(q − 4·(1 − hbit)),  q in 0…3
//
// Quantization is ggml's quantize_row_q3_K_ref: make_q3_quants per 16 elements, the scales quantized to six
// bits against the signed largest one (iscale = −32/max), then the quants recomputed.

// q3Scale decodes the j-th (0…15) 6-bit scale of a Q3_K block, still offset by 32.
func q3Scale(sc []byte, j int) int {
	var lo byte
	if j < 8 {
		lo = sc[j] & 0xf
	} else {
		lo = sc[j-8] >> 4
	}
	hi := (sc[8+j%4] >> (2 * (j / 4))) & 3
	return int(lo | hi<<4)
}

// DequantizeQ3_K expands len(dst) elements (a multiple of 256) from Q3_K blocks in src.
func DequantizeQ3_K(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := src[i*110 : i*110+110]
		y := dst[i*QKK : i*QKK+QKK]
		dAll := f16at(b, 108)
		hm := b[0:32]
		sc := b[96:108]
		for j := 0; j < 16; j++ { // 16 groups of 16 elements in order
			dl := dAll * float32(q3Scale(sc, j)-32)
			half, r := j/8, j%8 // r: (shift step, which 16 of the 32 bytes)
			q := b[32+32*half : 32+32*half+32]
			shift := 2 * (r / 2)
			m := byte(1) << (4*half + r/2)
			off := 16 * (r % 2)
			out := y[16*j : 16*j+16]
			for l := 0; l < 16; l++ {
				v := int(q[off+l]>>shift) & 3
				if hm[off+l]&m == 0 {
					v -= 4
				}
				out[l] = dl * float32(v)
			}
		}
	}
}

// QuantizeQ3_K quantizes len(src) elements (a multiple of 256) into Q3_K blocks, following ggml's
// quantize_row_q3_K_ref.
func QuantizeQ3_K(src []float32, dst []byte) {
	var (
		l      [QKK]int8
		scales [16]float32
		lu     [QKK]uint8
	)
	for i := 0; i < len(src)/QKK; i++ {
		x := src[i*QKK : i*QKK+QKK]
		b := dst[i*110 : i*110+110]
		var maxScale, amax float32
		for j := 0; j < 16; j++ {
			scales[j] = makeQ3(4, x[16*j:16*j+16], l[16*j:16*j+16])
			if a := abs32(scales[j]); a > amax {
				amax, maxScale = a, scales[j]
			}
		}
		sc := b[96:108]
		clear(sc)
		putF16(b, 108, 0)
		if maxScale != 0 {
			iscale := -32 / maxScale
			for j := 0; j < 16; j++ {
				v := byte(clampInt(int(int8(nearestInt(iscale*scales[j]))), -32, 31) + 32)
				if j < 8 {
					sc[j] = v & 0xf
				} else {
					sc[j-8] |= (v & 0xf) << 4
				}
				sc[8+j%4] |= (v >> 4) << (2 * (j / 4))
			}
			putF16(b, 108, 1/iscale)
		}
		dAll := f16at(b, 108)
		for j := 0; j < 16; j++ {
			d := dAll * float32(int8(q3Scale(sc, j))-32)
			if d == 0 {
				continue
			}
			for k := 0; k < 16; k++ {
				l[16*j+k] = int8(clampInt(nearestInt(x[16*j+k]/d), -4, 3) + 4)
			}
		}
		hm := b[0:32]
		clear(hm)
		for j := 0; j < QKK; j++ {
			v := uint8(l[j])
			if v > 3 {
				hm[j%32] |= 1 << (j / 32)
				v -= 4
			}
			lu[j] = v
		}
		pack2bit(&lu, b[32:96])
	}
}
