//go:build amd64 && !noasm

package quant

// SIMD dot products for amd64, in Go assembly written by hand (dot_amd64.s). Each kernel computes the same
// integer block sums as its reference in dot_blocks32.go / dot_kquants.go — for every byte pattern, not only
// for what the quantizers produce — and then scales and accumulates them in float32 lanes as ggml's AVX2 code
// does, so the float result differs from the scalar reference only in accumulation order (see dot_test.go).
//
// The kernels need AVX2, FMA and F16C (every x86-64 CPU since 2013/2015 has them); without them DotFunc
// returns the references.

import "golang.org/x/sys/cpu"

var (
	hasAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C
	hasAVX512 = hasAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL
)

func init() {
	if !hasAVX2 {
		return
	}
	fastDots[F32] = dotF32Fast
	fastDots[F16] = dotF16Fast
	fastDots[BF16] = dotBF16Fast
	fastDots[Q4_0] = dotQ4_0Fast
	fastDots[Q4_1] = dotQ4_1Fast
	fastDots[Q5_0] = dotQ5_0Fast
	fastDots[Q5_1] = dotQ5_1Fast
	fastDots[Q8_0] = dotQ8_0Fast
	fastDots[Q4_K] = dotQ4_KFast
	fastDots[Q5_K] = dotQ5_KFast
	fastDots[Q6_K] = dotQ6_KFast
	if hasAVX512 {
		fastDots[Q4_0] = dotQ4_0Fast512
		fastDots[Q8_0] = dotQ8_0Fast512
	}
}

// The wrappers check that both rows hold nb whole blocks (so the assembly never reads past a slice) and
// hand the kernels the block count and the first bytes.

func dotQ4_0Fast(n int, w, a []byte) float32 {
	nb := n / QK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*18-1], a[nb*34-1]
	return dotQ4_0Q8_0AVX2(nb, &w[0], &a[0])
}

func dotQ4_1Fast(n int, w, a []byte) float32 {
	nb := n / QK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*20-1], a[nb*36-1]
	return dotQ4_1Q8_1AVX2(nb, &w[0], &a[0])
}

func dotQ5_0Fast(n int, w, a []byte) float32 {
	nb := n / QK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*22-1], a[nb*34-1]
	return dotQ5_0Q8_0AVX2(nb, &w[0], &a[0])
}

func dotQ5_1Fast(n int, w, a []byte) float32 {
	nb := n / QK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*24-1], a[nb*36-1]
	return dotQ5_1Q8_1AVX2(nb, &w[0], &a[0])
}

func dotQ8_0Fast(n int, w, a []byte) float32 {
	nb := n / QK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*34-1], a[nb*34-1]
	return dotQ8_0Q8_0AVX2(nb, &w[0], &a[0])
}

// dotQ8_0Fast512 widens whole blocks with AVX-512BW: fewer instructions per byte, which decoding (bound by
// streaming the weights) needs to keep up with memory.
func dotQ8_0Fast512(n int, w, a []byte) float32 {
	nb := n / QK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*34-1], a[nb*34-1]
	return dotQ8_0Q8_0AVX512(nb, &w[0], &a[0])
}

// dotQ4_0Fast512 is dotQ4_0Fast with AVX-512BW (15 instructions per block instead of 18).
func dotQ4_0Fast512(n int, w, a []byte) float32 {
	nb := n / QK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*18-1], a[nb*34-1]
	return dotQ4_0Q8_0AVX512(nb, &w[0], &a[0])
}

func dotQ4_KFast(n int, w, a []byte) float32 {
	nb := n / QKK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*144-1], a[nb*292-1]
	return dotQ4_KQ8_KAVX2(nb, &w[0], &a[0])
}

func dotQ5_KFast(n int, w, a []byte) float32 {
	nb := n / QKK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*176-1], a[nb*292-1]
	return dotQ5_KQ8_KAVX2(nb, &w[0], &a[0])
}

func dotQ6_KFast(n int, w, a []byte) float32 {
	nb := n / QKK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*210-1], a[nb*292-1]
	return dotQ6_KQ8_KAVX2(nb, &w[0], &a[0])
}

// Float rows: the kernels take whole groups of 32 elements; the rest is added here in float32.

func dotF32Fast(n int, w, a []byte) float32 {
	if n <= 0 {
		return 0
	}
	_, _ = w[4*n-1], a[4*n-1]
	m := n &^ 31
	var s float32
	if m > 0 {
		s = dotF32AVX2(m, &w[0], &a[0])
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
	m := n &^ 31
	var s float32
	if m > 0 {
		s = dotF16AVX2(m, &w[0], &a[0])
	}
	for i := m; i < n; i++ {
		s += f16at(w, 2*i) * f16at(a, 2*i)
	}
	return s
}

func dotBF16Fast(n int, w, a []byte) float32 {
	if n <= 0 {
		return 0
	}
	_, _ = w[2*n-1], a[2*n-1]
	m := n &^ 31
	var s float32
	if m > 0 {
		s = dotBF16AVX2(m, &w[0], &a[0])
	}
	for i := m; i < n; i++ {
		s += bf16at(w, 2*i) * bf16at(a, 2*i)
	}
	return s
}

// Assembly kernels (dot_amd64.s): nb blocks (or n elements for the float types) starting at w and a.

//go:noescape
func dotQ4_0Q8_0AVX2(nb int, w, a *byte) float32

//go:noescape
func dotQ4_1Q8_1AVX2(nb int, w, a *byte) float32

//go:noescape
func dotQ5_0Q8_0AVX2(nb int, w, a *byte) float32

//go:noescape
func dotQ5_1Q8_1AVX2(nb int, w, a *byte) float32

//go:noescape
func dotQ8_0Q8_0AVX2(nb int, w, a *byte) float32

//go:noescape
func dotQ4_0Q8_0AVX512(nb int, w, a *byte) float32

//go:noescape
func dotQ8_0Q8_0AVX512(nb int, w, a *byte) float32

//go:noescape
func dotQ4_KQ8_KAVX2(nb int, w, a *byte) float32

//go:noescape
func dotQ5_KQ8_KAVX2(nb int, w, a *byte) float32

//go:noescape
func dotQ6_KQ8_KAVX2(nb int, w, a *byte) float32

//go:noescape
func dotF32AVX2(n int, w, a *byte) float32

//go:noescape
func dotF16AVX2(n int, w, a *byte) float32

//go:noescape
func dotBF16AVX2(n int, w, a *byte) float32
