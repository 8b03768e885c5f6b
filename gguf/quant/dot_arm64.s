//go:build arm64 && !noasm

#include "textflag.h"

// NEON dot products for arm64, hand-written Plan 9 assembly. The Go assembler has no SDOT, SMULL, SMLAL,
// SADDLP, SADALP, SCVTF, FADD/FADDP/FMUL (vector) or FCVTL, so those are WORD encodings with the instruction
// in a comment beside each. Integer block sums are exact (SDOT, or SMULL/SMLAL into int16 lanes that cannot
// overflow, then SADDLP/SADALP into int32); each block's 4 int32 lanes are converted and accumulated with
// FMLA by the block's scale product, whose halves are widened through f16Table.

// Every loop prefetches the weights 4 KiB ahead (PRFM; it never faults), as the amd64 kernels do: decoding
// streams the weights from memory and the hardware prefetchers alone keep too few lines in flight.

// HSUM31 leaves the sum of the 4 lanes of V31 in F31 (FADDP V31.4S, V31.4S, V31.4S; FADDP S31, V31.2S).
#define HSUM31 \
	WORD $0x6e3fd7ff \
	WORD $0x7e30dbff // FADDP S31, V31.2S

// SCALE2 sets V6 to 4 copies of f16(R1)·f16(R2) (R3 = f16Table); clobbers R4, R5, F7.
#define SCALE2 \
	MOVHU (R1), R4          \
	MOVHU (R2), R5          \
	FMOVS (R3)(R4<<2), F6   \
	FMOVS (R3)(R5<<2), F7   \
	FMULS F7, F6, F6        \
	VDUP  V6.S[0], V6.S4

// func dotQ4_0Q8_0SDOT(nb int, w, a *byte) float32
//
// Reference: DotQ4_0Q8_0 (per block s = Σ (q−8)·y exactly; sum += s·dw·da). Needs the dotprod extension.
TEXT ·dotQ4_0Q8_0SDOT(SB), NOSPLIT, $0-28
	MOVD nb+0(FP), R0
	MOVD w+8(FP), R1
	MOVD a+16(FP), R2
	MOVD ·f16Table(SB), R3
	VMOVI $15, V15.B16
	VMOVI $8, V14.B16
	VEOR V31.B16, V31.B16, V31.B16

q40sdot:
	PRFM  4096(R1), PLDL1KEEP
	SCALE2
	ADD  $2, R1, R6
	ADD  $2, R2, R7
	VLD1 (R6), [V0.B16]
	VLD1 (R7), [V2.B16, V3.B16]
	VAND V15.B16, V0.B16, V1.B16
	VUSHR $4, V0.B16, V0.B16
	VSUB V14.B16, V1.B16, V1.B16
	VSUB V14.B16, V0.B16, V0.B16
	VEOR V4.B16, V4.B16, V4.B16
	WORD $0x4e829424 // SDOT V4.4S, V1.16B, V2.16B
	WORD $0x4e839404 // SDOT V4.4S, V0.16B, V3.16B
	WORD $0x4e21d884 // SCVTF V4.4S, V4.4S
	VFMLA V6.S4, V4.S4, V31.S4
	ADD  $18, R1
	ADD  $34, R2
	SUBS $1, R0
	BNE  q40sdot
	HSUM31
	FMOVS F31, ret+24(FP)
	RET

// func dotQ4_0Q8_0NEON(nb int, w, a *byte) float32
//
// Reference: DotQ4_0Q8_0, without dotprod: |(q−8)·y| ≤ 1024, so two products fit an int16 lane.
TEXT ·dotQ4_0Q8_0NEON(SB), NOSPLIT, $0-28
	MOVD nb+0(FP), R0
	MOVD w+8(FP), R1
	MOVD a+16(FP), R2
	MOVD ·f16Table(SB), R3
	VMOVI $15, V15.B16
	VMOVI $8, V14.B16
	VEOR V31.B16, V31.B16, V31.B16

q40neon:
	PRFM  4096(R1), PLDL1KEEP
	SCALE2
	ADD  $2, R1, R6
	ADD  $2, R2, R7
	VLD1 (R6), [V0.B16]
	VLD1 (R7), [V2.B16, V3.B16]
	VAND V15.B16, V0.B16, V1.B16
	VUSHR $4, V0.B16, V0.B16
	VSUB V14.B16, V1.B16, V1.B16
	VSUB V14.B16, V0.B16, V0.B16
	WORD $0x0e22c028 // SMULL V8.8H, V1.8B, V2.8B
	WORD $0x4e22c029 // SMULL2 V9.8H, V1.16B, V2.16B
	WORD $0x0e238008 // SMLAL V8.8H, V0.8B, V3.8B
	WORD $0x4e238009 // SMLAL2 V9.8H, V0.16B, V3.16B
	WORD $0x4e602904 // SADDLP V4.4S, V8.8H
	WORD $0x4e606924 // SADALP V4.4S, V9.8H
	WORD $0x4e21d884 // SCVTF V4.4S, V4.4S
	VFMLA V6.S4, V4.S4, V31.S4
	ADD  $18, R1
	ADD  $34, R2
	SUBS $1, R0
	BNE  q40neon
	HSUM31
	FMOVS F31, ret+24(FP)
	RET

// func dotQ8_0Q8_0SDOT(nb int, w, a *byte) float32
//
// Reference: DotQ8_0Q8_0 (per block s = Σ x·y exactly; sum += s·(dw·da)). Needs dotprod.
TEXT ·dotQ8_0Q8_0SDOT(SB), NOSPLIT, $0-28
	MOVD nb+0(FP), R0
	MOVD w+8(FP), R1
	MOVD a+16(FP), R2
	MOVD ·f16Table(SB), R3
	VEOR V31.B16, V31.B16, V31.B16

q80sdot:
	PRFM  4096(R1), PLDL1KEEP
	SCALE2
	ADD  $2, R1, R6
	ADD  $2, R2, R7
	VLD1 (R6), [V0.B16, V1.B16]
	VLD1 (R7), [V2.B16, V3.B16]
	VEOR V4.B16, V4.B16, V4.B16
	WORD $0x4e829404 // SDOT V4.4S, V0.16B, V2.16B
	WORD $0x4e839424 // SDOT V4.4S, V1.16B, V3.16B
	WORD $0x4e21d884 // SCVTF V4.4S, V4.4S
	VFMLA V6.S4, V4.S4, V31.S4
	ADD  $34, R1
	ADD  $34, R2
	SUBS $1, R0
	BNE  q80sdot
	HSUM31
	FMOVS F31, ret+24(FP)
	RET

// func dotQ8_0Q8_0NEON(nb int, w, a *byte) float32
//
// Reference: DotQ8_0Q8_0, without dotprod: a product of two int8 fits int16 but a sum of two may not, so
// each SMULL is widened into int32 at once with SADALP.
TEXT ·dotQ8_0Q8_0NEON(SB), NOSPLIT, $0-28
	MOVD nb+0(FP), R0
	MOVD w+8(FP), R1
	MOVD a+16(FP), R2
	MOVD ·f16Table(SB), R3
	VEOR V31.B16, V31.B16, V31.B16

q80neon:
	PRFM  4096(R1), PLDL1KEEP
	SCALE2
	ADD  $2, R1, R6
	ADD  $2, R2, R7
	VLD1 (R6), [V0.B16, V1.B16]
	VLD1 (R7), [V2.B16, V3.B16]
	WORD $0x0e22c008 // SMULL V8.8H, V0.8B, V2.8B
	WORD $0x4e22c009 // SMULL2 V9.8H, V0.16B, V2.16B
	WORD $0x0e23c02a // SMULL V10.8H, V1.8B, V3.8B
	WORD $0x4e23c02b // SMULL2 V11.8H, V1.16B, V3.16B
	WORD $0x4e602904 // SADDLP V4.4S, V8.8H
	WORD $0x4e606924 // SADALP V4.4S, V9.8H
	WORD $0x4e606944 // SADALP V4.4S, V10.8H
	WORD $0x4e606964 // SADALP V4.4S, V11.8H
	WORD $0x4e21d884 // SCVTF V4.4S, V4.4S
	VFMLA V6.S4, V4.S4, V31.S4
	ADD  $34, R1
	ADD  $34, R2
	SUBS $1, R0
	BNE  q80neon
	HSUM31
	FMOVS F31, ret+24(FP)
	RET

// func dotF32NEON(n int, w, a *byte) float32
//
// Reference: DotF32F32, n a multiple of 16, float32 accumulation in 16 lanes.
TEXT ·dotF32NEON(SB), NOSPLIT, $0-28
	MOVD n+0(FP), R0
	MOVD w+8(FP), R1
	MOVD a+16(FP), R2
	LSR  $4, R0
	VEOR V28.B16, V28.B16, V28.B16
	VEOR V29.B16, V29.B16, V29.B16
	VEOR V30.B16, V30.B16, V30.B16
	VEOR V31.B16, V31.B16, V31.B16

f32neon:
	PRFM  4096(R1), PLDL1KEEP
	PRFM  4160(R1), PLDL1KEEP
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA V4.S4, V0.S4, V28.S4
	VFMLA V5.S4, V1.S4, V29.S4
	VFMLA V6.S4, V2.S4, V30.S4
	VFMLA V7.S4, V3.S4, V31.S4
	SUBS $1, R0
	BNE  f32neon
	WORD $0x4e3dd79c // FADD V28.4S, V28.4S, V29.4S
	WORD $0x4e3fd7de // FADD V30.4S, V30.4S, V31.4S
	WORD $0x4e3ed79f // FADD V31.4S, V28.4S, V30.4S
	HSUM31
	FMOVS F31, ret+24(FP)
	RET

// func dotF16NEON(n int, w, a *byte) float32
//
// Reference: DotF16F16, n a multiple of 16, float32 accumulation in 16 lanes (halves widened with FCVTL).
TEXT ·dotF16NEON(SB), NOSPLIT, $0-28
	MOVD n+0(FP), R0
	MOVD w+8(FP), R1
	MOVD a+16(FP), R2
	LSR  $4, R0
	VEOR V28.B16, V28.B16, V28.B16
	VEOR V29.B16, V29.B16, V29.B16
	VEOR V30.B16, V30.B16, V30.B16
	VEOR V31.B16, V31.B16, V31.B16

f16neon:
	PRFM  4096(R1), PLDL1KEEP
	VLD1.P 32(R1), [V0.B16, V1.B16]
	VLD1.P 32(R2), [V2.B16, V3.B16]
	WORD $0x0e217804 // FCVTL V4.4S, V0.4H
	WORD $0x4e217805 // FCVTL2 V5.4S, V0.8H
	WORD $0x0e217826 // FCVTL V6.4S, V1.4H
	WORD $0x4e217827 // FCVTL2 V7.4S, V1.8H
	WORD $0x0e217848 // FCVTL V8.4S, V2.4H
	WORD $0x4e217849 // FCVTL2 V9.4S, V2.8H
	WORD $0x0e21786a // FCVTL V10.4S, V3.4H
	WORD $0x4e21786b // FCVTL2 V11.4S, V3.8H
	VFMLA V8.S4, V4.S4, V28.S4
	VFMLA V9.S4, V5.S4, V29.S4
	VFMLA V10.S4, V6.S4, V30.S4
	VFMLA V11.S4, V7.S4, V31.S4
	SUBS $1, R0
	BNE  f16neon
	WORD $0x4e3dd79c // FADD V28.4S, V28.4S, V29.4S
	WORD $0x4e3fd7de // FADD V30.4S, V30.4S, V31.4S
	WORD $0x4e3ed79f // FADD V31.4S, V28.4S, V30.4S
	HSUM31
	FMOVS F31, ret+24(FP)
	RET

// func dotQ4_KQ8_KSDOT(nb int, w, a *byte) float32
//
// Scalars live in F24…F27, clear of the vector registers the loops load (F4 is V4's low lane).
//
// Reference: DotQ4_KQ8_K. Per super-block the integer Σ_j scale_j·Σ q·y is summed exactly in R14 (SDOT
// per group of 32, ADDV, MADD by the scale) and Σ bsums·mins in a vector (SMULL/SMLAL2 of the pair sums of
// bsums by the minimums); both are scaled in float32. Needs dotprod.
TEXT ·dotQ4_KQ8_KSDOT(SB), NOSPLIT, $0-28
	MOVD  nb+0(FP), R0
	MOVD  w+8(FP), R1
	MOVD  a+16(FP), R2
	MOVD  ·f16Table(SB), R3
	VMOVI $15, V15.B16
	VEOR  V31.B16, V31.B16, V31.B16

q4ksb:
	PRFM  4096(R1), PLDL1KEEP
	PRFM  4160(R1), PLDL1KEEP
	PRFM  4224(R1), PLDL1KEEP
	MOVHU (R1), R4
	MOVHU 2(R1), R5
	FMOVS (R3)(R4<<2), F24
	FMOVS (R3)(R5<<2), F25
	FMOVS (R2), F27
	FMULS F27, F24, F24               // d·yd
	FMULS F27, F25, F25               // dmin·yd
	// the 8 scales (R6) and 8 minimums (R11) from the 12 packed bytes, as ggml's utmp shuffle
	MOVWU 4(R1), R6
	MOVWU 8(R1), R7
	MOVWU 12(R1), R8
	LSRW  $4, R8, R9
	ANDW  $0x0f0f0f0f, R9
	LSRW  $6, R7, R10
	ANDW  $0x03030303, R10
	ORRW  R10<<4, R9, R9           // utmp3
	ANDW  $0x3f3f3f3f, R7, R11     // utmp2
	ANDW  $0x0f0f0f0f, R8, R12
	LSRW  $6, R6, R10
	ANDW  $0x03030303, R10
	ORRW  R10<<4, R12, R12         // utmp1
	ANDW  $0x3f3f3f3f, R6, R6      // utmp0
	ORR   R12<<32, R6, R6
	ORR   R9<<32, R11, R11
	// minimum term: Σ_j min_j·(bsums[2j] + bsums[2j+1])
	ADD   $260, R2, R13
	VLD1  (R13), [V0.H8, V1.H8]
	VADDP V1.H8, V0.H8, V0.H8
	VMOV  R11, V1.D[0]
	VUXTL V1.B8, V1.H8
	WORD $0x0e61c002 // SMULL V2.4S, V0.4H, V1.4H
	WORD $0x4e618002 // SMLAL2 V2.4S, V0.8H, V1.8H
	VADDV V2.S4, V2
	VMOV  V2.S[0], R13
	SCVTFWS R13, F26
	FMULS F25, F26, F26
	FSUBS F26, F31, F31
	// Σ_j scale_j·Σ q·y over the 8 groups of 32, two per 32 bytes of quants
	MOVD  ZR, R14
	ADD   $16, R1, R5
	ADD   $4, R2, R13
	MOVD  $4, R10

q4kchunk:
	VLD1.P 32(R5), [V0.B16, V1.B16]
	VLD1.P 64(R13), [V2.B16, V3.B16, V4.B16, V5.B16]
	VAND  V15.B16, V0.B16, V6.B16
	VAND  V15.B16, V1.B16, V7.B16
	VUSHR $4, V0.B16, V8.B16
	VUSHR $4, V1.B16, V9.B16
	VEOR  V10.B16, V10.B16, V10.B16
	VEOR  V11.B16, V11.B16, V11.B16
	WORD $0x4e8294ca // SDOT V10.4S, V6.16B, V2.16B
	WORD $0x4e8394ea // SDOT V10.4S, V7.16B, V3.16B
	WORD $0x4e84950b // SDOT V11.4S, V8.16B, V4.16B
	WORD $0x4e85952b // SDOT V11.4S, V9.16B, V5.16B
	VADDV V10.S4, V10
	VADDV V11.S4, V11
	VMOV  V10.S[0], R11
	VMOV  V11.S[0], R12
	MOVW  R11, R11
	MOVW  R12, R12
	AND   $0xff, R6, R4
	MADD  R4, R14, R11, R14
	LSR   $8, R6
	AND   $0xff, R6, R4
	MADD  R4, R14, R12, R14
	LSR   $8, R6
	SUBS  $1, R10
	BNE   q4kchunk
	SCVTFS R14, F26
	FMULS F24, F26, F26
	FADDS F26, F31, F31
	ADD   $144, R1
	ADD   $292, R2
	SUBS  $1, R0
	BNE   q4ksb
	FMOVS F31, ret+24(FP)
	RET

// Each Q6_K group of 16 below: q −= 32, SDOT with its 16 bytes of y, ADDV, and MADD by its int8 scale
// (at off(R8)) into R14.

// func dotQ6_KQ8_KSDOT(nb int, w, a *byte) float32
//
// Reference: DotQ6_KQ8_K (per super-block d·yd·Σ_g scale_g·Σ (q−32)·y, the integer sum exact in R14).
// Needs dotprod.
TEXT ·dotQ6_KQ8_KSDOT(SB), NOSPLIT, $0-28
	MOVD  nb+0(FP), R0
	MOVD  w+8(FP), R1
	MOVD  a+16(FP), R2
	MOVD  ·f16Table(SB), R3
	VMOVI $15, V15.B16
	VMOVI $3, V13.B16
	VMOVI $32, V14.B16
	VEOR  V31.B16, V31.B16, V31.B16

q6ksb:
	PRFM  4096(R1), PLDL1KEEP
	PRFM  4160(R1), PLDL1KEEP
	PRFM  4224(R1), PLDL1KEEP
	PRFM  4288(R1), PLDL1KEEP
	MOVHU 208(R1), R4
	FMOVS (R3)(R4<<2), F24
	FMOVS (R2), F27
	FMULS F27, F24, F24               // d·yd
	MOVD  ZR, R14
	MOVD  R1, R5                   // ql
	ADD   $128, R1, R6             // qh
	ADD   $4, R2, R13              // y
	ADD   $192, R1, R8             // scales
	MOVD  $2, R10

q6khalf:
	VLD1.P 32(R5), [V0.B16, V1.B16]    // ql[0:32]
	VLD1.P 32(R5), [V2.B16, V3.B16]    // ql[32:64]
	VLD1.P 32(R6), [V4.B16, V5.B16]    // qh
	VLD1.P 64(R13), [V16.B16, V17.B16, V18.B16, V19.B16]
	VLD1.P 64(R13), [V20.B16, V21.B16, V22.B16, V23.B16]
	// quarter 0: low nibbles of ql[0:32], qh bits 0-1
	VAND  V15.B16, V0.B16, V6.B16
	VAND  V15.B16, V1.B16, V7.B16
	VAND  V13.B16, V4.B16, V8.B16
	VAND  V13.B16, V5.B16, V9.B16
	VSHL  $4, V8.B16, V8.B16
	VSHL  $4, V9.B16, V9.B16
	VORR  V8.B16, V6.B16, V6.B16
	VORR  V9.B16, V7.B16, V7.B16
	VSUB  V14.B16, V6.B16, V6.B16
	VEOR  V10.B16, V10.B16, V10.B16
	WORD $0x4e9094ca // SDOT V10.4S, V6.16B, V16.16B
	VADDV V10.S4, V10
	VMOV  V10.S[0], R11
	MOVW  R11, R11
	MOVB  0(R8), R4
	MADD  R4, R14, R11, R14
	VSUB  V14.B16, V7.B16, V7.B16
	VEOR  V10.B16, V10.B16, V10.B16
	WORD $0x4e9194ea // SDOT V10.4S, V7.16B, V17.16B
	VADDV V10.S4, V10
	VMOV  V10.S[0], R11
	MOVW  R11, R11
	MOVB  1(R8), R4
	MADD  R4, R14, R11, R14
	// quarter 1: low nibbles of ql[32:64], qh bits 2-3
	VAND  V15.B16, V2.B16, V6.B16
	VAND  V15.B16, V3.B16, V7.B16
	VUSHR $2, V4.B16, V8.B16
	VUSHR $2, V5.B16, V9.B16
	VAND  V13.B16, V8.B16, V8.B16
	VAND  V13.B16, V9.B16, V9.B16
	VSHL  $4, V8.B16, V8.B16
	VSHL  $4, V9.B16, V9.B16
	VORR  V8.B16, V6.B16, V6.B16
	VORR  V9.B16, V7.B16, V7.B16
	VSUB  V14.B16, V6.B16, V6.B16
	VEOR  V10.B16, V10.B16, V10.B16
	WORD $0x4e9294ca // SDOT V10.4S, V6.16B, V18.16B
	VADDV V10.S4, V10
	VMOV  V10.S[0], R11
	MOVW  R11, R11
	MOVB  2(R8), R4
	MADD  R4, R14, R11, R14
	VSUB  V14.B16, V7.B16, V7.B16
	VEOR  V10.B16, V10.B16, V10.B16
	WORD $0x4e9394ea // SDOT V10.4S, V7.16B, V19.16B
	VADDV V10.S4, V10
	VMOV  V10.S[0], R11
	MOVW  R11, R11
	MOVB  3(R8), R4
	MADD  R4, R14, R11, R14
	// quarter 2: high nibbles of ql[0:32], qh bits 4-5
	VUSHR $4, V0.B16, V6.B16
	VUSHR $4, V1.B16, V7.B16
	VUSHR $4, V4.B16, V8.B16
	VUSHR $4, V5.B16, V9.B16
	VAND  V13.B16, V8.B16, V8.B16
	VAND  V13.B16, V9.B16, V9.B16
	VSHL  $4, V8.B16, V8.B16
	VSHL  $4, V9.B16, V9.B16
	VORR  V8.B16, V6.B16, V6.B16
	VORR  V9.B16, V7.B16, V7.B16
	VSUB  V14.B16, V6.B16, V6.B16
	VEOR  V10.B16, V10.B16, V10.B16
	WORD $0x4e9494ca // SDOT V10.4S, V6.16B, V20.16B
	VADDV V10.S4, V10
	VMOV  V10.S[0], R11
	MOVW  R11, R11
	MOVB  4(R8), R4
	MADD  R4, R14, R11, R14
	VSUB  V14.B16, V7.B16, V7.B16
	VEOR  V10.B16, V10.B16, V10.B16
	WORD $0x4e9594ea // SDOT V10.4S, V7.16B, V21.16B
	VADDV V10.S4, V10
	VMOV  V10.S[0], R11
	MOVW  R11, R11
	MOVB  5(R8), R4
	MADD  R4, R14, R11, R14
	// quarter 3: high nibbles of ql[32:64], qh bits 6-7
	VUSHR $4, V2.B16, V6.B16
	VUSHR $4, V3.B16, V7.B16
	VUSHR $6, V4.B16, V8.B16
	VUSHR $6, V5.B16, V9.B16
	VSHL  $4, V8.B16, V8.B16
	VSHL  $4, V9.B16, V9.B16
	VORR  V8.B16, V6.B16, V6.B16
	VORR  V9.B16, V7.B16, V7.B16
	VSUB  V14.B16, V6.B16, V6.B16
	VEOR  V10.B16, V10.B16, V10.B16
	WORD $0x4e9694ca // SDOT V10.4S, V6.16B, V22.16B
	VADDV V10.S4, V10
	VMOV  V10.S[0], R11
	MOVW  R11, R11
	MOVB  6(R8), R4
	MADD  R4, R14, R11, R14
	VSUB  V14.B16, V7.B16, V7.B16
	VEOR  V10.B16, V10.B16, V10.B16
	WORD $0x4e9794ea // SDOT V10.4S, V7.16B, V23.16B
	VADDV V10.S4, V10
	VMOV  V10.S[0], R11
	MOVW  R11, R11
	MOVB  7(R8), R4
	MADD  R4, R14, R11, R14
	ADD   $8, R8
	SUBS  $1, R10
	BNE   q6khalf
	SCVTFS R14, F26
	FMULS F24, F26, F26
	FADDS F26, F31, F31
	ADD   $210, R1
	ADD   $292, R2
	SUBS  $1, R0
	BNE   q6ksb
	FMOVS F31, ret+24(FP)
	RET
