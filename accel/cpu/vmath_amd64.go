//go:build amd64 && !noasm

package cpu

import (
	"golang.org/x/sys/cpu"

	"github.com/forma-llm/forma/gguf/quant"
)

// hasAVX512: the CPU has the extensions these kernels use and FORMA_CPU allows AVX-512 (quant.ForcedCPU).
var hasAVX512 = quant.ForcedCPU() == quant.CPUNative && cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ

// vexpFast handles the first len(x)&^15 elements of vexpVec (&^7 with AVX2 alone) and returns how many.
func vexpFast(x, y []float32, m float32) int {
	if !hasAVX512 {
		return vexpFastAVX2(x, y, m)
	}
	n := len(x) &^ 15
	if n == 0 {
		return 0
	}
	_ = y[n-1]
	vexpAVX512(n, &x[0], &y[0], m)
	return n
}

// vexpFastAVX2 handles the first len(x)&^7 elements of vexpVec where the CPU has AVX2 (not AVX-512).
func vexpFastAVX2(x, y []float32, m float32) int {
	n := len(x) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	_ = y[n-1]
	vexpAVX2(n, &x[0], &y[0], m)
	return n
}

// vsiluFast handles the first len(x)&^15 elements of siluVec (u nil) or swiGLUVec and returns how many.
func vsiluFast(x, y, u []float32) int {
	if !hasAVX512 {
		return vsiluFastAVX2(x, y, u)
	}
	n := len(x) &^ 15
	if n == 0 {
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

// roundF16Fast handles the first len(x)&^15 elements of roundF16Vec (&^7 with AVX2 alone: x·1 rounded, the
// same values) (VCVTPS2PH rounds to nearest even, as quant.F32ToF16; they differ only in the payload of NaNs).
func roundF16Fast(x []float32) int {
	if !hasAVX512 {
		return mulRoundF16Fast(x, 1)
	}
	n := len(x) &^ 15
	if n == 0 {
		return 0
	}
	roundF16AVX512(n, &x[0])
	return n
}

//go:noescape
func vexpAVX512(n int, x, y *float32, m float32)

// vsiluAVX512 sets y = silu(x), times u when u is not nil.
//
//go:noescape
func vsiluAVX512(n int, x, y, u *float32)

//go:noescape
func roundF16AVX512(n int, x *float32)

//go:noescape
func vexpAVX2(n int, x, y *float32, m float32)

// vsiluFastAVX2 handles the first len(x)&^7 elements of siluVec or swiGLUVec where the CPU has AVX2 (not
// AVX-512).
func vsiluFastAVX2(x, y, u []float32) int {
	n := len(x) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	_ = y[n-1]
	if u == nil {
		vsiluAVX2(n, &x[0], &y[0], nil)
	} else {
		_ = u[n-1]
		vsiluAVX2(n, &x[0], &y[0], &u[0])
	}
	return n
}

//go:noescape
func vsiluAVX2(n int, x, y, u *float32)

// binaryFast sets y = a + b (add) or a · b for the first len(y)&^7 elements where the CPU has AVX2, and returns
// how many.
func binaryFast(add bool, a, b, y []float32) int {
	n := len(y) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	_, _ = a[n-1], b[n-1]
	if add {
		addAVX2(n, &a[0], &b[0], &y[0])
	} else {
		mulAVX2(n, &a[0], &b[0], &y[0])
	}
	return n
}

//go:noescape
func addAVX2(n int, a, b, y *float32)

//go:noescape
func mulAVX2(n int, a, b, y *float32)

// expfVecFast sets y[i] = expf(x[i]) for the first len(x)&^7 elements with AVX-512 (expfVecAVX512) or AVX2
// (expfVecAVX2) and returns how many; the few lanes the kernels leave to expf are done here.
func expfVecFast(x, y []float32) int {
	n := len(x) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	_ = y[n-1]
	if expfVecKernel(n, &x[0], &y[0]) > 0 {
		for i, v := range y[:n] {
			if v != v {
				y[i] = expf(x[i])
			}
		}
	}
	return n
}

// expfVecKernel is expfVecAVX512 where the CPU has AVX-512, else expfVecAVX2.
func expfVecKernel(n int, x, y *float32) int {
	if hasAVX512 {
		return expfVecAVX512(n, x, y)
	}
	return expfVecAVX2(n, x, y)
}

//go:noescape
func expfVecAVX512(n int, x, y *float32) int

//go:noescape
func expfVecAVX2(n int, x, y *float32) int

// expfVecLeft runs the vector path of expfVec on x (len(x) a multiple of 8) and returns how many lanes it left
// to expf; -1 without it. For tests.
func expfVecLeft(x, y []float32) int {
	if !hasAVX2 {
		return -1
	}
	return expfVecKernel(len(x), &x[0], &y[0])
}
