//go:build amd64 && !noasm

#include "textflag.h"

DATA q8abs<>+0(SB)/4, $0x7fffffff
GLOBL q8abs<>(SB), RODATA|NOPTR, $4

DATA q8c127<>+0(SB)/4, $127.0
GLOBL q8c127<>(SB), RODATA|NOPTR, $4

DATA q8perm<>+0(SB)/4, $0
DATA q8perm<>+4(SB)/4, $4
DATA q8perm<>+8(SB)/4, $1
DATA q8perm<>+12(SB)/4, $5
DATA q8perm<>+16(SB)/4, $2
DATA q8perm<>+20(SB)/4, $6
DATA q8perm<>+24(SB)/4, $3
DATA q8perm<>+28(SB)/4, $7
GLOBL q8perm<>(SB), RODATA|NOPTR, $32

// func quantizeQ8AVX2(nb int, src *float32, qs *byte, stride int, d *float32, sums *int32)
//
// Reference: quantizeQ8x86 per block (amax = max |x|, d = amax/127, q = round-half-even(x·(127/amax)),
// saturated to int8, Σq), which it equals for finite input (hand-written; the pack/permute is ggml's).
TEXT ·quantizeQ8AVX2(SB), NOSPLIT, $0-48
	MOVQ         nb+0(FP), CX
	MOVQ         src+8(FP), SI
	MOVQ         qs+16(FP), DI
	MOVQ         stride+24(FP), R8
	MOVQ         d+32(FP), R9
	MOVQ         sums+40(FP), R10
	VBROADCASTSS q8abs<>(SB), Y15
	VMOVSS       q8c127<>(SB), X14
	VMOVDQU      q8perm<>(SB), Y13
	VXORPS       X12, X12, X12

q8block:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VANDPS  Y15, Y0, Y4
	VANDPS  Y15, Y1, Y5
	VANDPS  Y15, Y2, Y6
	VANDPS  Y15, Y3, Y7
	VMAXPS  Y5, Y4, Y4
	VMAXPS  Y7, Y6, Y6
	VMAXPS  Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VMAXPS  X5, X4, X4
	VMOVHLPS X4, X4, X5
	VMAXPS  X5, X4, X4
	VMOVSHDUP X4, X5
	VMAXSS  X5, X4, X4           // amax
	VDIVSS  X14, X4, X5          // d = amax/127
	VMOVSS  X5, (R9)
	VDIVSS  X4, X14, X6          // 127/amax
	VCMPSS  $4, X12, X4, X7      // amax != 0 (or NaN)
	VANDPS  X7, X6, X6           // id
	VBROADCASTSS X6, Y6
	VMULPS  Y6, Y0, Y0
	VMULPS  Y6, Y1, Y1
	VMULPS  Y6, Y2, Y2
	VMULPS  Y6, Y3, Y3
	VCVTPS2DQ Y0, Y0
	VCVTPS2DQ Y1, Y1
	VCVTPS2DQ Y2, Y2
	VCVTPS2DQ Y3, Y3
	VPADDD  Y1, Y0, Y8
	VPADDD  Y3, Y2, Y9
	VPADDD  Y9, Y8, Y8
	VEXTRACTI128 $1, Y8, X9
	VPADDD  X9, X8, X8
	VPSHUFD $0x4e, X8, X9
	VPADDD  X9, X8, X8
	VPSHUFD $0xb1, X8, X9
	VPADDD  X9, X8, X8
	VMOVD   X8, (R10)
	VPACKSSDW Y1, Y0, Y0
	VPACKSSDW Y3, Y2, Y2
	VPACKSSWB Y2, Y0, Y0
	VPERMD  Y0, Y13, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $128, SI
	ADDQ    R8, DI
	ADDQ    $4, R9
	ADDQ    $4, R10
	DECQ    CX
	JNZ     q8block
	VZEROUPPER
	RET

DATA q8km127<>+0(SB)/4, $-127.0
GLOBL q8km127<>(SB), RODATA|NOPTR, $4

DATA q8kone<>+0(SB)/4, $1.0
GLOBL q8kone<>(SB), RODATA|NOPTR, $4

// Q8KAMAX4 folds |x| of 4 vectors at off(SI) into Y0…Y3.
#define Q8KAMAX4(off) \
	VANDPS off(SI), Y15, Y4       \
	VANDPS off+32(SI), Y15, Y5    \
	VANDPS off+64(SI), Y15, Y6    \
	VANDPS off+96(SI), Y15, Y7    \
	VMAXPS Y4, Y0, Y0             \
	VMAXPS Y5, Y1, Y1             \
	VMAXPS Y6, Y2, Y2             \
	VMAXPS Y7, Y3, Y3

// func quantizeQ8KAVX2(nb int, src *float32, dst *byte)
//
// Reference: quantizeQ8KRef (max = the first element of largest magnitude, iscale = −127/max,
// q = min(127, round-half-even(iscale·x)), d = 1/iscale, bsums = sums of 16 quants; an all-zero block is
// all zero). Hand-written; exact for finite input with |max| ≥ 1.5e-36 (the caller redoes the others).
TEXT ·quantizeQ8KAVX2(SB), NOSPLIT, $0-24
	MOVQ         nb+0(FP), CX
	MOVQ         src+8(FP), SI
	MOVQ         dst+16(FP), DI
	VBROADCASTSS q8abs<>(SB), Y15
	VMOVDQU      q8perm<>(SB), Y13
	VXORPS       X12, X12, X12

q8kblock:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ   $8, AX

q8kamax:
	Q8KAMAX4(0)
	ADDQ $128, SI
	DECQ AX
	JNZ  q8kamax
	SUBQ $1024, SI
	VMAXPS       Y1, Y0, Y0
	VMAXPS       Y3, Y2, Y2
	VMAXPS       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VMAXPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VMAXSS       X1, X0, X0            // amax
	VUCOMISS     X12, X0
	JEQ          q8kzero               // all zero (or NaN: the caller's check redoes it)

	// the first element whose magnitude is amax, with its sign
	VBROADCASTSS X0, Y4
	MOVQ         SI, AX

q8kfind:
	VANDPS    (AX), Y15, Y5
	VCMPPS    $0, Y4, Y5, Y5
	VMOVMSKPS Y5, BX
	TESTL     BX, BX
	JNZ       q8kfound
	ADDQ      $32, AX
	JMP       q8kfind

q8kfound:
	BSFL         BX, BX
	VMOVSS       (AX)(BX*4), X5        // max
	VMOVSS       q8km127<>(SB), X6
	VDIVSS       X5, X6, X6            // iscale = −127/max
	VMOVSS       q8kone<>(SB), X7
	VDIVSS       X6, X7, X7            // d = 1/iscale
	VMOVSS       X7, (DI)
	VBROADCASTSS X6, Y6
	MOVQ         $8, AX
	MOVQ         DI, DX

q8kq:
	VMULPS       (SI), Y6, Y0
	VMULPS       32(SI), Y6, Y1
	VMULPS       64(SI), Y6, Y2
	VMULPS       96(SI), Y6, Y3
	VCVTPS2DQ    Y0, Y0
	VCVTPS2DQ    Y1, Y1
	VCVTPS2DQ    Y2, Y2
	VCVTPS2DQ    Y3, Y3
	VPADDD       Y1, Y0, Y8            // elements 0…15 of the 32
	VPADDD       Y3, Y2, Y9            // 16…31
	VPHADDD      Y9, Y8, Y8
	VEXTRACTI128 $1, Y8, X9
	VPADDD       X9, X8, X8
	VPHADDD      X8, X8, X8            // [s0, s1, s0, s1]
	VPACKSSDW    X8, X8, X8
	VMOVD        X8, BX
	MOVL         BX, 260(DX)           // two bsums (DX advances 4 bytes per 32 elements)
	VPACKSSDW    Y1, Y0, Y0
	VPACKSSDW    Y3, Y2, Y2
	VPACKSSWB    Y2, Y0, Y0
	VPERMD       Y0, Y13, Y0
	VMOVDQU      Y0, 4(DI)
	ADDQ         $128, SI
	ADDQ         $32, DI
	ADDQ         $4, DX
	DECQ         AX
	JNZ          q8kq
	SUBQ         $256, DI
	JMP          q8knext

q8kzero:
	VPXOR   Y0, Y0, Y0
	MOVQ    $0, (DI)
	MOVL    $0, 8(DI)
	VMOVDQU Y0, 4(DI)
	VMOVDQU Y0, 36(DI)
	VMOVDQU Y0, 68(DI)
	VMOVDQU Y0, 100(DI)
	VMOVDQU Y0, 132(DI)
	VMOVDQU Y0, 164(DI)
	VMOVDQU Y0, 196(DI)
	VMOVDQU Y0, 228(DI)
	VMOVDQU Y0, 260(DI)
	ADDQ    $1024, SI

q8knext:
	ADDQ $292, DI
	DECQ CX
	JNZ  q8kblock
	VZEROUPPER
	RET

// func f32ToF16AVX2(n int, src *float32, dst *byte) bool
//
// Reference: QuantizeF16 for n (a multiple of 8) values, but for NaNs: VCVTPS2PH with rounding mode 0 (to
// nearest even) gives F32ToF16's bits for every value that is not a NaN; the unordered compares of all the
// values are or-ed into Y1, whose sign bits tell the caller whether to convert again.
TEXT ·f32ToF16AVX2(SB), NOSPLIT, $0-25
	MOVQ   n+0(FP), CX
	MOVQ   src+8(FP), SI
	MOVQ   dst+16(FP), DI
	VXORPS Y1, Y1, Y1
	SHRQ   $3, CX

f16cvt:
	VMOVUPS   (SI), Y0
	VCMPPS    $3, Y0, Y0, Y2
	VORPS     Y2, Y1, Y1
	VCVTPS2PH $0, Y0, X0
	VMOVDQU   X0, (DI)
	ADDQ      $32, SI
	ADDQ      $16, DI
	DECQ      CX
	JNZ       f16cvt

	VMOVMSKPS Y1, AX
	TESTL     AX, AX
	SETNE     ret+24(FP)
	VZEROUPPER
	RET

DATA bf16Round<>+0(SB)/4, $0x00007fff
DATA bf16Round<>+4(SB)/4, $0x00000001
DATA bf16Round<>+8(SB)/4, $0x7fffffff
DATA bf16Round<>+12(SB)/4, $0x7f800000
DATA bf16Round<>+16(SB)/4, $0x00000040
GLOBL bf16Round<>(SB), RODATA|NOPTR, $20

// BF16CVT sets the dwords of R to F32ToBF16 of the float32 in R (bits in the low word): u + 0x7fff + bit 16
// of u, shifted down 16; for a NaN (|u| > 0x7f800000) u >> 16 | 0x40. Clobbers T, U.
#define BF16CVT(R, T, U) \
	VPSRLD    $16, R, T     \
	VPAND     Y11, T, U     \
	VPADDD    Y10, U, U     \
	VPADDD    R, U, U       \
	VPSRLD    $16, U, U     \
	VPOR      Y14, T, T     \
	VPAND     Y12, R, R     \
	VPCMPGTD  Y13, R, R     \
	VPBLENDVB R, T, U, R

// func f32ToBF16AVX2(n int, src *float32, dst *byte)
//
// QuantizeBF16 of n (a multiple of 16) float32 at src: sixteen at a time, converted in their dwords, packed to
// words (VPACKUSDW, within each 128-bit half) and put in order (VPERMQ).
TEXT ·f32ToBF16AVX2(SB), NOSPLIT, $0-24
	MOVQ         n+0(FP), CX
	MOVQ         src+8(FP), SI
	MOVQ         dst+16(FP), DI
	VPBROADCASTD bf16Round<>+0(SB), Y10
	VPBROADCASTD bf16Round<>+4(SB), Y11
	VPBROADCASTD bf16Round<>+8(SB), Y12
	VPBROADCASTD bf16Round<>+12(SB), Y13
	VPBROADCASTD bf16Round<>+16(SB), Y14
	SHRQ         $4, CX
	JZ           bfcdone

bfcloop:
	VMOVDQU   (SI), Y0
	VMOVDQU   32(SI), Y1
	BF16CVT(Y0, Y2, Y3)
	BF16CVT(Y1, Y4, Y5)
	VPACKUSDW Y1, Y0, Y0
	VPERMQ    $0xd8, Y0, Y0
	VMOVDQU   Y0, (DI)
	ADDQ      $64, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       bfcloop

bfcdone:
	VZEROUPPER
	RET

// func f32RoundF16AVX2(n int, src *float32, dst *byte) bool
//
// dst (float32) = src rounded to F16 and back, for n (a multiple of 8) values: VCVTPS2PH (nearest even) and
// VCVTPH2PS; reports whether any was a NaN, whose payload the instructions keep and F32ToF16 does not.
TEXT ·f32RoundF16AVX2(SB), NOSPLIT, $0-25
	MOVQ   n+0(FP), CX
	MOVQ   src+8(FP), SI
	MOVQ   dst+16(FP), DI
	VXORPS Y1, Y1, Y1
	SHRQ   $3, CX
	JZ     f16rdone

f16rloop:
	VMOVUPS   (SI), Y0
	VCMPPS    $3, Y0, Y0, Y2
	VORPS     Y2, Y1, Y1
	VCVTPS2PH $0, Y0, X0
	VCVTPH2PS X0, Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       f16rloop

f16rdone:
	VMOVMSKPS Y1, AX
	TESTL     AX, AX
	SETNE     ret+24(FP)
	VZEROUPPER
	RET
