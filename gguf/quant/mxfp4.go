package quant

// MXFP4 (OCP microscaling FP4): 17 bytes / 32 elements = 4.25 bits per weight.
//
//	e  uint8       shared E8M0 exponent
//	qs [16]byte    E2M1 codes, nibbles as in Q4_0
//	x = kvaluesMXFP4[q]·2^(e−128)
//
// The table holds twice the E2M1 values (0, ±0.5, ±1, ±1.5, ±2, ±3, ±4, ±6), so the scale is half of 2^(e−127).
// Quantization is ggml's quantize_row_mxfp4_ref: e = floor(log2(amax)) − 2 + 127, each element to the
// nearest level (the first one on ties).

import "math"

var kvaluesMXFP4 = [16]int8{0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12}

// e8m0Half returns 2^(e−128) as a float32 (ggml's GGML_E8M0_TO_FP32_HALF), subnormal for e < 2.
func e8m0Half(e uint8) float32 {
	if e < 2 {
		return math.Float32frombits(0x00200000 << e)
	}
	return math.Float32frombits(uint32(e-1) << 23)
}

// DequantizeMXFP4 expands len(dst) elements (a multiple of 32) from MXFP4 blocks in src.
func DequantizeMXFP4(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QK; i++ {
		b := src[i*17 : i*17+17]
		y := dst[i*QK : i*QK+QK]
		d := e8m0Half(b[0])
		for j := 0; j < 16; j++ {
			y[j] = float32(kvaluesMXFP4[b[1+j]&0xf]) * d
			y[j+16] = float32(kvaluesMXFP4[b[1+j]>>4]) * d
		}
	}
}

func bestIndexMXFP4(x, d float32) uint8 {
	best := 0
	bestErr := abs32(float32(float32(kvaluesMXFP4[0])*d) - x)
	for i := 1; i < 16; i++ {
		if err := abs32(float32(float32(kvaluesMXFP4[i])*d) - x); err < bestErr {
			best, bestErr = i, err
		}
	}
	return uint8(best)
}

// QuantizeMXFP4 quantizes len(src) elements (a multiple of 32) into MXFP4 blocks, following ggml's
// quantize_row_mxfp4_ref.
func QuantizeMXFP4(src []float32, dst []byte) {
	for i := 0; i < len(src)/QK; i++ {
		x := src[i*QK : i*QK+QK]
		b := dst[i*17 : i*17+17]
		var amax float32
		for _, v := range x {
			if a := abs32(v); amax < a {
				amax = a
			}
		}
		var e uint8
		if amax > 0 {
			// floorf(log2f(amax)) in float32, as ggml computes it
			lg := float32(math.Log2(float64(amax)))
			e = uint8(int(math.Floor(float64(lg))) - 2 + 127)
		}
		b[0] = e
		d := e8m0Half(e)
		for j := 0; j < 16; j++ {
			b[1+j] = bestIndexMXFP4(x[j], d) | bestIndexMXFP4(x[j+16], d)<<4
		}
	}
}
