//go:build amd64 && !noasm

package quant

import "golang.org/x/sys/cpu"

// The batched kernels need AVX-512 VNNI (VPDPBUSD on 512-bit registers, 32 vector registers,
// mask registers for the partial stores): Ice Lake, Sapphire Rapids, Zen 4 and later.
var hasVNNI = hasAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512BW &&
	cpu.X86.HasAVX512VNNI

func init() {
	if !hasVNNI {
		return
	}
	// (s·dw)·da, as DotQ4_0Q8_0.
	gemms[Q4_0] = &Gemm{w: Q4_0, actBlock: q8sBlock, packBlock: q8PackBlock,
		quantize: quantizeQ8S(8), pack: packQ4_0, kernel: gemmQ8SXY}
	// s·(dw·da), as DotQ5_0Q8_0 and DotQ8_0Q8_0.
	gemms[Q5_0] = &Gemm{w: Q5_0, actBlock: q8sBlock, packBlock: q8PackBlock,
		quantize: quantizeQ8S(16), pack: packQ5_0, kernel: gemmQ8SD}
	gemms[Q8_0] = &Gemm{w: Q8_0, actBlock: q8sBlock, packBlock: q8PackBlock,
		quantize: quantizeQ8S(128), pack: packQ8_0, kernel: gemmQ8SD}
	gemms[Q4_K] = &Gemm{w: Q4_K, actBlock: q8ks4Block, packBlock: k4PackBlock,
		quantize: quantizeQ8KS4, pack: packQ4_K, kernel: gemmCols(gemm8K4, gemm1K4)}
	gemms[Q5_K] = &Gemm{w: Q5_K, actBlock: q8ks4Block, packBlock: k4PackBlock,
		quantize: quantizeQ8KS4, pack: packQ5_K, kernel: gemmCols(gemm8K4, gemm1K4)}
	gemms[Q6_K] = &Gemm{w: Q6_K, actBlock: q8ks6Block, packBlock: k6PackBlock,
		quantize: quantizeQ8KS6, pack: packQ6_K, kernel: gemmCols(gemm8K6, gemm1K6)}
}

type (
	gemm8Fn func(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)
	gemm1Fn func(nb int, packed, a *byte, out *float32, mask int)
)

// gemmCols runs k8 over the columns eight at a time, then k1 over the rest. Mul has checked every bound.
func gemmCols(k8 gemm8Fn, k1 gemm1Fn) func(nb int, packed, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	return func(nb int, packed, a []byte, aStride, cols int, out []float32, outStride, rows int) {
		mask := 1<<rows - 1
		c := 0
		for ; c+8 <= cols; c += 8 {
			k8(nb, &packed[0], &a[c*aStride], aStride, &out[c*outStride], outStride, mask)
		}
		for ; c < cols; c++ {
			k1(nb, &packed[0], &a[c*aStride], &out[c*outStride], mask)
		}
	}
}

var (
	gemmQ8SXY = gemmCols(gemm8Q8SXY, gemm1Q8SXY)
	gemmQ8SD  = gemmCols(gemm8Q8SD, gemm1Q8SD)
)

// Kernels (gemm_amd64.s): nb packed blocks of GemmRows rows against 8 (or 1) Q8_0S activation rows; the
// rows selected by mask of out[c*outStride+r] are written.

//go:noescape
func gemm8Q8SXY(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)

//go:noescape
func gemm1Q8SXY(nb int, packed, a *byte, out *float32, mask int)

//go:noescape
func gemm8Q8SD(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)

//go:noescape
func gemm1Q8SD(nb int, packed, a *byte, out *float32, mask int)

//go:noescape
func gemm8K4(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)

//go:noescape
func gemm1K4(nb int, packed, a *byte, out *float32, mask int)

//go:noescape
func gemm8K6(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)

//go:noescape
func gemm1K6(nb int, packed, a *byte, out *float32, mask int)
