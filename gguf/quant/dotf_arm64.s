//go:build arm64 && !noasm

#include "textflag.h"

// Float dot products in the reference build's lanes (dot_float.go), NEON. A 16-float AVX-512 vector of the
// reference is four 4-float registers here (lanes 0…3, 4…7, 8…11, 12…15), which changes nothing: every
// lane is accumulated by the same fused multiply-adds (FMLA) in the same order, and the reductions add the
// same pairs. FCVTL widens halves to float32 exactly. The vector FADD/FADDP and FCVTL are WORD encodings
// (the Go assembler lacks them), the instruction in a comment beside each.
//
// Registers: R0 steps left, R1 weights, R2 activations; ggml_vec_dot's four 16-lane accumulators are
// V16…V19, V20…V23, V24…V27, V28…V31 (tinyBLAS's one is V16…V19); V0…V15 hold the loaded elements.

// REDUCE16 leaves _mm512_reduce_add_ps of the 16 lanes V16…V19 in F16: t = lanes 0…7 + lanes 8…15, u =
// t 0…3 + t 4…7, then (u0 + u2) + (u1 + u3).
#define REDUCE16 \
	WORD $0x4e32d610 /* FADD V16.4S, V16.4S, V18.4S */ \
	WORD $0x4e33d631 /* FADD V17.4S, V17.4S, V19.4S */ \
	WORD $0x4e31d610 /* FADD V16.4S, V16.4S, V17.4S */ \
	VDUP V16.D[1], V17.D2 \
	WORD $0x4e31d610 /* FADD V16.4S, V16.4S, V17.4S */ \
	WORD $0x7e30da10 /* FADDP S16, V16.2S */

// FOLD4 folds the four accumulators as GGML_F32x16_REDUCE (0 += 2, 1 += 3, 0 += 1), then REDUCE16.
#define FOLD4 \
	WORD $0x4e38d610 /* FADD V16.4S, V16.4S, V24.4S */ \
	WORD $0x4e39d631 /* FADD V17.4S, V17.4S, V25.4S */ \
	WORD $0x4e3ad652 /* FADD V18.4S, V18.4S, V26.4S */ \
	WORD $0x4e3bd673 /* FADD V19.4S, V19.4S, V27.4S */ \
	WORD $0x4e3cd694 /* FADD V20.4S, V20.4S, V28.4S */ \
	WORD $0x4e3dd6b5 /* FADD V21.4S, V21.4S, V29.4S */ \
	WORD $0x4e3ed6d6 /* FADD V22.4S, V22.4S, V30.4S */ \
	WORD $0x4e3fd6f7 /* FADD V23.4S, V23.4S, V31.4S */ \
	WORD $0x4e34d610 /* FADD V16.4S, V16.4S, V20.4S */ \
	WORD $0x4e35d631 /* FADD V17.4S, V17.4S, V21.4S */ \
	WORD $0x4e36d652 /* FADD V18.4S, V18.4S, V22.4S */ \
	WORD $0x4e37d673 /* FADD V19.4S, V19.4S, V23.4S */ \
	REDUCE16

#define ZERO4(a, b, c, d) \
	VEOR a.B16, a.B16, a.B16 \
	VEOR b.B16, b.B16, b.B16 \
	VEOR c.B16, c.B16, c.B16 \
	VEOR d.B16, d.B16, d.B16

// FMA16 fuses the 16 products W·A (W0…W3 by A0…A3) into the 16-lane accumulator ACC0…ACC3.
#define FMA16(W0, W1, W2, W3, A0, A1, A2, A3, ACC0, ACC1, ACC2, ACC3) \
	VFMLA A0.S4, W0.S4, ACC0.S4 \
	VFMLA A1.S4, W1.S4, ACC1.S4 \
	VFMLA A2.S4, W2.S4, ACC2.S4 \
	VFMLA A3.S4, W3.S4, ACC3.S4

// func dotF32VecNEON(n int, w, a *byte) float32
//
// Reference: DotF32F32's vector part (n a positive multiple of 64): element i of each step of 64 goes to
// accumulator i/16, lane i mod 16.
TEXT ·dotF32VecNEON(SB), NOSPLIT, $0-28
	MOVD n+0(FP), R0
	MOVD w+8(FP), R1
	MOVD a+16(FP), R2
	LSR  $6, R0
	ZERO4(V16, V17, V18, V19)
	ZERO4(V20, V21, V22, V23)
	ZERO4(V24, V25, V26, V27)
	ZERO4(V28, V29, V30, V31)

f32vloop:
	PRFM   4096(R1), PLDL1KEEP
	PRFM   4160(R1), PLDL1KEEP
	PRFM   4224(R1), PLDL1KEEP
	PRFM   4288(R1), PLDL1KEEP
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(R1), [V8.S4, V9.S4, V10.S4, V11.S4]
	VLD1.P 64(R2), [V12.S4, V13.S4, V14.S4, V15.S4]
	FMA16(V0, V1, V2, V3, V4, V5, V6, V7, V16, V17, V18, V19)
	FMA16(V8, V9, V10, V11, V12, V13, V14, V15, V20, V21, V22, V23)
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(R1), [V8.S4, V9.S4, V10.S4, V11.S4]
	VLD1.P 64(R2), [V12.S4, V13.S4, V14.S4, V15.S4]
	FMA16(V0, V1, V2, V3, V4, V5, V6, V7, V24, V25, V26, V27)
	FMA16(V8, V9, V10, V11, V12, V13, V14, V15, V28, V29, V30, V31)
	SUBS   $1, R0
	BNE    f32vloop
	FOLD4
	FMOVS  F16, ret+24(FP)
	RET

// func dotF32VecNEONf(n int, x, y *float32) float32
//
// dotF32VecNEON on float32 pointers.
TEXT ·dotF32VecNEONf(SB), NOSPLIT, $0-28
	JMP ·dotF32VecNEON(SB)

// func dotF16VecNEON(n int, w, a *byte) float32
//
// Reference: DotF16F16's vector part (n a positive multiple of 64), as dotF32VecNEON on widened halves.
TEXT ·dotF16VecNEON(SB), NOSPLIT, $0-28
	MOVD n+0(FP), R0
	MOVD w+8(FP), R1
	MOVD a+16(FP), R2
	LSR  $6, R0
	ZERO4(V16, V17, V18, V19)
	ZERO4(V20, V21, V22, V23)
	ZERO4(V24, V25, V26, V27)
	ZERO4(V28, V29, V30, V31)

f16vloop:
	PRFM   4096(R1), PLDL1KEEP
	PRFM   4160(R1), PLDL1KEEP
	// elements 0…31: weights V0, V1 → V8…V11, activations V4, V5 → V12…V15
	VLD1.P 64(R1), [V0.H8, V1.H8, V2.H8, V3.H8]
	VLD1.P 64(R2), [V4.H8, V5.H8, V6.H8, V7.H8]
	WORD $0x0e217808 // FCVTL V8.4S, V0.4H
	WORD $0x4e217809 // FCVTL2 V9.4S, V0.8H
	WORD $0x0e21782a // FCVTL V10.4S, V1.4H
	WORD $0x4e21782b // FCVTL2 V11.4S, V1.8H
	WORD $0x0e21788c // FCVTL V12.4S, V4.4H
	WORD $0x4e21788d // FCVTL2 V13.4S, V4.8H
	WORD $0x0e2178ae // FCVTL V14.4S, V5.4H
	WORD $0x4e2178af // FCVTL2 V15.4S, V5.8H
	FMA16(V8, V9, V10, V11, V12, V13, V14, V15, V16, V17, V18, V19)
	// elements 32…63: V2, V3 and V6, V7
	WORD $0x0e217848 // FCVTL V8.4S, V2.4H
	WORD $0x4e217849 // FCVTL2 V9.4S, V2.8H
	WORD $0x0e21786a // FCVTL V10.4S, V3.4H
	WORD $0x4e21786b // FCVTL2 V11.4S, V3.8H
	WORD $0x0e2178cc // FCVTL V12.4S, V6.4H
	WORD $0x4e2178cd // FCVTL2 V13.4S, V6.8H
	WORD $0x0e2178ee // FCVTL V14.4S, V7.4H
	WORD $0x4e2178ef // FCVTL2 V15.4S, V7.8H
	FMA16(V8, V9, V10, V11, V12, V13, V14, V15, V20, V21, V22, V23)
	// elements 64…127 into the third and fourth accumulators
	VLD1.P 64(R1), [V0.H8, V1.H8, V2.H8, V3.H8]
	VLD1.P 64(R2), [V4.H8, V5.H8, V6.H8, V7.H8]
	WORD $0x0e217808 // FCVTL V8.4S, V0.4H
	WORD $0x4e217809 // FCVTL2 V9.4S, V0.8H
	WORD $0x0e21782a // FCVTL V10.4S, V1.4H
	WORD $0x4e21782b // FCVTL2 V11.4S, V1.8H
	WORD $0x0e21788c // FCVTL V12.4S, V4.4H
	WORD $0x4e21788d // FCVTL2 V13.4S, V4.8H
	WORD $0x0e2178ae // FCVTL V14.4S, V5.4H
	WORD $0x4e2178af // FCVTL2 V15.4S, V5.8H
	FMA16(V8, V9, V10, V11, V12, V13, V14, V15, V24, V25, V26, V27)
	WORD $0x0e217848 // FCVTL V8.4S, V2.4H
	WORD $0x4e217849 // FCVTL2 V9.4S, V2.8H
	WORD $0x0e21786a // FCVTL V10.4S, V3.4H
	WORD $0x4e21786b // FCVTL2 V11.4S, V3.8H
	WORD $0x0e2178cc // FCVTL V12.4S, V6.4H
	WORD $0x4e2178cd // FCVTL2 V13.4S, V6.8H
	WORD $0x0e2178ee // FCVTL V14.4S, V7.4H
	WORD $0x4e2178ef // FCVTL2 V15.4S, V7.8H
	FMA16(V8, V9, V10, V11, V12, V13, V14, V15, V28, V29, V30, V31)
	SUBS   $1, R0
	BNE    f16vloop
	FOLD4
	FMOVS  F16, ret+24(FP)
	RET

// func dotF32TiledNEON(n int, w, a *byte) float32
//
// Reference: DotF32F32Tiled (n a positive multiple of 16): element i into lane i mod 16.
TEXT ·dotF32TiledNEON(SB), NOSPLIT, $0-28
	MOVD n+0(FP), R0
	MOVD w+8(FP), R1
	MOVD a+16(FP), R2
	LSR  $4, R0
	ZERO4(V16, V17, V18, V19)

f32tloop:
	PRFM   4096(R1), PLDL1KEEP
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	FMA16(V0, V1, V2, V3, V4, V5, V6, V7, V16, V17, V18, V19)
	SUBS   $1, R0
	BNE    f32tloop
	REDUCE16
	FMOVS  F16, ret+24(FP)
	RET

// func dotF16TiledNEON(n int, w, a *byte) float32
//
// Reference: DotF16F16Tiled (n a positive multiple of 16).
TEXT ·dotF16TiledNEON(SB), NOSPLIT, $0-28
	MOVD n+0(FP), R0
	MOVD w+8(FP), R1
	MOVD a+16(FP), R2
	LSR  $4, R0
	ZERO4(V16, V17, V18, V19)

f16tloop:
	PRFM   4096(R1), PLDL1KEEP
	VLD1.P 32(R1), [V0.H8, V1.H8]
	VLD1.P 32(R2), [V4.H8, V5.H8]
	WORD $0x0e217808 // FCVTL V8.4S, V0.4H
	WORD $0x4e217809 // FCVTL2 V9.4S, V0.8H
	WORD $0x0e21782a // FCVTL V10.4S, V1.4H
	WORD $0x4e21782b // FCVTL2 V11.4S, V1.8H
	WORD $0x0e21788c // FCVTL V12.4S, V4.4H
	WORD $0x4e21788d // FCVTL2 V13.4S, V4.8H
	WORD $0x0e2178ae // FCVTL V14.4S, V5.4H
	WORD $0x4e2178af // FCVTL2 V15.4S, V5.8H
	FMA16(V8, V9, V10, V11, V12, V13, V14, V15, V16, V17, V18, V19)
	SUBS   $1, R0
	BNE    f16tloop
	REDUCE16
	FMOVS  F16, ret+24(FP)
	RET
