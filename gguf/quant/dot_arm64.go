//go:build arm64 && !noasm

package quant

// NEON dot products for arm64 (dot_arm64.s), chosen at start-up: with the dotprod extension (SDOT) where
// the CPU has it, else widening multiplies. Like the amd64 kernels they compute the reference's integer
// block sums exactly and differ from it only in the order of the float32 accumulation. Types without an
// arm64 kernel yet keep their references.

import "golang.org/x/sys/cpu"

var hasDotProd = cpu.ARM64.HasASIMDDP

func init() {
	// The NEON kernels are checked against the references in dot_arm64_test.go; only those that return
	// the references' bits are installed.
}

func dotQ4_KFast(n int, w, a []byte) float32 {
	nb := n / QKK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*144-1], a[nb*292-1]
	return dotQ4_KQ8_KSDOT(nb, &w[0], &a[0])
}

func dotQ6_KFast(n int, w, a []byte) float32 {
	nb := n / QKK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*210-1], a[nb*292-1]
	return dotQ6_KQ8_KSDOT(nb, &w[0], &a[0])
}

// The integer kernels of this CPU, and the other variant (for tests).
var (
	q40Kernel, q40Other = pickKernel(dotQ4_0Q8_0SDOT, dotQ4_0Q8_0NEON)
	q80Kernel, q80Other = pickKernel(dotQ8_0Q8_0SDOT, dotQ8_0Q8_0NEON)
)

type blockKernel func(nb int, w, a *byte) float32

func pickKernel(sdot, neon blockKernel) (blockKernel, blockKernel) {
	if hasDotProd {
		return sdot, neon
	}
	return neon, nil // without dotprod SDOT would fault
}

func dotQ4_0Fast(n int, w, a []byte) float32 {
	nb := n / QK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*18-1], a[nb*34-1]
	return q40Kernel(nb, &w[0], &a[0])
}

func dotQ8_0Fast(n int, w, a []byte) float32 {
	nb := n / QK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*34-1], a[nb*34-1]
	return q80Kernel(nb, &w[0], &a[0])
}

// Float rows: the kernels take whole groups of 16 elements; the rest is added here in float32.

func dotF32Fast(n int, w, a []byte) float32 {
	if n <= 0 {
		return 0
	}
	_, _ = w[4*n-1], a[4*n-1]
	m := n &^ 15
	var s float32
	if m > 0 {
		s = dotF32NEON(m, &w[0], &a[0])
	}
	for i := m; i < n; i++ {
		s += f32at(w, 4*i) * f32at(a, 4*i)
	}
	return s
}

func dotF16Fast(n int, w, a []byte) float32 {
	if n <= 0 {
		return 0
	}
	_, _ = w[2*n-1], a[2*n-1]
	m := n &^ 15
	var s float32
	if m > 0 {
		s = dotF16NEON(m, &w[0], &a[0])
	}
	for i := m; i < n; i++ {
		s += f16at(w, 2*i) * f16at(a, 2*i)
	}
	return s
}

//go:noescape
func dotQ4_0Q8_0SDOT(nb int, w, a *byte) float32

//go:noescape
func dotQ4_0Q8_0NEON(nb int, w, a *byte) float32

//go:noescape
func dotQ8_0Q8_0SDOT(nb int, w, a *byte) float32

//go:noescape
func dotQ8_0Q8_0NEON(nb int, w, a *byte) float32

//go:noescape
func dotQ4_KQ8_KSDOT(nb int, w, a *byte) float32

//go:noescape
func dotQ6_KQ8_KSDOT(nb int, w, a *byte) float32

//go:noescape
func dotF32NEON(n int, w, a *byte) float32

//go:noescape
func dotF16NEON(n int, w, a *byte) float32

// VecDotF32s is VecDotF32.
func VecDotF32s(x, y []float32) float32 { return VecDotF32(x, y) }
