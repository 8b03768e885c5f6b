//go:build amd64 && !noasm

package quant

import "golang.org/x/sys/cpu"

// The batched kernels need AVX-512 VNNI on 256-bit registers (VPDPBUSD with AVX512VL, 32 vector registers,
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
}

// gemmQ8SXY and gemmQ8SD run the kernels over the columns, eight at a time, then one at a time. Mul has
// checked every bound.
func gemmQ8SXY(nb int, packed, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	mask := 1<<rows - 1
	c := 0
	for ; c+8 <= cols; c += 8 {
		gemm8Q8SXY(nb, &packed[0], &a[c*aStride], aStride, &out[c*outStride], outStride, mask)
	}
	for ; c < cols; c++ {
		gemm1Q8SXY(nb, &packed[0], &a[c*aStride], &out[c*outStride], mask)
	}
}

func gemmQ8SD(nb int, packed, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	mask := 1<<rows - 1
	c := 0
	for ; c+8 <= cols; c += 8 {
		gemm8Q8SD(nb, &packed[0], &a[c*aStride], aStride, &out[c*outStride], outStride, mask)
	}
	for ; c < cols; c++ {
		gemm1Q8SD(nb, &packed[0], &a[c*aStride], &out[c*outStride], mask)
	}
}

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
