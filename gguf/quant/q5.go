package quant

// 5-bit quants with one scale per block of 32 elements.
//
//	Q5_0  22 bytes / 32 elements = 5.5 bits per weight
//	      d  f16       scale
//	      qh [4]byte   little-endian uint32: bit j is the fifth bit of element j
//	      qs [16]byte  low four bits; element j (0…15) in the low nibble of qs[j], element j+16 in the high one
//	      x = d·(q − 16)
//	Q5_1  24 bytes / 32 elements = 6 bits per weight
//	      d  f16, m f16, qh [4]byte, qs [16]byte as above
//	      x = d·q + m
//
// Quantization (ggml quantize_row_q5_0_ref / q5_1_ref): Q5_0 uses d = max/−16 with the signed element of
// largest magnitude and q = min(31, trunc(x/d + 16.5)); Q5_1 uses d = (max − min)/31, m = min and
// q = trunc((x − min)/d + 0.5).

import "encoding/binary"

// DequantizeQ5_0 expands len(dst) elements (a multiple of 32) from Q5_0 blocks in src.
func DequantizeQ5_0(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := src[i*22 : i*22+22]
		y := dst[i*QK : i*QK+QK]
		d := f16at(b, 0)
		qh := binary.LittleEndian.Uint32(b[2:])
		for j := 0; j < 16; j++ {
			q := b[6+j]
			h0 := byte(qh>>j<<4) & 0x10
			h1 := byte(qh>>(j+12)) & 0x10
			y[j] = float32(int(q&15|h0)-16) * d
			y[j+16] = float32(int(q>>4|h1)-16) * d
		}
	}
}

// DequantizeQ5_1 expands len(dst) elements (a multiple of 32) from Q5_1 blocks in src.
func DequantizeQ5_1(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := src[i*24 : i*24+24]
		y := dst[i*QK : i*QK+QK]
		d, m := f16at(b, 0), f16at(b, 2)
		qh := binary.LittleEndian.Uint32(b[4:])
		for j := 0; j < 16; j++ {
			q := b[8+j]
			h0 := byte(qh>>j<<4) & 0x10
			h1 := byte(qh>>(j+12)) & 0x10
			y[j] = float32(float32(q&15|h0)*d) + m
			y[j+16] = float32(float32(q>>4|h1)*d) + m
		}
	}
}

// packQ5 stores 32 five-bit values: low nibbles into qs[0:16], fifth bits into the uint32 at qh.
func packQ5(l *[32]uint8, qh, qs []byte) {
	var h uint32
	for j := 0; j < 16; j++ {
		qs[j] = l[j]&15 | (l[j+16]&15)<<4
		h |= uint32(l[j]>>4&1) << j
		h |= uint32(l[j+16]>>4&1) << (j + 16)
	}
	binary.LittleEndian.PutUint32(qh, h)
}

// QuantizeQ5_0 quantizes len(src) elements (a multiple of 32) into Q5_0 blocks in dst, bit-exact with
// ggml's quantize_row_q5_0_ref.
func QuantizeQ5_0(src []float32, dst []byte) {
	var l [32]uint8
	for i := 0; i < len(src)/QK; i++ {
		x := src[i*QK : i*QK+QK]
		b := dst[i*22 : i*22+22]
		d := signedAbsMax(x) / -16
		id := inv(d)
		putF16(b, 0, d)
		for j, v := range x {
			l[j] = uint8(min(31, int(float32(v*id)+16.5)))
		}
		packQ5(&l, b[2:6], b[6:22])
	}
}

// QuantizeQ5_1 quantizes len(src) elements (a multiple of 32) into Q5_1 blocks in dst, bit-exact with
// ggml's quantize_row_q5_1_ref.
func QuantizeQ5_1(src []float32, dst []byte) {
	var l [32]uint8
	for i := 0; i < len(src)/QK; i++ {
		x := src[i*QK : i*QK+QK]
		b := dst[i*24 : i*24+24]
		min_, max_ := minMax(x)
		d := (max_ - min_) / 31
		id := inv(d)
		putF16(b, 0, d)
		putF16(b, 2, min_)
		for j, v := range x {
			l[j] = uint8(int(float32((v-min_)*id) + 0.5))
		}
		packQ5(&l, b[4:8], b[8:24])
	}
}
