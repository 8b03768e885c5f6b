//go:build arm64 && !noasm

package quant

// NEON dot products for arm64, in Go assembly written by hand (dot_arm64.s, dotf_arm64.s, dotk_arm64.s).
// Each kernel returns its reference's bits for every input: the same exact integer block sums, and the
// same float32 operations in the same order (see dot_blocks32.go, dot_float.go, dot_kquants.go); only the
// instructions differ. dot_exact_test.go checks every variant against its reference bit for bit.
//
// NEON (ASIMD) is part of every arm64 CPU. The 32-element block types have two variants, chosen at
// start-up: with the dotprod extension's SDOT where the CPU has it (it would fault elsewhere), else with
// widening multiplies (SMULL). The float and K-quant kernels need nothing beyond NEON.

import "golang.org/x/sys/cpu"

// The extensions the kernels use: those the CPU has, unless FORMA_CPU=generic (cpu.go).
var (
	hasNEON    = cpuLevel < CPUGeneric
	hasDotProd = hasNEON && cpu.ARM64.HasASIMDDP
)

func cpuPath() string {
	switch {
	case hasDotProd:
		return "neon+dotprod"
	case hasNEON:
		return "neon"
	}
	return "generic"
}

func init() {
	if !hasNEON {
		return
	}
	setFast(F32, OrderVecDot, dotF32Vec)
	setFast(F16, OrderVecDot, dotF16Vec)
	setFast(F32, OrderTiled, dotF32Tiled)
	setFast(F16, OrderTiled, dotF16Tiled)
	if hasDotProd {
		setFast(Q4_0, OrderVecDot, dotQ4_0FastSDOT)
		setFast(Q4_1, OrderVecDot, dotQ4_1FastSDOT)
		setFast(Q5_0, OrderVecDot, dotQ5_0FastSDOT)
		setFast(Q5_1, OrderVecDot, dotQ5_1FastSDOT)
		setFast(Q8_0, OrderVecDot, dotQ8_0FastSDOT)
	} else {
		setFast(Q4_0, OrderVecDot, dotQ4_0FastNEON)
		setFast(Q4_1, OrderVecDot, dotQ4_1FastNEON)
		setFast(Q5_0, OrderVecDot, dotQ5_0FastNEON)
		setFast(Q5_1, OrderVecDot, dotQ5_1FastNEON)
		setFast(Q8_0, OrderVecDot, dotQ8_0FastNEON)
	}
	setFast(Q4_K, OrderVecDot, dotQ4_KFast)
	setFast(Q4_K, OrderRepacked, dotQ4_KRepackedFast)
	setFast(Q5_K, OrderVecDot, dotQ5_KFast)
	setFast(Q6_K, OrderVecDot, dotQ6_KFast)
}

func dotQ4_0FastNEON(n int, w, a []byte) float32 { return blocks(dotQ4_0Q8_0NEON, n, QK, 18, 34, w, a) }
func dotQ4_1FastNEON(n int, w, a []byte) float32 { return blocks(dotQ4_1Q8_1NEON, n, QK, 20, 36, w, a) }
func dotQ5_0FastNEON(n int, w, a []byte) float32 { return blocks(dotQ5_0Q8_0NEON, n, QK, 22, 34, w, a) }
func dotQ5_1FastNEON(n int, w, a []byte) float32 { return blocks(dotQ5_1Q8_1NEON, n, QK, 24, 36, w, a) }
func dotQ8_0FastNEON(n int, w, a []byte) float32 { return blocks(dotQ8_0Q8_0NEON, n, QK, 34, 34, w, a) }

func dotQ4_0FastSDOT(n int, w, a []byte) float32 {
	return blocks(dotQ4_0Q8_0SDOT, n, QK, 18, 34, w, a)
}
func dotQ4_1FastSDOT(n int, w, a []byte) float32 {
	return blocks(dotQ4_1Q8_1SDOT, n, QK, 20, 36, w, a)
}
func dotQ5_0FastSDOT(n int, w, a []byte) float32 {
	return blocks(dotQ5_0Q8_0SDOT, n, QK, 22, 34, w, a)
}
func dotQ5_1FastSDOT(n int, w, a []byte) float32 {
	return blocks(dotQ5_1Q8_1SDOT, n, QK, 24, 36, w, a)
}
func dotQ8_0FastSDOT(n int, w, a []byte) float32 {
	return blocks(dotQ8_0Q8_0SDOT, n, QK, 34, 34, w, a)
}

func dotQ4_KFast(n int, w, a []byte) float32 { return blocks(dotQ4_KQ8_KNEON, n, QKK, 144, 292, w, a) }
func dotQ4_KRepackedFast(n int, w, a []byte) float32 {
	return blocks(dotQ4_KQ8_KRepackedNEON, n, QKK, 144, 292, w, a)
}
func dotQ5_KFast(n int, w, a []byte) float32 { return blocks(dotQ5_KQ8_KNEON, n, QKK, 176, 292, w, a) }
func dotQ6_KFast(n int, w, a []byte) float32 { return blocks(dotQ6_KQ8_KNEON, n, QKK, 210, 292, w, a) }

// The float kernels take the whole steps of 64 (16 for the tiled order); dot_simd.go's wrappers do the rest.
var (
	dotF32Vec   = f32VecDot(dotF32VecNEON)
	dotF16Vec   = f16VecDot(dotF16VecNEON)
	dotF32Tiled = tiledDot(dotF32TiledNEON, 4, DotF32F32Tiled)
	dotF16Tiled = tiledDot(dotF16TiledNEON, 2, DotF16F16Tiled)
)

// VecDotF32s is VecDotF32 (ggml_vec_dot_f32 on float32 slices), with NEON.
func VecDotF32s(x, y []float32) float32 {
	if !hasNEON {
		return VecDotF32(x, y[:len(x)])
	}
	return vecDotF32sWith(dotF32VecNEONf, x, y)
}

// Assembly kernels: nb blocks (n elements for the float types) starting at w and a. The SDOT kernels need
// the dotprod extension.

//go:noescape
func dotQ4_0Q8_0SDOT(nb int, w, a *byte) float32

//go:noescape
func dotQ4_0Q8_0NEON(nb int, w, a *byte) float32

//go:noescape
func dotQ4_1Q8_1SDOT(nb int, w, a *byte) float32

//go:noescape
func dotQ4_1Q8_1NEON(nb int, w, a *byte) float32

//go:noescape
func dotQ5_0Q8_0SDOT(nb int, w, a *byte) float32

//go:noescape
func dotQ5_0Q8_0NEON(nb int, w, a *byte) float32

//go:noescape
func dotQ5_1Q8_1SDOT(nb int, w, a *byte) float32

//go:noescape
func dotQ5_1Q8_1NEON(nb int, w, a *byte) float32

//go:noescape
func dotQ8_0Q8_0SDOT(nb int, w, a *byte) float32

//go:noescape
func dotQ8_0Q8_0NEON(nb int, w, a *byte) float32

//go:noescape
func dotQ4_KQ8_KNEON(nb int, w, a *byte) float32

//go:noescape
func dotQ4_KQ8_KRepackedNEON(nb int, w, a *byte) float32

//go:noescape
func dotQ5_KQ8_KNEON(nb int, w, a *byte) float32

//go:noescape
func dotQ6_KQ8_KNEON(nb int, w, a *byte) float32

//go:noescape
func dotF32VecNEON(n int, w, a *byte) float32

//go:noescape
func dotF16VecNEON(n int, w, a *byte) float32

//go:noescape
func dotF32TiledNEON(n int, w, a *byte) float32

//go:noescape
func dotF16TiledNEON(n int, w, a *byte) float32

// dotF32VecNEONf is dotF32VecNEON on float32 pointers.
//
//go:noescape
func dotF32VecNEONf(n int, x, y *float32) float32
