//go:build amd64 && !noasm

package quant

func quantizeQ8Chunk(src []float32, dst []byte, stride, qOff int, d []float32, sums []int32) {
	nb := len(d)
	if !hasAVX2 || nb == 0 {
		quantizeQ8ChunkRef(src, dst, stride, qOff, d, sums)
		return
	}
	_, _, _ = src[nb*QK-1], dst[(nb-1)*stride+qOff+QK-1], sums[nb-1]
	quantizeQ8AVX2(nb, &src[0], &dst[qOff], stride, &d[0], &sums[0])
}

// quantizeQ8AVX2 is quantizeQ8ChunkRef for nb blocks, the quants of block i at qs + i*stride.
//
//go:noescape
func quantizeQ8AVX2(nb int, src *float32, qs *byte, stride int, d *float32, sums *int32)

// quantizeQ8KFast quantizes whole blocks (the caller has sized src and dst) if the CPU has AVX2.
func quantizeQ8KFast(src []float32, dst []byte) bool {
	if !hasAVX2 {
		return false
	}
	quantizeQ8KAVX2(len(src)/QKK, &src[0], &dst[0])
	return true
}

// quantizeQ8KAVX2 is quantizeQ8KRef for nb blocks.
//
//go:noescape
func quantizeQ8KAVX2(nb int, src *float32, dst *byte)

// f32ToF16Fast converts the first len(src)&^7 values of QuantizeF16 with VCVTPS2PH (rounding to nearest even,
// as F32ToF16) and returns how many; 0 where the CPU has no F16C, or where src holds a NaN, whose payload
// VCVTPS2PH keeps and F32ToF16 does not (the caller converts them).
func f32ToF16Fast(src []float32, dst []byte) int {
	n := len(src) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	_ = dst[2*n-1]
	if f32ToF16AVX2(n, &src[0], &dst[0]) {
		return 0
	}
	return n
}

// f32ToBF16Fast converts the first len(src)&^15 values of QuantizeBF16 (exactly F32ToBF16, NaNs included) and
// returns how many; 0 where the CPU has no AVX2.
func f32ToBF16Fast(src []float32, dst []byte) int {
	n := len(src) &^ 15
	if !hasAVX2 || n == 0 {
		return 0
	}
	_ = dst[2*n-1]
	f32ToBF16AVX2(n, &src[0], &dst[0])
	return n
}

// f32ToBF16AVX2 is QuantizeBF16 of n (a multiple of 16) float32 at src.
//
//go:noescape
func f32ToBF16AVX2(n int, src *float32, dst *byte)

// f32RoundF16Fast sets dst (float32 bytes) to the first len(src)&^7 values of src rounded to F16 and back
// (quantizeF16T's values) and returns how many; 0 where the CPU has no F16C or src holds a NaN.
func f32RoundF16Fast(src []float32, dst []byte) int {
	n := len(src) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	_ = dst[4*n-1]
	if f32RoundF16AVX2(n, &src[0], &dst[0]) {
		return 0
	}
	return n
}

// f32RoundF16AVX2 is f32RoundF16Fast's kernel for n (a multiple of 8) values; it reports a NaN.
//
//go:noescape
func f32RoundF16AVX2(n int, src *float32, dst *byte) bool

// f32ToF16AVX2 converts n (a multiple of 8) float32 at src to F16 at dst and reports whether any was a NaN.
//
//go:noescape
func f32ToF16AVX2(n int, src *float32, dst *byte) bool
