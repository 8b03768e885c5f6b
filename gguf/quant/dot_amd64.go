//go:build amd64 && !noasm

package quant

// SIMD dot products for amd64, in Go assembly written by hand (dot_amd64.s, dotf_amd64.s, dotk_amd64.s,
// doti_amd64.s, dotbf_amd64.s).
// Each kernel returns its reference's bits for every input: the same exact integer block sums, and the
// same float32 operations in the same order (see dot_blocks32.go, dot_float.go, dot_kquants.go); only the
// instructions differ. dot_exact_test.go checks every variant against its reference bit for bit.
//
// The kernels need AVX2, FMA and F16C (every x86-64 CPU since 2013/2015 has them), some AVX-512 (VL, BW,
// VNNI); without them Dot returns the references.

import "golang.org/x/sys/cpu"

// The extensions the kernels use: those the CPU has, up to the level FORMA_CPU sets (cpu.go).
var (
	hasAVX2   = cpuLevel < CPUGeneric && cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C
	hasAVX512 = cpuLevel < CPUAVX2 && hasAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VL
	hasVNNI   = hasAVX512 && cpu.X86.HasAVX512VNNI
	hasVBMI   = hasAVX512 && cpu.X86.HasAVX512VBMI
	hasBF16   = hasAVX512 && cpu.X86.HasAVX512BF16
)

func cpuPath() string {
	if !hasAVX2 {
		return "generic"
	}
	path := "avx2"
	for _, f := range []struct {
		has  bool
		name string
	}{{hasAVX512, "+avx512"}, {hasVNNI, "+vnni"}, {hasVBMI, "+vbmi"}, {hasBF16, "+bf16"}} {
		if f.has {
			path += f.name
		}
	}
	return path
}

func init() {
	if !hasAVX2 {
		return
	}
	setFast(F32, OrderVecDot, dotF32Vec)
	setFast(F16, OrderVecDot, dotF16Vec)
	typeTraits[F16].rows = dotF16Rows
	setFast(F32, OrderTiled, dotF32Tiled)
	setFast(F16, OrderTiled, dotF16Tiled)
	setFast(Q4_0, OrderVecDot, dotQ4_0Fast)
	setFast(Q4_1, OrderVecDot, dotQ4_1Fast)
	setFast(Q5_0, OrderVecDot, dotQ5_0Fast)
	setFast(Q5_1, OrderVecDot, dotQ5_1Fast)
	setFast(Q8_0, OrderVecDot, dotQ8_0Fast)
	setFast(Q4_0, OrderRepacked, dotQ4_0RepackedFast)
	setFast(Q2_K, OrderVecDot, dotQ2_KFast)
	setFast(Q2_K, OrderRepacked, dotQ2_KRepackedFast)
	setFast(Q3_K, OrderVecDot, dotQ3_KFast)
	setFast(Q4_K, OrderVecDot, dotQ4_KFast)
	setFast(Q4_K, OrderRepacked, dotQ4_KRepackedFast)
	setFast(Q5_K, OrderVecDot, dotQ5_KFast)
	setFast(Q6_K, OrderVecDot, dotQ6_KFast)
	setFast(IQ4_NL, OrderVecDot, dotIQ4_NLFast)
	setFast(IQ4_NL, OrderRepacked, dotIQ4_NLRepackedFast)
	setFast(IQ4_XS, OrderVecDot, dotIQ4_XSFast)
	setFast(MXFP4, OrderVecDot, dotMXFP4Fast)
	if hasBF16 {
		dotBF16Fast = dotBF16Insn
	}
	setFast(BF16, OrderVecDot, dotBF16Fast)
	if hasVNNI {
		setFast(Q8_0, OrderVecDot, dotQ8_0FastVNNI)
		typeTraits[Q8_0].rows = dotQ8_0RowsVNNI
	}
}

func dotQ4_0Fast(n int, w, a []byte) float32 { return blocks(dotQ4_0Q8_0AVX2, n, QK, 18, 34, w, a) }
func dotQ4_1Fast(n int, w, a []byte) float32 { return blocks(dotQ4_1Q8_1AVX2, n, QK, 20, 36, w, a) }
func dotQ5_0Fast(n int, w, a []byte) float32 { return blocks(dotQ5_0Q8_0AVX2, n, QK, 22, 34, w, a) }
func dotQ5_1Fast(n int, w, a []byte) float32 { return blocks(dotQ5_1Q8_1AVX2, n, QK, 24, 36, w, a) }
func dotQ8_0Fast(n int, w, a []byte) float32 { return blocks(dotQ8_0Q8_0AVX2, n, QK, 34, 34, w, a) }

func dotQ4_KFast(n int, w, a []byte) float32 {
	nb := n / QKK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*144-1], a[nb*292-1]
	return dotQ4_KQ8_KAVX2(nb, &w[0], &a[0], 292)
}

func dotQ4_KRepackedFast(n int, w, a []byte) float32 {
	nb := n / QKK
	if nb <= 0 {
		return 0
	}
	_, _ = w[nb*144-1], a[nb*292-1]
	return dotQ4_KQ8_KRepackedAVX2(nb, &w[0], &a[0], 292)
}

func dotQ2_KFast(n int, w, a []byte) float32 { return blocks(dotQ2_KQ8_KAVX2, n, QKK, 84, 292, w, a) }
func dotQ2_KRepackedFast(n int, w, a []byte) float32 {
	return blocks(dotQ2_KQ8_KRepackedAVX2, n, QKK, 84, 292, w, a)
}
func dotQ3_KFast(n int, w, a []byte) float32 { return blocks(dotQ3_KQ8_KAVX2, n, QKK, 110, 292, w, a) }
func dotQ5_KFast(n int, w, a []byte) float32 { return blocks(dotQ5_KQ8_KAVX2, n, QKK, 176, 292, w, a) }
func dotQ6_KFast(n int, w, a []byte) float32 { return blocks(dotQ6_KQ8_KAVX2, n, QKK, 210, 292, w, a) }

func dotMXFP4Fast(n int, w, a []byte) float32 { return blocks(dotMXFP4Q8_0AVX2, n, QK, 17, 34, w, a) }

func dotIQ4_NLFast(n int, w, a []byte) float32 {
	return blocks(dotIQ4_NLQ8_0AVX2, n, QK, 18, 34, w, a)
}

func dotIQ4_NLRepackedFast(n int, w, a []byte) float32 {
	return blocks(dotIQ4_NLQ8_0RepackedAVX2, n, QK, 18, 34, w, a)
}

func dotIQ4_XSFast(n int, w, a []byte) float32 {
	return blocks(func(nb int, w, a *byte) float32 { return dotIQ4_XSQ8_KAVX2(nb, w, a, 292) }, n, QKK, 136, 292, w, a)
}

func dotQ8_0FastVNNI(n int, w, a []byte) float32 {
	return blocks(dotQ8_0Q8_0VNNI, n, QK, 34, 34, w, a)
}

// dotQ8_0RowsVNNI is dotQ8_0FastVNNI over several weight and activation rows (a RowsDotFn): the weight rows in
// one call per activation row (dotQ8_0Q8_0RowsVNNI), as flash attention's scores of a span of cells take them.
func dotQ8_0RowsVNNI(n int, wRows []byte, wRow, rows int, acts []byte, aRow, m int, out []float32, outRow int) {
	nb := n / QK
	if nb <= 0 || rows <= 0 {
		clearRows(out, rows, m, outRow)
		return
	}
	_ = wRows[(rows-1)*wRow+nb*34-1]
	for i := 0; i < m; i++ {
		a, o := acts[i*aRow:], out[i*outRow:]
		_, _ = a[nb*34-1], o[rows-1]
		dotQ8_0Q8_0RowsVNNI(nb, &wRows[0], wRow, rows, &a[0], &o[0])
	}
}

// clearRows sets the rows outputs of each of m activation rows to 0 (the dot of no blocks).
func clearRows(out []float32, rows, m, outRow int) {
	for i := 0; i < m; i++ {
		clear(out[i*outRow : i*outRow+rows])
	}
}

// dotF16RowsVecAVX2 is dotF16VecAVX2 for rows rows wRow bytes apart, into out (dotf_amd64.s).
//
//go:noescape
func dotF16RowsVecAVX2(n int, w *byte, wRow, rows int, a *byte, out *float32)

//go:noescape
func dotQ8_0Q8_0RowsVNNI(nb int, w *byte, wStride, rows int, a *byte, out *float32)

func dotQ4_0RepackedFast(n int, w, a []byte) float32 {
	return blocks(dotQ4_0Q8_0RepackedAVX2, n, QK, 18, 34, w, a)
}

// The float kernels take the whole steps of 64 (16 for the tiled order); dot_simd.go's wrappers do the rest.
var (
	dotF32Vec   = f32VecDot(dotF32VecAVX2)
	dotF16Vec   = f16VecDot(dotF16VecAVX2)
	dotF32Tiled = tiledDot(dotF32TiledAVX2, 4, DotF32F32Tiled)
	dotF16Tiled = tiledDot(dotF16TiledAVX2, 2, DotF16F16Tiled)
)

// The BF16 dots: DotBF16BF16 with the instruction itself where the CPU has AVX-512 BF16, else its emulation.
var (
	dotBF16Insn = bf16Dot(func(n int, w, a *byte) (float64, bool) { return dotBF16VecBF16(n, w, a), true })
	dotBF16AVX2 = bf16Dot(dotBF16VecAVX2)
)

// bf16Dot returns DotBF16BF16 by kernel vec, which takes the whole steps of 64; the rest continue its float64
// sum here. Where vec says its sum is not exact (an emulation's sum landed on ±2^-126), the reference runs.
func bf16Dot(vec func(n int, w, a *byte) (float64, bool)) DotFn {
	return func(n int, w, a []byte) float32 { return dotBF16With(vec, n, w, a) }
}

// dotBF16Fast is the BF16 dot this CPU runs (init).
var dotBF16Fast = dotBF16AVX2

func dotBF16With(vec func(n int, w, a *byte) (float64, bool), n int, w, a []byte) float32 {
	if n <= 0 {
		return 0
	}
	_, _ = w[2*n-1], a[2*n-1]
	np := n &^ 63
	if np == 0 {
		return DotBF16BF16(n, w, a)
	}
	sum, exact := vec(np, &w[0], &a[0])
	if !exact {
		return DotBF16BF16(n, w, a)
	}
	for i := np; i < n; i++ {
		sum += float64(bfAt(w, i) * bfAt(a, i))
	}
	return float32(sum)
}

// VecDotF32s is VecDotF32 (ggml_vec_dot_f32 on float32 slices), with SIMD where the CPU has it.
func VecDotF32s(x, y []float32) float32 {
	if !hasAVX2 {
		return VecDotF32(x, y[:len(x)])
	}
	return vecDotF32sWith(dotF32VecAVX2f, x, y)
}

// Assembly kernels: nb blocks (n elements for the float types) starting at w and a.

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
func dotQ8_0Q8_0VNNI(nb int, w, a *byte) float32

//go:noescape
func dotQ4_0Q8_0RepackedAVX2(nb int, w, a *byte) float32

// dotQ4_KQ8_KRepackedAVX2 reads the activation's Q8_K blocks aStride bytes apart.
//
//go:noescape
func dotQ4_KQ8_KRepackedAVX2(nb int, w, a *byte, aStride int) float32

// dotQ4_KQ8_KAVX2 reads the activation's Q8_K blocks aStride bytes apart.
//
//go:noescape
func dotQ4_KQ8_KAVX2(nb int, w, a *byte, aStride int) float32

//go:noescape
func dotQ2_KQ8_KAVX2(nb int, w, a *byte) float32

//go:noescape
func dotQ2_KQ8_KRepackedAVX2(nb int, w, a *byte) float32

//go:noescape
func dotQ3_KQ8_KAVX2(nb int, w, a *byte) float32

//go:noescape
func dotQ5_KQ8_KAVX2(nb int, w, a *byte) float32

//go:noescape
func dotQ6_KQ8_KAVX2(nb int, w, a *byte) float32

//go:noescape
func dotIQ4_NLQ8_0AVX2(nb int, w, a *byte) float32

//go:noescape
func dotIQ4_NLQ8_0RepackedAVX2(nb int, w, a *byte) float32

//go:noescape
func dotIQ4_XSQ8_KAVX2(nb int, w, a *byte, aBlock int) float32

//go:noescape
func dotMXFP4Q8_0AVX2(nb int, w, a *byte) float32

//go:noescape
func dotBF16VecAVX2(n int, w, a *byte) (sum float64, exact bool)

//go:noescape
func dotBF16VecBF16(n int, w, a *byte) float64

// vdpbf16ps runs one VDPBF16PS of w and a into acc (AVX-512 BF16): the instruction that bfStep follows, for
// its tests.
//
//go:noescape
func vdpbf16ps(acc *[f32Lanes]float32, w, a *[2 * f32Lanes]uint16)

//go:noescape
func dotF32VecAVX2(n int, w, a *byte) float32

//go:noescape
func dotF16VecAVX2(n int, w, a *byte) float32

//go:noescape
func dotF32TiledAVX2(n int, w, a *byte) float32

//go:noescape
func dotF16TiledAVX2(n int, w, a *byte) float32

// dotF32VecAVX2f is dotF32VecAVX2 on float32 pointers.
//
//go:noescape
func dotF32VecAVX2f(n int, x, y *float32) float32
