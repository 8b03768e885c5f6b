package quant

// 8-bit quants. Q8_0 is also a weight type; Q8_1 and Q8_K exist to carry activations into dot products.
//
//	Q8_0  34 bytes / 32 elements = 8.5 bits per weight
//	      d  f16        scale
//	      qs [32]int8
//	      x = d·q
//	Q8_1  36 bytes / 32 elements = 9 bits per weight
//	      d  f16        scale
//	      s  f16        d·Σqs, precomputed for the weight's offset term (Q4_1, Q5_1)
//	      qs [32]int8
//	      x = d·q
//	Q8_K  292 bytes / 256 elements = 9.125 bits per weight
//	      d     float32     scale
//	      qs    [256]int8
//	      bsums [16]int16   bsums[k] = Σ qs[16k … 16k+15], for the K-quants' minimum terms
//	      x = d·q
//
// Weight quantization of Q8_0 (Quantize, QuantizeQ8_0Ref) is ggml's quantize_row_q8_0_ref: d = amax/127,
// q = roundf(x·(1/d)) with ties away from zero.
//
// Activation quantization (QuantizeQ8_0, QuantizeQ8_1) is what llama.cpp's x86 CPU backend (AVX/AVX2, the
// build that produced forma's reference data) does: d = amax/127 as above, but q = round-half-even(x·(127/amax)).
// It differs from the reference only where x·(127/amax) and x·(1/d) straddle a rounding boundary or fall on a
// tie — rarely, and by one step in q. QuantizeQ8_K is ggml's quantize_row_q8_K_ref, which every CPU backend
// uses: with max the signed element of largest magnitude, iscale = −127/max, q = min(127, nearest(iscale·x))
// (ties to even), d = 1/iscale; an all-zero block gets d = 0 and zero quants and sums.

import (
	"encoding/binary"
	"math"
)

// DequantizeQ8_0 expands len(dst) elements (a multiple of 32) from Q8_0 blocks in src.
func DequantizeQ8_0(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := src[i*34 : i*34+34]
		y := dst[i*QK : i*QK+QK]
		d := f16at(b, 0)
		for j := range y {
			y[j] = float32(int8(b[2+j])) * d
		}
	}
}

// DequantizeQ8_1 expands len(dst) elements (a multiple of 32) from Q8_1 blocks in src (s is not used).
func DequantizeQ8_1(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := src[i*36 : i*36+36]
		y := dst[i*QK : i*QK+QK]
		d := f16at(b, 0)
		for j := range y {
			y[j] = float32(int8(b[4+j])) * d
		}
	}
}

// DequantizeQ8_K expands len(dst) elements (a multiple of 256) from Q8_K blocks in src.
func DequantizeQ8_K(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := src[i*292 : i*292+292]
		y := dst[i*QKK : i*QKK+QKK]
		d := f32at(b, 0)
		for j := range y {
			y[j] = d * float32(int8(b[4+j]))
		}
	}
}

func absMax(x []float32) float32 {
	var amax float32
	for _, v := range x {
		if a := abs32(v); !(amax > a) { // ggml's MAX(amax, a), branch-cheap unlike the builtin max
			amax = a
		}
	}
	return amax
}

// QuantizeQ8_0Ref quantizes len(src) elements (a multiple of 32) into Q8_0 blocks, bit-exact with ggml's
// quantize_row_q8_0_ref (the weight quantizer; Quantize(Q8_0, …) calls it).
func QuantizeQ8_0Ref(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		x := src[i*QK : i*QK+QK]
		b := dst[i*34 : i*34+34]
		d := absMax(x) / 127
		id := inv(d)
		putF16(b, 0, d)
		for j, v := range x {
			b[2+j] = byte(int8(roundHalfAway(v * id)))
		}
	}
}

// QuantizeQ8_1Ref quantizes len(src) elements (a multiple of 32) into Q8_1 blocks, bit-exact with ggml's
// quantize_row_q8_1_ref.
func QuantizeQ8_1Ref(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		x := src[i*QK : i*QK+QK]
		b := dst[i*36 : i*36+36]
		d := absMax(x) / 127
		id := inv(d)
		putF16(b, 0, d)
		sum := 0
		for j, v := range x {
			q := int8(roundHalfAway(v * id))
			b[4+j] = byte(q)
			sum += int(q)
		}
		putF16(b, 2, float32(sum)*d)
	}
}

// quantizeQ8x86 quantizes one block of 32 the way ggml's AVX2 quantize_row_q8_0/q8_1 do, writing the quants
// to qs and returning d and the sum of the quants.
func quantizeQ8x86(x []float32, qs []byte) (float32, int) {
	x, qs = x[:QK], qs[:QK]
	amax := absMax(x)
	d := amax / 127
	var id float32
	if amax != 0 {
		id = 127 / amax
	}
	sum := 0
	for j, v := range x {
		q := max(-128, min(127, nearestInt(v*id))) // the pack instructions saturate
		qs[j] = byte(int8(q))
		sum += q
	}
	return d, sum
}

// QuantizeQ8_0 quantizes an activation row of len(src) elements (a multiple of 32) into Q8_0 blocks, as
// llama.cpp's x86 CPU backend does before a dot product with Q4_0, Q5_0, Q8_0, IQ4_NL or MXFP4 weights.
func QuantizeQ8_0(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		b := dst[i*34 : i*34+34]
		d, _ := quantizeQ8x86(src[i*QK:i*QK+QK], b[2:34])
		putF16(b, 0, d)
	}
}

// QuantizeQ8_1 quantizes an activation row of len(src) elements (a multiple of 32) into Q8_1 blocks, as
// llama.cpp's x86 CPU backend does before a dot product with Q4_1 or Q5_1 weights.
func QuantizeQ8_1(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		b := dst[i*36 : i*36+36]
		d, sum := quantizeQ8x86(src[i*QK:i*QK+QK], b[4:36])
		putF16(b, 0, d)
		putF16(b, 2, d*float32(sum))
	}
}

// QuantizeQ8_K quantizes len(src) elements (a multiple of 256) into Q8_K blocks, bit-exact with ggml's
// quantize_row_q8_K_ref (the activation quantizer for K-quant and IQ4_XS weights).
func QuantizeQ8_K(src []float32, dst []byte) {
	for i := 0; i < len(src)/QKK; i++ {
		x := src[i*QKK : i*QKK+QKK]
		b := dst[i*292 : i*292+292]
		max_ := signedAbsMax(x)
		if max_ == 0 {
			clear(b)
			continue
		}
		iscale := -127 / max_
		for j, v := range x {
			b[4+j] = byte(int8(min(127, nearestInt(iscale*v))))
		}
		for k := 0; k < 16; k++ {
			s := 0
			for _, q := range b[4+16*k : 4+16*k+16] {
				s += int(int8(q))
			}
			binary.LittleEndian.PutUint16(b[260+2*k:], uint16(int16(s)))
		}
		putF32(b, 0, 1/iscale)
	}
}

// roundHalfAway is C's roundf for |f| < 2^31: nearest integer, ties away from zero.
func roundHalfAway(f float32) int {
	f = float32(f)         // round a caller's product before the subtraction below (no FMA)
	t := float32(int32(f)) // truncated; f − t is exact
	switch {
	case f-t >= 0.5:
		return int(t) + 1
	case f-t <= -0.5:
		return int(t) - 1
	}
	return int(t)
}

// nearestInt rounds to the nearest integer, ties to even, by ggml's float trick (valid for |f| < 2^22).
func nearestInt(f float32) int {
	v := float32(f) + 12582912 // the conversion keeps a caller's product from fusing into this add
	return int(math.Float32bits(v)&0x007fffff) - 0x00400000
}
