//go:build amd64 && !noasm

package cpu

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/forma-llm/forma/gguf/quant"
)

// hasAVX2: the CPU has AVX2, FMA and F16C and FORMA_CPU allows SIMD (quant.ForcedCPU).
var hasAVX2 = quant.ForcedCPU() != quant.CPUGeneric && cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C

// dotsF16Fast sets out[j] to dotF16(q, k[j*stride:]) for the first len(out)&^7 cells (F16 rows stride
// elements apart) and returns how many; the caller does the rest.
func dotsF16Fast(q []float32, k []uint16, stride int, out []float32) int {
	n := len(out) &^ 7
	if !hasAVX2 || n == 0 || len(q)%8 != 0 || len(q) == 0 {
		return 0
	}
	_ = k[(n-1)*stride+len(q)-1]
	attnDots8F16(len(q), &q[0], (*byte)(unsafe.Pointer(&k[0])), 2*stride, n/8, &out[0])
	return n
}

// valueF16Fast adds p[j]·v[j*stride+d] to out[d] for every cell j in order, and reports whether it did
// (len(out) a multiple of 8).
func valueF16Fast(out, p []float32, v []uint16, stride int) bool {
	if !hasAVX2 || len(out)%8 != 0 || len(out) == 0 || len(p) == 0 {
		return false
	}
	_ = v[(len(p)-1)*stride+len(out)-1]
	attnValueF16(len(p), &p[0], 4, (*byte)(unsafe.Pointer(&v[0])), 2*stride, len(out), &out[0])
	return true
}

//go:noescape
func attnDots8F16(size int, q *float32, k *byte, kStride, n8 int, out *float32)

//go:noescape
func attnValueF16(n int, p *float32, pStride int, v *byte, vStride, vsize int, out *float32)

// The lane kernels of width 8 (attn_lanes_avx2_amd64.s): attnScoresF16, attnSoftmaxF16 and attnValue4F32
// (attn_amd64.s) with rows of 8 lanes in 256-bit registers, for head sizes that are multiples of 8; each lane's
// float operations are the same.

//go:noescape
func attnScoresF16AVX2(size int, qT *float32, k *byte, kStride int, n int, s *float32, kbuf *float32, pf int)

// attnScores2F16AVX2 is attnScoresF16AVX2 for two blocks of 8 lanes over the same keys (q in rows of 16).
//
//go:noescape
func attnScores2F16AVX2(size int, qT *float32, k *byte, kStride int, n int, s0, s1 *float32, kbuf *float32, pf int)

//go:noescape
func attnSoftmaxF16AVX2(n int, s *float32, c0 int, lohi *int32, scale float32, tmp *float32)

//go:noescape
func attnValue2F16AVX2(n int, p *float32, pStride int, v *byte, vStride int, vsize int, acc *float32, pf int)

//go:noescape
func attnValue4F32AVX2(n int, p *float32, vbuf *float32, vsize int, acc *float32)

// cvtRowsF16 converts n rows of vsize halves (a multiple of 8), vStride bytes apart, to float32 rows one after
// another at dst, prefetching the rows pf bytes on (AVX2 and F16C: either lane width).
//
//go:noescape
func cvtRowsF16(n int, v *byte, vStride int, vsize int, dst *float32, pf int)

// attnValue8F16 is the value sum of eight lanes, rows of pStride lanes, vsize a multiple of 8 (AVX2, FMA and
// F16C: any lane width): eight chains where a tile of four has four, for heads whose values are one chunk of 8.
//
//go:noescape
func attnValue8F16(n int, p *float32, pStride int, v *byte, vStride int, vsize int, acc *float32)
