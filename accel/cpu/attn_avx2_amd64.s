//go:build amd64 && !noasm

#include "textflag.h"

// AVX2 helpers of attnStep.head (attention.go) over an F16 KV cache, for CPUs without the AVX-512 lane
// kernels (attn_amd64.s). Each computes exactly the float operations of head's loops, in their order.

// func attnDots8F16(size int, q *float32, k *byte, kStride, n8 int, out *float32)
//
// Reference: dotF16 of q (size floats, F16-exact) with each of the 8·n8 F16 key rows at k, kStride bytes
// apart: out[j] = Σ_d q[d]·k_j[d], a float32 sum in d order (the products of F16 values are exact, so each step
// is one fused multiply-add). Lane j of the accumulator is cell j of a block of 8: every 8 dims the 8 rows'
// values are converted and transposed (8×8), so that dim d's values of the 8 cells form one vector, added in
// after dim d−1's. size is a multiple of 8.
TEXT ·attnDots8F16(SB), NOSPLIT, $0-48
	MOVQ kStride+24(FP), BX
	MOVQ k+16(FP), DX
	MOVQ out+40(FP), DI
	MOVQ n8+32(FP), CX
	LEAQ (BX)(BX*2), R8
	LEAQ (BX)(BX*4), R9
	LEAQ (R8)(BX*4), R10

dotblock:
	MOVQ   q+8(FP), AX
	MOVQ   size+0(FP), R11
	MOVQ   DX, SI
	VXORPS Y11, Y11, Y11

dotdims:
	VCVTPH2PS    (SI), Y0
	VCVTPH2PS    (SI)(BX*1), Y1
	VCVTPH2PS    (SI)(BX*2), Y2
	VCVTPH2PS    (SI)(R8*1), Y3
	VCVTPH2PS    (SI)(BX*4), Y4
	VCVTPH2PS    (SI)(R9*1), Y5
	VCVTPH2PS    (SI)(R8*2), Y6
	VCVTPH2PS    (SI)(R10*1), Y7
	VUNPCKLPS    Y1, Y0, Y8
	VUNPCKHPS    Y1, Y0, Y9
	VUNPCKLPS    Y3, Y2, Y0
	VUNPCKHPS    Y3, Y2, Y1
	VUNPCKLPS    Y5, Y4, Y2
	VUNPCKHPS    Y5, Y4, Y3
	VUNPCKLPS    Y7, Y6, Y4
	VUNPCKHPS    Y7, Y6, Y5
	VSHUFPS      $0x44, Y0, Y8, Y6
	VSHUFPS      $0xee, Y0, Y8, Y7
	VSHUFPS      $0x44, Y1, Y9, Y8
	VSHUFPS      $0xee, Y1, Y9, Y9
	VSHUFPS      $0x44, Y4, Y2, Y0
	VSHUFPS      $0xee, Y4, Y2, Y1
	VSHUFPS      $0x44, Y5, Y3, Y2
	VSHUFPS      $0xee, Y5, Y3, Y3
	VPERM2F128   $0x20, Y0, Y6, Y4
	VBROADCASTSS (AX), Y10
	VFMADD231PS  Y10, Y4, Y11
	VPERM2F128   $0x20, Y1, Y7, Y5
	VBROADCASTSS 4(AX), Y10
	VFMADD231PS  Y10, Y5, Y11
	VPERM2F128   $0x20, Y2, Y8, Y4
	VBROADCASTSS 8(AX), Y10
	VFMADD231PS  Y10, Y4, Y11
	VPERM2F128   $0x20, Y3, Y9, Y5
	VBROADCASTSS 12(AX), Y10
	VFMADD231PS  Y10, Y5, Y11
	VPERM2F128   $0x31, Y0, Y6, Y4
	VBROADCASTSS 16(AX), Y10
	VFMADD231PS  Y10, Y4, Y11
	VPERM2F128   $0x31, Y1, Y7, Y5
	VBROADCASTSS 20(AX), Y10
	VFMADD231PS  Y10, Y5, Y11
	VPERM2F128   $0x31, Y2, Y8, Y4
	VBROADCASTSS 24(AX), Y10
	VFMADD231PS  Y10, Y4, Y11
	VPERM2F128   $0x31, Y3, Y9, Y5
	VBROADCASTSS 28(AX), Y10
	VFMADD231PS  Y10, Y5, Y11
	ADDQ         $16, SI
	ADDQ         $32, AX
	SUBQ         $8, R11
	JNZ          dotdims

	VMOVUPS Y11, (DI)
	ADDQ    $32, DI
	LEAQ    (DX)(BX*8), DX
	DECQ    CX
	JNZ     dotblock
	VZEROUPPER
	RET

// func attnValueF16(n int, p *float32, v *byte, vStride, vsize int, out *float32)
//
// Reference: head's value loop, out[d] += p_j·v_j[d] for the n cells j in order (the probabilities p_j and
// the values F16, so each product is exact and each step one fused multiply-add), the F16 value rows at v,
// vStride bytes apart. out holds vsize floats (a multiple of 8): 64 of them stay in registers over all the
// cells, then 8.
TEXT ·attnValueF16(SB), NOSPLIT, $0-48
	MOVQ vsize+32(FP), R11
	MOVQ out+40(FP), DI
	MOVQ v+16(FP), DX
	MOVQ vStride+24(FP), BX

val64:
	CMPQ    R11, $64
	JLT     val8
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	MOVQ    n+0(FP), CX
	MOVQ    p+8(FP), AX
	MOVQ    DX, SI

val64cell:
	VBROADCASTSS (AX), Y15
	VCVTPH2PS    (SI), Y8
	VFMADD231PS  Y15, Y8, Y0
	VCVTPH2PS    16(SI), Y9
	VFMADD231PS  Y15, Y9, Y1
	VCVTPH2PS    32(SI), Y10
	VFMADD231PS  Y15, Y10, Y2
	VCVTPH2PS    48(SI), Y11
	VFMADD231PS  Y15, Y11, Y3
	VCVTPH2PS    64(SI), Y8
	VFMADD231PS  Y15, Y8, Y4
	VCVTPH2PS    80(SI), Y9
	VFMADD231PS  Y15, Y9, Y5
	VCVTPH2PS    96(SI), Y10
	VFMADD231PS  Y15, Y10, Y6
	VCVTPH2PS    112(SI), Y11
	VFMADD231PS  Y15, Y11, Y7
	ADDQ         $4, AX
	ADDQ         BX, SI
	DECQ         CX
	JNZ          val64cell

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ    $256, DI
	ADDQ    $128, DX
	SUBQ    $64, R11
	JMP     val64

val8:
	TESTQ   R11, R11
	JZ      valdone
	VMOVUPS (DI), Y0
	MOVQ    n+0(FP), CX
	MOVQ    p+8(FP), AX
	MOVQ    DX, SI

val8cell:
	VBROADCASTSS (AX), Y15
	VCVTPH2PS    (SI), Y8
	VFMADD231PS  Y15, Y8, Y0
	ADDQ         $4, AX
	ADDQ         BX, SI
	DECQ         CX
	JNZ          val8cell

	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $16, DX
	SUBQ    $8, R11
	JMP     val8

valdone:
	VZEROUPPER
	RET
