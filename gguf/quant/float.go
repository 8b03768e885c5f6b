package quant

// Plain floating-point types.
//
//	F32   4 bytes  IEEE-754 binary32, little-endian                         32 bits per weight
//	F16   2 bytes  IEEE-754 binary16, little-endian                         16 bits per weight
//	BF16  2 bytes  bfloat16: the upper 16 bits of a binary32, little-endian 16 bits per weight
//
// F32 → F16 rounds to nearest, ties to even (ggml's GGML_FP32_TO_FP16, identical to the F16C instruction);
// values beyond the F16 range become ±Inf and every NaN becomes the quiet NaN 0x7E00 with its sign.
// F32 → BF16 rounds to nearest, ties to even, keeps subnormals, and makes NaNs quiet by setting bit 6
// (ggml_compute_fp32_to_bf16). Widening (F16 → F32, BF16 → F32) is exact.

import (
	"encoding/binary"
	"math"

	"github.com/x448/float16"
)

// f16Table holds F16ToF32 for every bit pattern. Read-only after init. A table lookup is several times
// faster than converting in the dequantization hot path (see BenchmarkF16ToF32).
var f16Table = func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = float16.Frombits(uint16(i)).Float32()
	}
	return &t
}()

// F16ToF32 widens an IEEE half (as its bit pattern) to float32; exact.
func F16ToF32(h uint16) float32 { return f16Table[h] }

// F32ToF16 rounds f to the nearest IEEE half (ties to even) and returns its bit pattern, as ggml does.
// (Bit arithmetic rather than x448/float16.Fromfloat32: several times faster, and NaNs come out as ggml's
// canonical 0x7E00; TestF16RoundsToNearestEven checks every midpoint.)
func F32ToF16(f float32) uint16 {
	u := math.Float32bits(f)
	sign := uint16(u>>16) & 0x8000
	a := u & 0x7fffffff
	switch {
	case a > 0x7f800000: // NaN: canonical quiet NaN, sign kept
		return sign | 0x7e00
	case a >= 0x477ff000: // |f| ≥ 65520 (and Inf) rounds to Inf
		return sign | 0x7c00
	case a >= 0x38800000: // normal half: rebias the exponent, round away 13 mantissa bits to even
		v := a - 0x38000000
		v += 0x0fff + (v>>13)&1
		return sign | uint16(v>>13)
	default: // subnormal half or zero: count units of 2^-24, rounding to even by adding 2^23
		units := math.Float32frombits(a)*0x1p24 + 0x1p23
		return sign | uint16(math.Float32bits(units)-0x4b000000)
	}
}

// BF16ToF32 widens a bfloat16 (as its bit pattern) to float32; exact.
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F32ToBF16 rounds f to the nearest bfloat16 (ties to even) and returns its bit pattern; NaNs stay quiet.
func F32ToBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 64
	}
	return uint16((u + 0x7fff + (u>>16)&1) >> 16)
}

// Little-endian field access shared by all block formats.

func f16at(b []byte, off int) float32 { return f16Table[binary.LittleEndian.Uint16(b[off:])] }

func putF16(b []byte, off int, f float32) { binary.LittleEndian.PutUint16(b[off:], F32ToF16(f)) }

func f32at(b []byte, off int) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(b[off:]))
}

func putF32(b []byte, off int, f float32) {
	binary.LittleEndian.PutUint32(b[off:], math.Float32bits(f))
}

// DequantizeF32 copies len(dst) little-endian float32 values from src.
func DequantizeF32(src []byte, dst []float32) {
	src = src[:4*len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
	}
}

// DequantizeF16 widens len(dst) little-endian halves from src.
func DequantizeF16(src []byte, dst []float32) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = f16Table[uint16(src[2*i])|uint16(src[2*i+1])<<8]
	}
}

// DequantizeBF16 widens len(dst) little-endian bfloat16 values from src.
func DequantizeBF16(src []byte, dst []float32) {
	src = src[:2*len(dst)]
	for i := range dst {
		dst[i] = math.Float32frombits(uint32(src[2*i])<<16 | uint32(src[2*i+1])<<24)
	}
}

// QuantizeF32 stores src as little-endian float32 into dst[:4*len(src)].
func QuantizeF32(src []float32, dst []byte) {
	dst = dst[:4*len(src)]
	for i, v := range src {
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
	}
}

// QuantizeF16 rounds src to halves into dst[:2*len(src)].
func QuantizeF16(src []float32, dst []byte) {
	dst = dst[:2*len(src)]
	done := f32ToF16Fast(src, dst)
	for i, v := range src[done:] {
		i += done
		binary.LittleEndian.PutUint16(dst[2*i:], F32ToF16(v))
	}
}

// QuantizeBF16 rounds src to bfloat16 into dst[:2*len(src)].
func QuantizeBF16(src []float32, dst []byte) {
	dst = dst[:2*len(src)]
	done := f32ToBF16Fast(src, dst)
	for i, v := range src[done:] {
		i += done
		binary.LittleEndian.PutUint16(dst[2*i:], F32ToBF16(v))
	}
}
