package quant

// 4-bit quants with one scale per block of 32 elements.
//
//	Q4_0  18 bytes / 32 elements = 4.5 bits per weight
//	      d  f16       scale
//	      qs [16]byte  element j (0…15) in the low nibble of qs[j], element j+16 in the high nibble
//	      x = d·(q − 8)
//	Q4_1  20 bytes / 32 elements = 5 bits per weight
//	      d  f16       scale
//	      m  f16       minimum (offset)
//	      qs [16]byte  nibbles as in Q4_0
//	      x = d·q + m
//
// Quantization (ggml quantize_row_q4_0_ref / q4_1_ref): Q4_0 takes the element of largest magnitude,
// keeping its sign, and sets d = max/−8 so that it maps to q = 0; q = min(15, trunc(x/d + 8.5)). Q4_1 uses
// d = (max − min)/15, m = min and q = min(15, trunc((x − min)/d + 0.5)).

import "math"

// DequantizeQ4_0 expands len(dst) elements (a multiple of 32) from Q4_0 blocks in src.
func DequantizeQ4_0(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := src[i*18 : i*18+18]
		y := dst[i*QK : i*QK+QK]
		d := f16at(b, 0)
		for j := 0; j < 16; j++ {
			q := b[2+j]
			y[j] = float32(int(q&15)-8) * d
			y[j+16] = float32(int(q>>4)-8) * d
		}
	}
}

// DequantizeQ4_1 expands len(dst) elements (a multiple of 32) from Q4_1 blocks in src.
func DequantizeQ4_1(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := src[i*20 : i*20+20]
		y := dst[i*QK : i*QK+QK]
		d, m := f16at(b, 0), f16at(b, 2)
		for j := 0; j < 16; j++ {
			q := b[4+j]
			y[j] = float32(float32(q&15)*d) + m
			y[j+16] = float32(float32(q>>4)*d) + m
		}
	}
}

// signedAbsMax returns the element of largest magnitude with its sign (the first one on ties).
func signedAbsMax(x []float32) float32 {
	var amax, max float32
	for _, v := range x {
		if a := abs32(v); amax < a {
			amax, max = a, v
		}
	}
	return max
}

func abs32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }

// minMax returns the smallest and largest element, starting from ±FLT_MAX as ggml does.
func minMax(x []float32) (float32, float32) {
	min, max := float32(math.MaxFloat32), float32(-math.MaxFloat32)
	for _, v := range x {
		if v < min {
			min = v
		}
		if v > max {
			max = v
		}
	}
	return min, max
}

func inv(d float32) float32 {
	if d != 0 {
		return 1 / d
	}
	return 0
}

// QuantizeQ4_0 quantizes len(src) elements (a multiple of 32) into Q4_0 blocks in dst, bit-exact with
// ggml's quantize_row_q4_0_ref.
func QuantizeQ4_0(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		x := src[i*QK : i*QK+QK]
		b := dst[i*18 : i*18+18]
		d := signedAbsMax(x) / -8
		id := inv(d)
		putF16(b, 0, d)
		for j := 0; j < 16; j++ {
			q0 := min(15, int(float32(x[j]*id)+8.5))
			q1 := min(15, int(float32(x[j+16]*id)+8.5))
			b[2+j] = byte(q0) | byte(q1)<<4
		}
	}
}

// QuantizeQ4_1 quantizes len(src) elements (a multiple of 32) into Q4_1 blocks in dst, bit-exact with
// ggml's quantize_row_q4_1_ref.
func QuantizeQ4_1(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		x := src[i*QK : i*QK+QK]
		b := dst[i*20 : i*20+20]
		min_, max_ := minMax(x)
		d := (max_ - min_) / 15
		id := inv(d)
		putF16(b, 0, d)
		putF16(b, 2, min_)
		for j := 0; j < 16; j++ {
			q0 := min(15, int(float32((x[j]-min_)*id)+0.5))
			q1 := min(15, int(float32((x[j+16]-min_)*id)+0.5))
			b[4+j] = byte(q0) | byte(q1)<<4
		}
	}
}
