package quant

// Non-linear 4-bit quants: each 4-bit index selects a level from a fixed table.
//
//	IQ4_NL  18 bytes / 32 elements = 4.5 bits per weight
//	        d  f16        scale
//	        qs [16]byte   indices, nibbles as in Q4_0
//	        x = d·kvaluesIQ4[q]
//	IQ4_XS  136 bytes / 256 elements = 4.25 bits per weight
//	        d        f16        super-block scale
//	        scales_h uint16     top two bits of the eight 6-bit sub-block scales (bits 2·k, 2·k+1 for block k)
//	        scales_l [4]byte    low four bits; block k in the low (k even) or high (k odd) nibble of byte k/2
//	        qs       [128]byte  indices; 16 bytes per 32-element block, nibbles as in Q4_0
//	        x = d·(scale − 32)·kvaluesIQ4[q]
//
// Quantization is ggml's quantize_row_iq4_nl_impl as ggml_quantize_chunk calls it without importance
// weights (weights x², 15 trial scales each side): for each 32 elements the scale maximising Σw·q·x / Σw·q²,
// then for IQ4_XS the sub-block scales quantized to six bits against the signed largest one.

import "encoding/binary"

var kvaluesIQ4 = [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

// DequantizeIQ4_NL expands len(dst) elements (a multiple of 32) from IQ4_NL blocks in src.
func DequantizeIQ4_NL(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := src[i*18 : i*18+18]
		y := dst[i*QK : i*QK+QK]
		d := f16at(b, 0)
		for j := 0; j < 16; j++ {
			y[j] = d * float32(kvaluesIQ4[b[2+j]&0xf])
			y[j+16] = d * float32(kvaluesIQ4[b[2+j]>>4])
		}
	}
}

// iq4xsScale decodes the 6-bit scale of sub-block k (0…7), still offset by 32.
func iq4xsScale(b []byte, k int) int {
	h := binary.LittleEndian.Uint16(b[2:])
	return int(b[4+k/2]>>(4*(k%2))&0xf) | int(h>>(2*k)&3)<<4
}

// DequantizeIQ4_XS expands len(dst) elements (a multiple of 256) from IQ4_XS blocks in src.
func DequantizeIQ4_XS(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := src[i*136 : i*136+136]
		y := dst[i*QKK : i*QKK+QKK]
		d := f16at(b, 0)
		for k := 0; k < 8; k++ {
			dl := d * float32(iq4xsScale(b, k)-32)
			qs := b[8+16*k : 8+16*k+16]
			out := y[32*k : 32*k+32]
			for j := 0; j < 16; j++ {
				out[j] = dl * float32(kvaluesIQ4[qs[j]&0xf])
				out[j+16] = dl * float32(kvaluesIQ4[qs[j]>>4])
			}
		}
	}
}

// bestIndexIQ4 returns the index of the table level nearest to x (the upper one on an exact tie).
func bestIndexIQ4(x float32) int {
	x2 := 2 * x // exact; written as a product so that a caller's id·x cannot fuse into it
	idx := 0
	for step := 8; step > 0; step >>= 1 {
		j := idx + step
		if x2 >= float32(int(kvaluesIQ4[j-1])+int(kvaluesIQ4[j])) {
			idx = j
		}
	}
	return idx
}

// iq4Sums quantizes x against the table with inverse scale id (indices into l when l is not nil) and
// returns Σw·q·x and Σw·q² with weights x².
func iq4Sums(x []float32, id float32, l []uint8) (sumQX, sumQ2 float32) {
	for j, v := range x {
		k := bestIndexIQ4(id * v)
		if l != nil {
			l[j] = uint8(k)
		}
		q := float32(kvaluesIQ4[k])
		w := v * v
		sumQX += float32(float32(w*q) * v)
		sumQ2 += float32(float32(w*q) * q)
	}
	return sumQX, sumQ2
}

// iq4BlockScale searches the scale of one 32-element block as ggml does with ntry = 7, filling l with
// the indices of the first trial.
func iq4BlockScale(x []float32, l []uint8) float32 {
	const ntry = 7
	max_ := signedAbsMax(x)
	if abs32(max_) < groupMaxEps {
		clear(l[:len(x)])
		return 0
	}
	d := -max_ / float32(kvaluesIQ4[0])
	sumQX, sumQ2 := iq4Sums(x, 1/d, l)
	d = 0
	if sumQ2 > 0 {
		d = sumQX / sumQ2
	}
	best := d * sumQX
	for itry := -ntry; itry <= ntry; itry++ {
		id := float32(itry+int(kvaluesIQ4[0])) / max_
		sumQX, sumQ2 = iq4Sums(x, id, nil)
		if sumQ2 > 0 && float32(sumQX*sumQX) > float32(best*sumQ2) {
			d = sumQX / sumQ2
			best = d * sumQX
		}
	}
	return d
}

// packNibbles32 stores 32 indices as Q4_0 does: element j low nibble, element j+16 high nibble.
func packNibbles32(l []uint8, qs []byte) {
	for j := 0; j < 16; j++ {
		qs[j] = l[j] | l[j+16]<<4
	}
}

// QuantizeIQ4_NL quantizes len(src) elements (a multiple of 32) into IQ4_NL blocks, following ggml's
// quantize_iq4_nl without importance weights.
func QuantizeIQ4_NL(src []float32, dst []byte) {
	var l [QK]uint8
	for i := 0; i < len(src)/QK; i++ {
		x := src[i*QK : i*QK+QK]
		b := dst[i*18 : i*18+18]
		d := iq4BlockScale(x, l[:])
		putF16(b, 0, d)
		id := inv(d)
		for j, v := range x {
			l[j] = uint8(bestIndexIQ4(id * v))
		}
		packNibbles32(l[:], b[2:18])
	}
}

// QuantizeIQ4_XS quantizes len(src) elements (a multiple of 256) into IQ4_XS blocks, following ggml's
// quantize_iq4_xs without importance weights.
func QuantizeIQ4_XS(src []float32, dst []byte) {
	var (
		l      [QKK]uint8
		scales [8]float32
	)
	for i := 0; i < len(src)/QKK; i++ {
		x := src[i*QKK : i*QKK+QKK]
		b := dst[i*136 : i*136+136]
		var maxScale, amaxScale float32
		for k := 0; k < 8; k++ {
			scales[k] = iq4BlockScale(x[32*k:32*k+32], l[32*k:32*k+32])
			if a := abs32(scales[k]); a > amaxScale {
				amaxScale, maxScale = a, scales[k]
			}
		}
		d := -maxScale / 32
		putF16(b, 0, d)
		id := inv(d)
		var h uint16
		for k := 0; k < 8; k++ {
			ls := clampInt(nearestInt(id*scales[k]), -32, 31)
			idl := inv(d * float32(ls))
			for j, v := range x[32*k : 32*k+32] {
				l[32*k+j] = uint8(bestIndexIQ4(idl * v))
			}
			ls += 32
			if k%2 == 0 {
				b[4+k/2] = byte(ls & 0xf)
			} else {
				b[4+k/2] |= byte(ls&0xf) << 4
			}
			h |= uint16(ls>>4) << (2 * k)
			packNibbles32(l[32*k:32*k+32], b[8+16*k:8+16*k+16])
		}
		binary.LittleEndian.PutUint16(b[2:], h)
	}
}
