//go:build amd64 && !noasm

package cpu

import (
	"math"

	"golang.org/x/sys/cpu"
)

var hasAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// vexpSumFast handles the first len(x)&^15 elements of expSum and returns how many and their total.
func vexpSumFast(x, y []float32, m float32) (int, float64) {
	n := len(x) &^ 15
	if !hasAVX512 || n == 0 {
		return 0, 0
	}
	_ = y[n-1]
	return n, vexpSumAVX512(n, &x[0], &y[0], m)
}

// vsiluFast handles the first len(x)&^15 elements of siluVec (u nil) or swiGLUVec and returns how many.
func vsiluFast(x, y, u []float32) int {
	n := len(x) &^ 15
	if !hasAVX512 || n == 0 {
		return 0
	}
	_ = y[n-1]
	if u == nil {
		vsiluAVX512(n, &x[0], &y[0], nil)
	} else {
		_ = u[n-1]
		vsiluAVX512(n, &x[0], &y[0], &u[0])
	}
	return n
}

//go:noescape
func vexpSumAVX512(n int, x, y *float32, m float32) float64

// vsiluAVX512 sets y = silu(x), times u when u is not nil.
//
//go:noescape
func vsiluAVX512(n int, x, y, u *float32)

// scaleMaxFast handles the first len(x)&^15 elements of scaleMaxVec.
func scaleMaxFast(x []float32, f float32) (int, float32) {
	n := len(x) &^ 15
	if !hasAVX512 || n == 0 {
		return 0, float32(math.Inf(-1))
	}
	return n, scaleMaxAVX512(n, &x[0], f)
}

// roundF16Fast handles the first len(x)&^15 elements of roundF16Vec (VCVTPS2PH rounds to nearest even, as
// quant.F32ToF16; they differ only in the payload of NaNs).
func roundF16Fast(x []float32) int {
	n := len(x) &^ 15
	if !hasAVX512 || n == 0 {
		return 0
	}
	roundF16AVX512(n, &x[0])
	return n
}

//go:noescape
func scaleMaxAVX512(n int, x *float32, f float32) float32

//go:noescape
func roundF16AVX512(n int, x *float32)
