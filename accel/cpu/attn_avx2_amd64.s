//go:build amd64 && !noasm

#include "textflag.h"

// AVX2 helpers of attnStep.head (attention.go) over an F16 KV cache, for CPUs without the AVX-512 lane
// kernels (attn_amd64.s). Each computes exactly the float operations of head's loops, in their order.

// DOTS8 adds the next 8 dims (q's at AX) of the 8 F16 key rows at B (BX bytes apart; R8 = 3·BX, R9 = 5·BX,
// R10 = 7·BX) into ACC, lane j = row j: the rows' values are converted and transposed (8×8) so that dim d's
// values of the 8 rows form one vector, fused in after dim d−1's. Clobbers Y0…Y10.
#define DOTS8(B, ACC) \
	VCVTPH2PS    (B), Y0             \
	VCVTPH2PS    (B)(BX*1), Y1       \
	VCVTPH2PS    (B)(BX*2), Y2       \
	VCVTPH2PS    (B)(R8*1), Y3       \
	VCVTPH2PS    (B)(BX*4), Y4       \
	VCVTPH2PS    (B)(R9*1), Y5       \
	VCVTPH2PS    (B)(R8*2), Y6       \
	VCVTPH2PS    (B)(R10*1), Y7      \
	VUNPCKLPS    Y1, Y0, Y8          \
	VUNPCKHPS    Y1, Y0, Y9          \
	VUNPCKLPS    Y3, Y2, Y0          \
	VUNPCKHPS    Y3, Y2, Y1          \
	VUNPCKLPS    Y5, Y4, Y2          \
	VUNPCKHPS    Y5, Y4, Y3          \
	VUNPCKLPS    Y7, Y6, Y4          \
	VUNPCKHPS    Y7, Y6, Y5          \
	VSHUFPS      $0x44, Y0, Y8, Y6   \
	VSHUFPS      $0xee, Y0, Y8, Y7   \
	VSHUFPS      $0x44, Y1, Y9, Y8   \
	VSHUFPS      $0xee, Y1, Y9, Y9   \
	VSHUFPS      $0x44, Y4, Y2, Y0   \
	VSHUFPS      $0xee, Y4, Y2, Y1   \
	VSHUFPS      $0x44, Y5, Y3, Y2   \
	VSHUFPS      $0xee, Y5, Y3, Y3   \
	VPERM2F128   $0x20, Y0, Y6, Y4   \
	VBROADCASTSS (AX), Y10           \
	VFMADD231PS  Y10, Y4, ACC        \
	VPERM2F128   $0x20, Y1, Y7, Y5   \
	VBROADCASTSS 4(AX), Y10          \
	VFMADD231PS  Y10, Y5, ACC        \
	VPERM2F128   $0x20, Y2, Y8, Y4   \
	VBROADCASTSS 8(AX), Y10          \
	VFMADD231PS  Y10, Y4, ACC        \
	VPERM2F128   $0x20, Y3, Y9, Y5   \
	VBROADCASTSS 12(AX), Y10         \
	VFMADD231PS  Y10, Y5, ACC        \
	VPERM2F128   $0x31, Y0, Y6, Y4   \
	VBROADCASTSS 16(AX), Y10         \
	VFMADD231PS  Y10, Y4, ACC        \
	VPERM2F128   $0x31, Y1, Y7, Y5   \
	VBROADCASTSS 20(AX), Y10         \
	VFMADD231PS  Y10, Y5, ACC        \
	VPERM2F128   $0x31, Y2, Y8, Y4   \
	VBROADCASTSS 24(AX), Y10         \
	VFMADD231PS  Y10, Y4, ACC        \
	VPERM2F128   $0x31, Y3, Y9, Y5   \
	VBROADCASTSS 28(AX), Y10         \
	VFMADD231PS  Y10, Y5, ACC

// func attnDots8F16(size int, q *float32, k *byte, kStride, n8 int, out *float32)
//
// Reference: dotF16 of q (size floats, F16-exact) with each of the 8·n8 F16 key rows at k, kStride bytes
// apart: out[j] = Σ_d q[d]·k_j[d], a float32 sum in d order (the products of F16 values are exact, so each step
// is one fused multiply-add). Lane j of an accumulator is cell j of a block of 8 (DOTS8). Each sum is one chain
// of fused multiply-adds, so four blocks run side by side (four chains), then the last n8 mod 4 one at a time.
// size is a multiple of 8.
TEXT ·attnDots8F16(SB), NOSPLIT, $0-48
	MOVQ kStride+24(FP), BX
	MOVQ k+16(FP), DX
	MOVQ out+40(FP), DI
	MOVQ n8+32(FP), CX
	LEAQ (BX)(BX*2), R8
	LEAQ (BX)(BX*4), R9
	LEAQ (R8)(BX*4), R10
	MOVQ BX, R15
	SHLQ $3, R15

dot4block:
	CMPQ   CX, $4
	JB     dotblock
	MOVQ   q+8(FP), AX
	MOVQ   size+0(FP), R11
	MOVQ   DX, SI
	LEAQ   (SI)(R15*1), R12
	LEAQ   (R12)(R15*1), R13
	LEAQ   (R13)(R15*1), R14
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	VXORPS Y14, Y14, Y14

dot4dims:
	DOTS8(SI, Y11)
	DOTS8(R12, Y12)
	DOTS8(R13, Y13)
	DOTS8(R14, Y14)
	ADDQ $16, SI
	ADDQ $16, R12
	ADDQ $16, R13
	ADDQ $16, R14
	ADDQ $32, AX
	SUBQ $8, R11
	JNZ  dot4dims

	VMOVUPS Y11, (DI)
	VMOVUPS Y12, 32(DI)
	VMOVUPS Y13, 64(DI)
	VMOVUPS Y14, 96(DI)
	ADDQ    $128, DI
	LEAQ    (DX)(R15*4), DX
	SUBQ    $4, CX
	JMP     dot4block

dotblock:
	TESTQ  CX, CX
	JZ     dotdone
	MOVQ   q+8(FP), AX
	MOVQ   size+0(FP), R11
	MOVQ   DX, SI
	VXORPS Y11, Y11, Y11

dotdims:
	DOTS8(SI, Y11)
	ADDQ $16, SI
	ADDQ $32, AX
	SUBQ $8, R11
	JNZ  dotdims

	VMOVUPS Y11, (DI)
	ADDQ    $32, DI
	ADDQ    R15, DX
	DECQ    CX
	JMP     dotblock

dotdone:
	VZEROUPPER
	RET

// func attnValueF16(n int, p *float32, pStride int, v *byte, vStride, vsize int, out *float32)
//
// Reference: head's value loop, out[d] += p_j·v_j[d] for the n cells j in order (the probabilities p_j,
// pStride bytes apart, and the values F16, so each product is exact and each step one fused multiply-add),
// the F16 value rows at v, vStride bytes apart. out holds vsize floats (a multiple of 8): 64 of them stay in
// registers over all the cells, then 8. With pStride 32 it is also the lane kernels' one-lane value sum.
TEXT ·attnValueF16(SB), NOSPLIT, $0-56
	MOVQ vsize+40(FP), R11
	MOVQ out+48(FP), DI
	MOVQ v+24(FP), DX
	MOVQ vStride+32(FP), BX
	MOVQ pStride+16(FP), R12
	CMPQ n+0(FP), $0
	JEQ  valdone

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
	ADDQ         R12, AX
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
	ADDQ         R12, AX
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

// func attnScaleMaxAVX2(n int, x *float32, scale, m float32) float32
//
// Reference: head's score loop without a soft cap, for n (a multiple of 8) scores: x[j] *= scale, and the
// largest of m and the products (the maximum is exact in any order; for NaN scores the softmax is NaN either
// way).
TEXT ·attnScaleMaxAVX2(SB), NOSPLIT, $0-28
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	VBROADCASTSS scale+16(FP), Y2
	VBROADCASTSS m+20(FP), Y3
	SHRQ         $3, CX
	JZ           smdone

smloop:
	VMULPS  (SI), Y2, Y0
	VMOVUPS Y0, (SI)
	VMAXPS  Y0, Y3, Y3
	ADDQ    $32, SI
	DECQ    CX
	JNZ     smloop

smdone:
	VEXTRACTF128 $1, Y3, X0
	VMAXPS       X0, X3, X3
	VMOVHLPS     X3, X3, X0
	VMAXPS       X0, X3, X3
	VMOVSHDUP    X3, X0
	VMAXSS       X0, X3, X3
	VMOVSS       X3, ret+24(FP)
	VZEROUPPER
	RET

// func attnSum16AVX2(n16 int, x *float32, sum float64) float64
//
// Reference: softmaxExp's sum over n16 aligned groups of 16 values at x: each group reduced as quant.Reduce16
// (the halves added, then the quarters, then (u0+u2) + (u1+u3)), widened and added to sum in order.
TEXT ·attnSum16AVX2(SB), NOSPLIT, $0-32
	MOVQ  n16+0(FP), CX
	MOVQ  x+8(FP), SI
	MOVSD sum+16(FP), X4
	TESTQ CX, CX
	JZ    s16done

s16loop:
	VMOVUPS      (SI), Y0
	VADDPS       32(SI), Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VCVTSS2SD    X0, X0, X0
	VADDSD       X0, X4, X4
	ADDQ         $64, SI
	DECQ         CX
	JNZ          s16loop

s16done:
	VMOVSD X4, ret+24(FP)
	VZEROUPPER
	RET

// func attnMulRoundF16AVX2(n int, x *float32, s float32)
//
// Reference: head's probability loop, x[j] = f16Round(x[j]·s) (VCVTPS2PH rounding to nearest even), n a
// multiple of 8.
TEXT ·attnMulRoundF16AVX2(SB), NOSPLIT, $0-20
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	VBROADCASTSS s+16(FP), Y2
	SHRQ         $3, CX
	JZ           mrdone

mrloop:
	VMULPS    (SI), Y2, Y0
	VCVTPS2PH $0, Y0, X1
	VCVTPH2PS X1, Y0
	VMOVUPS   Y0, (SI)
	ADDQ      $32, SI
	DECQ      CX
	JNZ       mrloop

mrdone:
	VZEROUPPER
	RET
