//go:build arm64 && !noasm

#include "textflag.h"

// K-quant dot products in the reference's arithmetic (dot_kquants.go), plain NEON, hand-written. The Go
// assembler lacks SMULL/SMLAL, SXTL, SCVTF and the vector FADD/FMUL; they are WORD encodings with the
// instruction in a comment beside each.
//
// The reference keeps eight integer lanes per super-block, lane l summing scale·q·y over the elements e ≡ l
// (mod 8). That is the layout of SMULL/SMLAL on eight bytes: int16 product k of SMULL Vd.8H, Vn.8B, Vm.8B
// (or SMLAL2 on the upper eight bytes) comes from element k of the eight, and every group of 16 or 32
// elements starts at a multiple of 8, so int16 lane k of a group's SMULL/SMLAL2 chain is its residue k. A
// group's residues (|Σ| ≤ 4·31·128 for Q4_K/Q5_K: no int16 overflow) are then multiplied
// by the group's scale and widened into the int32 residue lanes (SMLAL/SMLAL2 by element: residues 0…3 in
// V30, 4…7 in V31). Products of different groups are never mixed in int16, so the integer lanes are the
// reference's exactly. SDOT does not help here: it adds four neighbouring bytes, which are four residues.
// (The vec_dot orders of Q4_K, Q5_K and Q6_K follow the reference build's AVX2 lanes instead, see
// dotQ4_KQ8_KNEON, dotQ5_KQ8_KNEON and dotQ6_KQ8_KNEON; Q4_K's repacked order adds the residues up per pair of
// groups, see dotQ4_KQ8_KRepackedNEON.)
//
// Per super-block the lanes are converted to float32 (exactly, |lane| < 2^24), multiplied by d·yd and added
// to the float lanes V28 (0…3), V29 (4…7) with FMUL then FADD, as the reference's
// sums[l] += float32(d·float32(lane)); Q4_K/Q5_K subtract float32(dmin·yd)·float32(Σ bsums·mins) from the
// scalar F27; at the end F27 + lane 0 + lane 1 + … + lane 7 is added in that order.
//
// Registers: R0 super-blocks left, R1 weights, R2 activations (Q8_K: d float32 at 0, quants at 4, bsums
// int16 at 260; 292 bytes), R5 weight quants, R13 activation quants; F24 = d·yd, F25 = dmin·yd, V13 the
// group scales as int16 (the next ones in lanes 0 and 1 for Q4_K/Q5_K), V15 = 0x0F bytes.

// KD sets F24 to f16(doff(R1))·yd (yd the float32 at (R2)). Clobbers R4, F26.
#define KD(doff) \
	MOVHU  doff(R1), R4 \
	FMOVS  R4, F24      \
	FCVTHS F24, F24     \
	FMOVS  (R2), F26    \
	FMULS  F26, F24, F24

// KMINS sets F25 to f16(2(R1))·yd and subtracts float32(F25·float32(Σ_k bsums_k·min_{k/2})) from F27, the
// minimums packed as bytes in R11 (K4SCALES). The pair sums of bsums fit int16 (|bsum| ≤ 16·128); the sum
// is exact in int32. Clobbers R4, R13, V0…V2, V12, F26.
#define KMINS \
	MOVHU   2(R1), R4                \
	FMOVS   R4, F25                  \
	FCVTHS  F25, F25                 \
	FMOVS   (R2), F26                \
	FMULS   F26, F25, F25            \
	VMOV    R11, V12.D[0]            \
	VUXTL   V12.B8, V12.H8           \
	ADD     $260, R2, R13            \
	VLD1    (R13), [V0.H8, V1.H8]    \
	VADDP   V1.H8, V0.H8, V0.H8      \
	WORD $0x0e6cc002 /* SMULL V2.4S, V0.4H, V12.4H */ \
	WORD $0x4e6c8002 /* SMLAL2 V2.4S, V0.8H, V12.8H */ \
	VADDV   V2.S4, V2                \
	VMOV    V2.S[0], R13             \
	SCVTFWS R13, F26                 \
	FMULS   F25, F26, F26            \
	FSUBS   F26, F27, F27

// K4SCALES unpacks the 12 scale bytes at 4(R1) as scaleMinK4 (ggml's utmp shuffle): the eight 6-bit
// scales as int16 into V13, the eight minimums as bytes into R11. Clobbers R6…R10, R12.
#define K4SCALES \
	MOVWU 4(R1), R6             \
	MOVWU 8(R1), R7             \
	MOVWU 12(R1), R8            \
	LSRW  $4, R8, R9            \
	ANDW  $0x0f0f0f0f, R9       \
	LSRW  $6, R7, R10           \
	ANDW  $0x03030303, R10      \
	ORRW  R10<<4, R9, R9        \
	ANDW  $0x3f3f3f3f, R7, R11  \
	ANDW  $0x0f0f0f0f, R8, R12  \
	LSRW  $6, R6, R10           \
	ANDW  $0x03030303, R10      \
	ORRW  R10<<4, R12, R12      \
	ANDW  $0x3f3f3f3f, R6, R6   \
	ORR   R12<<32, R6, R6       \
	ORR   R9<<32, R11, R11      \
	VMOV  R6, V13.D[0]          \
	VUXTL V13.B8, V13.H8

// K32PAIR adds groups 2c (quants V6, V7: elements 0…15, 16…31; activations V2, V3) and 2c+1 (quants V8,
// V9; activations V4, V5) with the scales in lanes 0 and 1 of V13 to the residue lanes V30, V31, and moves
// the next two scales to lanes 0 and 1. Clobbers V10, V11.
#define K32PAIR \
	WORD $0x0e22c0ca /* SMULL V10.8H, V6.8B, V2.8B */ \
	WORD $0x4e2280ca /* SMLAL2 V10.8H, V6.16B, V2.16B */ \
	WORD $0x0e2380ea /* SMLAL V10.8H, V7.8B, V3.8B */ \
	WORD $0x4e2380ea /* SMLAL2 V10.8H, V7.16B, V3.16B */ \
	WORD $0x0e24c10b /* SMULL V11.8H, V8.8B, V4.8B */ \
	WORD $0x4e24810b /* SMLAL2 V11.8H, V8.16B, V4.16B */ \
	WORD $0x0e25812b /* SMLAL V11.8H, V9.8B, V5.8B */ \
	WORD $0x4e25812b /* SMLAL2 V11.8H, V9.16B, V5.16B */ \
	WORD $0x0f4d215e /* SMLAL V30.4S, V10.4H, V13.H[0] */ \
	WORD $0x4f4d215f /* SMLAL2 V31.4S, V10.8H, V13.H[0] */ \
	WORD $0x0f5d217e /* SMLAL V30.4S, V11.4H, V13.H[1] */ \
	WORD $0x4f5d217f /* SMLAL2 V31.4S, V11.8H, V13.H[1] */ \
	VEXT $4, V13.B16, V13.B16, V13.B16

// KFINISH adds the super-block's integer lanes V30, V31 into the float lanes V28, V29:
// sums[l] += float32(F24·float32(lane l)).
#define KFINISH \
	WORD $0x4e21dbde /* SCVTF V30.4S, V30.4S */ \
	WORD $0x4e21dbff /* SCVTF V31.4S, V31.4S */ \
	VDUP V24.S[0], V26.S4 \
	WORD $0x6e3adfde /* FMUL V30.4S, V30.4S, V26.4S */ \
	WORD $0x6e3adfff /* FMUL V31.4S, V31.4S, V26.4S */ \
	WORD $0x4e3ed79c /* FADD V28.4S, V28.4S, V30.4S */ \
	WORD $0x4e3fd7bd /* FADD V29.4S, V29.4S, V31.4S */

// KDONE leaves F27 + lane 0 + lane 1 + … + lane 7 (V28, then V29), added in that order, in F27.
#define KDONE \
	FADDS F28, F27, F27    \
	VDUP  V28.S[1], V0.S4  \
	FADDS F0, F27, F27     \
	VDUP  V28.S[2], V0.S4  \
	FADDS F0, F27, F27     \
	VDUP  V28.S[3], V0.S4  \
	FADDS F0, F27, F27     \
	FADDS F29, F27, F27    \
	VDUP  V29.S[1], V0.S4  \
	FADDS F0, F27, F27     \
	VDUP  V29.S[2], V0.S4  \
	FADDS F0, F27, F27     \
	VDUP  V29.S[3], V0.S4  \
	FADDS F0, F27, F27

// KSTART loads the arguments and clears the float lanes V28, V29 and the scalar sum F27.
#define KSTART \
	MOVD  nb+0(FP), R0 \
	MOVD  w+8(FP), R1  \
	MOVD  a+16(FP), R2 \
	VMOVI $15, V15.B16 \
	VEOR  V27.B16, V27.B16, V27.B16 \
	VEOR  V28.B16, V28.B16, V28.B16 \
	VEOR  V29.B16, V29.B16, V29.B16

// Q4NPAIR0 is Q5NPAIR0 for Q4_K (no fifth bits).
#define Q4NPAIR0 \
	VLD1.P 32(R5), [V0.B16, V1.B16] \
	VLD1.P 64(R13), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VAND  V15.B16, V0.B16, V6.B16 \
	VAND  V15.B16, V1.B16, V7.B16 \
	VUSHR $4, V0.B16, V10.B16 \
	VUSHR $4, V1.B16, V11.B16 \
	WORD $0x0e22c0c8 /* SMULL V8.8H, V6.8B, V2.8B */ \
	WORD $0x4e22c0c9 /* SMULL2 V9.8H, V6.16B, V2.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f8c011e /* MLA V30.4S, V8.4S, V12.S[0] */ \
	WORD $0x0e23c0e8 /* SMULL V8.8H, V7.8B, V3.8B */ \
	WORD $0x4e23c0e9 /* SMULL2 V9.8H, V7.16B, V3.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f8c011f /* MLA V31.4S, V8.4S, V12.S[0] */ \
	WORD $0x0e24c148 /* SMULL V8.8H, V10.8B, V4.8B */ \
	WORD $0x4e24c149 /* SMULL2 V9.8H, V10.16B, V4.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fac011e /* MLA V30.4S, V8.4S, V12.S[1] */ \
	WORD $0x0e25c168 /* SMULL V8.8H, V11.8B, V5.8B */ \
	WORD $0x4e25c169 /* SMULL2 V9.8H, V11.16B, V5.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fac011f /* MLA V31.4S, V8.4S, V12.S[1] */

// Q4NPAIR1 is Q5NPAIR1 for Q4_K (no fifth bits).
#define Q4NPAIR1 \
	VLD1.P 32(R5), [V0.B16, V1.B16] \
	VLD1.P 64(R13), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VAND  V15.B16, V0.B16, V6.B16 \
	VAND  V15.B16, V1.B16, V7.B16 \
	VUSHR $4, V0.B16, V10.B16 \
	VUSHR $4, V1.B16, V11.B16 \
	WORD $0x0e22c0c8 /* SMULL V8.8H, V6.8B, V2.8B */ \
	WORD $0x4e22c0c9 /* SMULL2 V9.8H, V6.16B, V2.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f8c091e /* MLA V30.4S, V8.4S, V12.S[2] */ \
	WORD $0x0e23c0e8 /* SMULL V8.8H, V7.8B, V3.8B */ \
	WORD $0x4e23c0e9 /* SMULL2 V9.8H, V7.16B, V3.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f8c091f /* MLA V31.4S, V8.4S, V12.S[2] */ \
	WORD $0x0e24c148 /* SMULL V8.8H, V10.8B, V4.8B */ \
	WORD $0x4e24c149 /* SMULL2 V9.8H, V10.16B, V4.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fac091e /* MLA V30.4S, V8.4S, V12.S[3] */ \
	WORD $0x0e25c168 /* SMULL V8.8H, V11.8B, V5.8B */ \
	WORD $0x4e25c169 /* SMULL2 V9.8H, V11.16B, V5.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fac091f /* MLA V31.4S, V8.4S, V12.S[3] */

// Q4NPAIR2 is Q5NPAIR2 for Q4_K (no fifth bits).
#define Q4NPAIR2 \
	VLD1.P 32(R5), [V0.B16, V1.B16] \
	VLD1.P 64(R13), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VAND  V15.B16, V0.B16, V6.B16 \
	VAND  V15.B16, V1.B16, V7.B16 \
	VUSHR $4, V0.B16, V10.B16 \
	VUSHR $4, V1.B16, V11.B16 \
	WORD $0x0e22c0c8 /* SMULL V8.8H, V6.8B, V2.8B */ \
	WORD $0x4e22c0c9 /* SMULL2 V9.8H, V6.16B, V2.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f99011e /* MLA V30.4S, V8.4S, V25.S[0] */ \
	WORD $0x0e23c0e8 /* SMULL V8.8H, V7.8B, V3.8B */ \
	WORD $0x4e23c0e9 /* SMULL2 V9.8H, V7.16B, V3.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f99011f /* MLA V31.4S, V8.4S, V25.S[0] */ \
	WORD $0x0e24c148 /* SMULL V8.8H, V10.8B, V4.8B */ \
	WORD $0x4e24c149 /* SMULL2 V9.8H, V10.16B, V4.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fb9011e /* MLA V30.4S, V8.4S, V25.S[1] */ \
	WORD $0x0e25c168 /* SMULL V8.8H, V11.8B, V5.8B */ \
	WORD $0x4e25c169 /* SMULL2 V9.8H, V11.16B, V5.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fb9011f /* MLA V31.4S, V8.4S, V25.S[1] */

// Q4NPAIR3 is Q5NPAIR3 for Q4_K (no fifth bits).
#define Q4NPAIR3 \
	VLD1.P 32(R5), [V0.B16, V1.B16] \
	VLD1.P 64(R13), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VAND  V15.B16, V0.B16, V6.B16 \
	VAND  V15.B16, V1.B16, V7.B16 \
	VUSHR $4, V0.B16, V10.B16 \
	VUSHR $4, V1.B16, V11.B16 \
	WORD $0x0e22c0c8 /* SMULL V8.8H, V6.8B, V2.8B */ \
	WORD $0x4e22c0c9 /* SMULL2 V9.8H, V6.16B, V2.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f99091e /* MLA V30.4S, V8.4S, V25.S[2] */ \
	WORD $0x0e23c0e8 /* SMULL V8.8H, V7.8B, V3.8B */ \
	WORD $0x4e23c0e9 /* SMULL2 V9.8H, V7.16B, V3.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f99091f /* MLA V31.4S, V8.4S, V25.S[2] */ \
	WORD $0x0e24c148 /* SMULL V8.8H, V10.8B, V4.8B */ \
	WORD $0x4e24c149 /* SMULL2 V9.8H, V10.16B, V4.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fb9091e /* MLA V30.4S, V8.4S, V25.S[3] */ \
	WORD $0x0e25c168 /* SMULL V8.8H, V11.8B, V5.8B */ \
	WORD $0x4e25c169 /* SMULL2 V9.8H, V11.16B, V5.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fb9091f /* MLA V31.4S, V8.4S, V25.S[3] */

// func dotQ4_KQ8_KNEON(nb int, w, a *byte) float32
//
// Reference: DotQ4_KQ8_K, the reference build's AVX2 arithmetic: the lanes of dotQ5_KQ8_KNEON without fifth
// bits, fused per super-block into V28, V29 with d·yd; the four pair minimum terms (SMULL/SMULL2 of the group
// bsums by the minimums, ADDP) fused into the four lanes of V27 with −dmin·yd (FMLS); at the end
// hsum_float_8 + ((V27₀ + V27₂) + (V27₁ + V27₃)).
TEXT ·dotQ4_KQ8_KNEON(SB), NOSPLIT, $0-28
	KSTART

q4ksb:
	PRFM    4096(R1), PLDL1KEEP
	PRFM    4160(R1), PLDL1KEEP
	PRFM    4224(R1), PLDL1KEEP
	KD(0)
	K4SCALES
	MOVHU   2(R1), R4
	FMOVS   R4, F25
	FCVTHS  F25, F25
	FMOVS   (R2), F26
	FMULS   F26, F25, F25
	VMOV    R11, V12.D[0]
	VUXTL   V12.B8, V12.H8
	ADD     $260, R2, R4
	VLD1    (R4), [V0.H8, V1.H8]
	VADDP   V1.H8, V0.H8, V0.H8
	WORD $0x0e6cc002 // SMULL V2.4S, V0.4H, V12.4H
	WORD $0x4e6cc003 // SMULL2 V3.4S, V0.8H, V12.8H
	VADDP   V3.S4, V2.S4, V2.S4
	WORD $0x4e21d842 // SCVTF V2.4S, V2.4S
	VDUP    V25.S[0], V26.S4
	VFMLS   V26.S4, V2.S4, V27.S4
	WORD $0x0f10a5ac // SXTL V12.4S, V13.4H
	WORD $0x4f10a5b9 // SXTL2 V25.4S, V13.8H
	VEOR    V30.B16, V30.B16, V30.B16
	VEOR    V31.B16, V31.B16, V31.B16
	ADD     $16, R1, R5
	ADD     $4, R2, R13
	Q4NPAIR0
	Q4NPAIR1
	Q4NPAIR2
	Q4NPAIR3
	WORD $0x4e21dbde // SCVTF V30.4S, V30.4S
	WORD $0x4e21dbff // SCVTF V31.4S, V31.4S
	VDUP    V24.S[0], V26.S4
	VFMLA   V26.S4, V30.S4, V28.S4
	VFMLA   V26.S4, V31.S4, V29.S4
	ADD     $144, R1
	ADD     $292, R2
	SUBS    $1, R0
	BNE     q4ksb
	WORD $0x4e3dd780 // FADD V0.4S, V28.4S, V29.4S
	VEXT    $8, V0.B16, V0.B16, V1.B16
	WORD $0x4e21d400 // FADD V0.4S, V0.4S, V1.4S
	WORD $0x7e30d801 // FADDP S1, V0.2S
	VEXT    $8, V27.B16, V27.B16, V2.B16
	WORD $0x4e22d760 // FADD V0.4S, V27.4S, V2.4S
	WORD $0x7e30d802 // FADDP S2, V0.2S
	FADDS   F2, F1, F1
	FMOVS   F1, ret+24(FP)
	RET

// func dotQ4_KQ8_KRepackedNEON(nb int, w, a *byte) float32
//
// Reference: DotQ4_KQ8_KRepacked. The residue lanes of dotQ4_KQ8_KNEON are added up per pair of groups
// (exactly) and fused into F27 with d·yd (F24); the pairs' minimum terms (SMULL/SMULL2 of the group bsums by
// the minimums, added in pairs) are fused into F28 with dmin·yd (F25) after the super-block's pairs; the
// result is F27 - F28.
TEXT ·dotQ4_KQ8_KRepackedNEON(SB), NOSPLIT, $0-28
	KSTART

q4krsb:
	PRFM  4096(R1), PLDL1KEEP
	PRFM  4160(R1), PLDL1KEEP
	PRFM  4224(R1), PLDL1KEEP
	KD(0)
	K4SCALES
	MOVHU  2(R1), R4
	FMOVS  R4, F25
	FCVTHS F25, F25
	FMOVS  (R2), F26
	FMULS  F26, F25, F25
	VMOV   R11, V12.D[0]
	VUXTL  V12.B8, V12.H8
	ADD    $260, R2, R13
	VLD1   (R13), [V0.H8, V1.H8]
	VADDP  V1.H8, V0.H8, V0.H8
	WORD $0x0e6cc010 /* SMULL V16.4S, V0.4H, V12.4H */
	WORD $0x4e6cc011 /* SMULL2 V17.4S, V0.8H, V12.8H */
	VADDP  V17.S4, V16.S4, V16.S4
	WORD $0x4e21da10 /* SCVTF V16.4S, V16.4S */
	ADD   $16, R1, R5
	ADD   $4, R2, R13
	MOVD  $4, R10

q4krpair:
	VEOR   V30.B16, V30.B16, V30.B16
	VEOR   V31.B16, V31.B16, V31.B16
	VLD1.P 32(R5), [V0.B16, V1.B16]
	VLD1.P 64(R13), [V2.B16, V3.B16, V4.B16, V5.B16]
	VAND   V15.B16, V0.B16, V6.B16
	VAND   V15.B16, V1.B16, V7.B16
	VUSHR  $4, V0.B16, V8.B16
	VUSHR  $4, V1.B16, V9.B16
	K32PAIR
	VADD   V31.S4, V30.S4, V30.S4
	VADDV  V30.S4, V30
	VMOV   V30.S[0], R4
	SCVTFWS R4, F26
	FMADDS F24, F27, F26, F27
	SUBS   $1, R10
	BNE    q4krpair
	FMADDS F25, F28, F16, F28
	VDUP   V16.S[1], V0.S4
	FMADDS F25, F28, F0, F28
	VDUP   V16.S[2], V0.S4
	FMADDS F25, F28, F0, F28
	VDUP   V16.S[3], V0.S4
	FMADDS F25, F28, F0, F28
	ADD   $144, R1
	ADD   $292, R2
	SUBS  $1, R0
	BNE   q4krsb
	FSUBS F28, F27, F27
	FMOVS F27, ret+24(FP)
	RET

// Q5NPAIR0 adds groups 0 and 1 (scales V12.S[0], V12.S[1]) into the lanes V30 (bytes 0…15 of each group) and
// V31 (16…31). Clobbers V0…V11, V18, V19.
#define Q5NPAIR0 \
	VLD1.P 32(R5), [V0.B16, V1.B16] \
	VLD1.P 64(R13), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VAND  V15.B16, V0.B16, V6.B16 \
	VAND  V15.B16, V1.B16, V7.B16 \
	VUSHR $4, V0.B16, V10.B16 \
	VUSHR $4, V1.B16, V11.B16 \
	VSHL  $4, V16.B16, V18.B16 \
	VSHL  $4, V17.B16, V19.B16 \
	VAND  V14.B16, V18.B16, V18.B16 \
	VAND  V14.B16, V19.B16, V19.B16 \
	VORR  V18.B16, V6.B16, V6.B16 \
	VORR  V19.B16, V7.B16, V7.B16 \
	VSHL  $3, V16.B16, V18.B16 \
	VSHL  $3, V17.B16, V19.B16 \
	VAND  V14.B16, V18.B16, V18.B16 \
	VAND  V14.B16, V19.B16, V19.B16 \
	VORR  V18.B16, V10.B16, V10.B16 \
	VORR  V19.B16, V11.B16, V11.B16 \
	VUSHR $2, V16.B16, V16.B16 \
	VUSHR $2, V17.B16, V17.B16 \
	WORD $0x0e22c0c8 /* SMULL V8.8H, V6.8B, V2.8B */ \
	WORD $0x4e22c0c9 /* SMULL2 V9.8H, V6.16B, V2.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f8c011e /* MLA V30.4S, V8.4S, V12.S[0] */ \
	WORD $0x0e23c0e8 /* SMULL V8.8H, V7.8B, V3.8B */ \
	WORD $0x4e23c0e9 /* SMULL2 V9.8H, V7.16B, V3.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f8c011f /* MLA V31.4S, V8.4S, V12.S[0] */ \
	WORD $0x0e24c148 /* SMULL V8.8H, V10.8B, V4.8B */ \
	WORD $0x4e24c149 /* SMULL2 V9.8H, V10.16B, V4.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fac011e /* MLA V30.4S, V8.4S, V12.S[1] */ \
	WORD $0x0e25c168 /* SMULL V8.8H, V11.8B, V5.8B */ \
	WORD $0x4e25c169 /* SMULL2 V9.8H, V11.16B, V5.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fac011f /* MLA V31.4S, V8.4S, V12.S[1] */

// Q5NPAIR1 adds groups 2 and 3 (scales V12.S[2], V12.S[3]) into the lanes V30 (bytes 0…15 of each group) and
// V31 (16…31). Clobbers V0…V11, V18, V19.
#define Q5NPAIR1 \
	VLD1.P 32(R5), [V0.B16, V1.B16] \
	VLD1.P 64(R13), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VAND  V15.B16, V0.B16, V6.B16 \
	VAND  V15.B16, V1.B16, V7.B16 \
	VUSHR $4, V0.B16, V10.B16 \
	VUSHR $4, V1.B16, V11.B16 \
	VSHL  $4, V16.B16, V18.B16 \
	VSHL  $4, V17.B16, V19.B16 \
	VAND  V14.B16, V18.B16, V18.B16 \
	VAND  V14.B16, V19.B16, V19.B16 \
	VORR  V18.B16, V6.B16, V6.B16 \
	VORR  V19.B16, V7.B16, V7.B16 \
	VSHL  $3, V16.B16, V18.B16 \
	VSHL  $3, V17.B16, V19.B16 \
	VAND  V14.B16, V18.B16, V18.B16 \
	VAND  V14.B16, V19.B16, V19.B16 \
	VORR  V18.B16, V10.B16, V10.B16 \
	VORR  V19.B16, V11.B16, V11.B16 \
	VUSHR $2, V16.B16, V16.B16 \
	VUSHR $2, V17.B16, V17.B16 \
	WORD $0x0e22c0c8 /* SMULL V8.8H, V6.8B, V2.8B */ \
	WORD $0x4e22c0c9 /* SMULL2 V9.8H, V6.16B, V2.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f8c091e /* MLA V30.4S, V8.4S, V12.S[2] */ \
	WORD $0x0e23c0e8 /* SMULL V8.8H, V7.8B, V3.8B */ \
	WORD $0x4e23c0e9 /* SMULL2 V9.8H, V7.16B, V3.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f8c091f /* MLA V31.4S, V8.4S, V12.S[2] */ \
	WORD $0x0e24c148 /* SMULL V8.8H, V10.8B, V4.8B */ \
	WORD $0x4e24c149 /* SMULL2 V9.8H, V10.16B, V4.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fac091e /* MLA V30.4S, V8.4S, V12.S[3] */ \
	WORD $0x0e25c168 /* SMULL V8.8H, V11.8B, V5.8B */ \
	WORD $0x4e25c169 /* SMULL2 V9.8H, V11.16B, V5.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fac091f /* MLA V31.4S, V8.4S, V12.S[3] */

// Q5NPAIR2 adds groups 4 and 5 (scales V25.S[0], V25.S[1]) into the lanes V30 (bytes 0…15 of each group) and
// V31 (16…31). Clobbers V0…V11, V18, V19.
#define Q5NPAIR2 \
	VLD1.P 32(R5), [V0.B16, V1.B16] \
	VLD1.P 64(R13), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VAND  V15.B16, V0.B16, V6.B16 \
	VAND  V15.B16, V1.B16, V7.B16 \
	VUSHR $4, V0.B16, V10.B16 \
	VUSHR $4, V1.B16, V11.B16 \
	VSHL  $4, V16.B16, V18.B16 \
	VSHL  $4, V17.B16, V19.B16 \
	VAND  V14.B16, V18.B16, V18.B16 \
	VAND  V14.B16, V19.B16, V19.B16 \
	VORR  V18.B16, V6.B16, V6.B16 \
	VORR  V19.B16, V7.B16, V7.B16 \
	VSHL  $3, V16.B16, V18.B16 \
	VSHL  $3, V17.B16, V19.B16 \
	VAND  V14.B16, V18.B16, V18.B16 \
	VAND  V14.B16, V19.B16, V19.B16 \
	VORR  V18.B16, V10.B16, V10.B16 \
	VORR  V19.B16, V11.B16, V11.B16 \
	VUSHR $2, V16.B16, V16.B16 \
	VUSHR $2, V17.B16, V17.B16 \
	WORD $0x0e22c0c8 /* SMULL V8.8H, V6.8B, V2.8B */ \
	WORD $0x4e22c0c9 /* SMULL2 V9.8H, V6.16B, V2.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f99011e /* MLA V30.4S, V8.4S, V25.S[0] */ \
	WORD $0x0e23c0e8 /* SMULL V8.8H, V7.8B, V3.8B */ \
	WORD $0x4e23c0e9 /* SMULL2 V9.8H, V7.16B, V3.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f99011f /* MLA V31.4S, V8.4S, V25.S[0] */ \
	WORD $0x0e24c148 /* SMULL V8.8H, V10.8B, V4.8B */ \
	WORD $0x4e24c149 /* SMULL2 V9.8H, V10.16B, V4.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fb9011e /* MLA V30.4S, V8.4S, V25.S[1] */ \
	WORD $0x0e25c168 /* SMULL V8.8H, V11.8B, V5.8B */ \
	WORD $0x4e25c169 /* SMULL2 V9.8H, V11.16B, V5.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fb9011f /* MLA V31.4S, V8.4S, V25.S[1] */

// Q5NPAIR3 adds groups 6 and 7 (scales V25.S[2], V25.S[3]) into the lanes V30 (bytes 0…15 of each group) and
// V31 (16…31). Clobbers V0…V11, V18, V19.
#define Q5NPAIR3 \
	VLD1.P 32(R5), [V0.B16, V1.B16] \
	VLD1.P 64(R13), [V2.B16, V3.B16, V4.B16, V5.B16] \
	VAND  V15.B16, V0.B16, V6.B16 \
	VAND  V15.B16, V1.B16, V7.B16 \
	VUSHR $4, V0.B16, V10.B16 \
	VUSHR $4, V1.B16, V11.B16 \
	VSHL  $4, V16.B16, V18.B16 \
	VSHL  $4, V17.B16, V19.B16 \
	VAND  V14.B16, V18.B16, V18.B16 \
	VAND  V14.B16, V19.B16, V19.B16 \
	VORR  V18.B16, V6.B16, V6.B16 \
	VORR  V19.B16, V7.B16, V7.B16 \
	VSHL  $3, V16.B16, V18.B16 \
	VSHL  $3, V17.B16, V19.B16 \
	VAND  V14.B16, V18.B16, V18.B16 \
	VAND  V14.B16, V19.B16, V19.B16 \
	VORR  V18.B16, V10.B16, V10.B16 \
	VORR  V19.B16, V11.B16, V11.B16 \
	VUSHR $2, V16.B16, V16.B16 \
	VUSHR $2, V17.B16, V17.B16 \
	WORD $0x0e22c0c8 /* SMULL V8.8H, V6.8B, V2.8B */ \
	WORD $0x4e22c0c9 /* SMULL2 V9.8H, V6.16B, V2.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f99091e /* MLA V30.4S, V8.4S, V25.S[2] */ \
	WORD $0x0e23c0e8 /* SMULL V8.8H, V7.8B, V3.8B */ \
	WORD $0x4e23c0e9 /* SMULL2 V9.8H, V7.16B, V3.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6f99091f /* MLA V31.4S, V8.4S, V25.S[2] */ \
	WORD $0x0e24c148 /* SMULL V8.8H, V10.8B, V4.8B */ \
	WORD $0x4e24c149 /* SMULL2 V9.8H, V10.16B, V4.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fb9091e /* MLA V30.4S, V8.4S, V25.S[3] */ \
	WORD $0x0e25c168 /* SMULL V8.8H, V11.8B, V5.8B */ \
	WORD $0x4e25c169 /* SMULL2 V9.8H, V11.16B, V5.16B */ \
	VADDP V9.H8, V8.H8, V8.H8 \
	WORD $0x4e602908 /* SADDLP V8.4S, V8.8H */ \
	WORD $0x6fb9091f /* MLA V31.4S, V8.4S, V25.S[3] */

// func dotQ5_KQ8_KNEON(nb int, w, a *byte) float32
//
// Reference: DotQ5_KQ8_K, the reference build's AVX2 arithmetic. Q5_K block (176 bytes): d, dmin (f16) at 0,
// 2; 12 packed 6-bit scales and minimums at 4; 32 bytes of fifth bits at 16 (bit j of byte l: element l of
// group j); 128 bytes of quants at 48 (low nibbles group 2c, high nibbles group 2c+1). The eight integer lanes
// are the reference's: lane m sums the products of bytes 4m…4m+3 of every group (SMULL/SMULL2, ADDP then
// SADDLP), times the group's scale (MLA by element); per super-block they are fused into the float lanes V28,
// V29 with d·yd (FMLA), and the whole minimum term into F27 with −dmin·yd (FMSUB); at the end
// hsum_float_8 + F27.
TEXT ·dotQ5_KQ8_KNEON(SB), NOSPLIT, $0-28
	KSTART
	VMOVI $16, V14.B16

q5ksb:
	PRFM    4096(R1), PLDL1KEEP
	PRFM    4160(R1), PLDL1KEEP
	PRFM    4224(R1), PLDL1KEEP
	KD(0)
	K4SCALES
	MOVHU   2(R1), R4
	FMOVS   R4, F25
	FCVTHS  F25, F25
	FMOVS   (R2), F26
	FMULS   F26, F25, F25
	VMOV    R11, V12.D[0]
	VUXTL   V12.B8, V12.H8
	ADD     $260, R2, R4
	VLD1    (R4), [V0.H8, V1.H8]
	VADDP   V1.H8, V0.H8, V0.H8
	WORD $0x0e6cc002 // SMULL V2.4S, V0.4H, V12.4H
	WORD $0x4e6c8002 // SMLAL2 V2.4S, V0.8H, V12.8H
	VADDV   V2.S4, V2
	VMOV    V2.S[0], R4
	SCVTFWS R4, F26
	FMSUBS  F26, F27, F25, F27
	WORD $0x0f10a5ac // SXTL V12.4S, V13.4H
	WORD $0x4f10a5b9 // SXTL2 V25.4S, V13.8H
	VEOR    V30.B16, V30.B16, V30.B16
	VEOR    V31.B16, V31.B16, V31.B16
	ADD     $16, R1, R4
	VLD1    (R4), [V16.B16, V17.B16]
	ADD     $48, R1, R5
	ADD     $4, R2, R13
	Q5NPAIR0
	Q5NPAIR1
	Q5NPAIR2
	Q5NPAIR3
	WORD $0x4e21dbde // SCVTF V30.4S, V30.4S
	WORD $0x4e21dbff // SCVTF V31.4S, V31.4S
	VDUP    V24.S[0], V26.S4
	VFMLA   V26.S4, V30.S4, V28.S4
	VFMLA   V26.S4, V31.S4, V29.S4
	ADD     $176, R1
	ADD     $292, R2
	SUBS    $1, R0
	BNE     q5ksb
	WORD $0x4e3dd780 // FADD V0.4S, V28.4S, V29.4S
	VEXT    $8, V0.B16, V0.B16, V1.B16
	WORD $0x4e21d400 // FADD V0.4S, V0.4S, V1.4S
	WORD $0x7e30d801 // FADDP S1, V0.2S
	FADDS   F1, F27, F27
	FMOVS   F27, ret+24(FP)
	RET

// Q6U sets V6, V7 to the 6-bit quants (unsigned, 0…63) of two groups of 16: low four bits already in V6, V7,
// the two high bits at bits 4-5 of HA, HB (other bits anything). Needs V11 = 0x30 bytes.
#define Q6U(HA, HB) \
	VAND V11.B16, HA.B16, V8.B16 \
	VAND V11.B16, HB.B16, V9.B16 \
	VORR V8.B16, V6.B16, V6.B16  \
	VORR V9.B16, V7.B16, V7.B16

// func dotQ6_KQ8_KNEON(nb int, w, a *byte) float32
//
// Reference: DotQ6_KQ8_K. Q6_K block (210 bytes): ql (128 bytes, low four bits) at 0, qh (64 bytes, two
// high bits) at 128, 16 int8 group scales at 192, d (f16) at 208. Each half of 128 elements takes 64 bytes
// of ql and 32 of qh; its quarter k (groups 2k and 2k+1 of 16 elements) takes the low (k = 0, 1) or high
// (k = 2, 3) nibbles of ql bytes 32·(k mod 2)… and bits 2k, 2k+1 of qh. The eight integer lanes are the
// reference's (AVX2) ones: lane m sums the products of bytes 4m…4m+3 of every quarter (SMULL/SMULL2, ADDP
// then SADDLP: bytes 0…15 of a quarter in V30, 16…31 in V31), times the group's scale (MLA by element, the
// scales as int32 in V12 and V25 per half), minus 32·(scale·bsum) of groups 2m and 2m+1. Per super-block the
// lanes are fused into the float lanes V28, V29 with d·yd (FMLA); at the end hsum_float_8.
TEXT ·dotQ6_KQ8_KNEON(SB), NOSPLIT, $0-28
	KSTART
	VMOVI $0x30, V11.B16

q6ksb:
	PRFM  4096(R1), PLDL1KEEP
	PRFM  4160(R1), PLDL1KEEP
	PRFM  4224(R1), PLDL1KEEP
	PRFM  4288(R1), PLDL1KEEP
	KD(208)
	ADD   $192, R1, R4
	VLD1  (R4), [V12.B16]
	WORD $0x0f08a58d // SXTL V13.8H, V12.8B
	WORD $0x4f08a58e // SXTL2 V14.8H, V12.16B
	// the quants' offset: lanes 0…3 and 4…7 start at -32·(scale·bsum) of their pairs of groups
	ADD   $260, R2, R4
	VLD1  (R4), [V0.H8, V1.H8]
	WORD $0x0e6dc002 // SMULL V2.4S, V0.4H, V13.4H
	WORD $0x4e6dc003 // SMULL2 V3.4S, V0.8H, V13.8H
	VADDP V3.S4, V2.S4, V2.S4
	WORD $0x0e6ec024 // SMULL V4.4S, V1.4H, V14.4H
	WORD $0x4e6ec025 // SMULL2 V5.4S, V1.8H, V14.8H
	VADDP V5.S4, V4.S4, V4.S4
	VSHL  $5, V2.S4, V2.S4
	VSHL  $5, V4.S4, V4.S4
	VEOR  V30.B16, V30.B16, V30.B16
	VEOR  V31.B16, V31.B16, V31.B16
	VSUB  V2.S4, V30.S4, V30.S4
	VSUB  V4.S4, V31.S4, V31.S4
	MOVD  R1, R5                      // ql
	ADD   $128, R1, R6                // qh
	ADD   $4, R2, R13                 // activation quants
	MOVD  $2, R10

q6khalf:
	WORD $0x0f10a5ac // SXTL V12.4S, V13.4H
	WORD $0x4f10a5b9 // SXTL2 V25.4S, V13.8H
	VLD1.P 64(R5), [V0.B16, V1.B16, V2.B16, V3.B16]
	VLD1.P 32(R6), [V4.B16, V5.B16]
	VLD1.P 64(R13), [V16.B16, V17.B16, V18.B16, V19.B16]
	VLD1.P 64(R13), [V20.B16, V21.B16, V22.B16, V23.B16]
	VAND  V15.B16, V0.B16, V6.B16
	VAND  V15.B16, V1.B16, V7.B16
	VSHL  $4, V4.B16, V8.B16
	VSHL  $4, V5.B16, V9.B16
	Q6U(V8, V9)
	// quarter 0: activations V16, V17; scales V12.S[0], .S[1]
	WORD $0x0e30c0c8 // SMULL V8.8H, V6.8B, V16.8B
	WORD $0x4e30c0c9 // SMULL2 V9.8H, V6.16B, V16.16B
	VADDP V9.H8, V8.H8, V8.H8
	WORD $0x4e602908 // SADDLP V8.4S, V8.8H
	WORD $0x6f8c011e // MLA V30.4S, V8.4S, V12.S[0]
	WORD $0x0e31c0e8 // SMULL V8.8H, V7.8B, V17.8B
	WORD $0x4e31c0e9 // SMULL2 V9.8H, V7.16B, V17.16B
	VADDP V9.H8, V8.H8, V8.H8
	WORD $0x4e602908 // SADDLP V8.4S, V8.8H
	WORD $0x6fac011f // MLA V31.4S, V8.4S, V12.S[1]
	VAND  V15.B16, V2.B16, V6.B16
	VAND  V15.B16, V3.B16, V7.B16
	VSHL  $2, V4.B16, V8.B16
	VSHL  $2, V5.B16, V9.B16
	Q6U(V8, V9)
	// quarter 1: activations V18, V19; scales V12.S[2], .S[3]
	WORD $0x0e32c0c8 // SMULL V8.8H, V6.8B, V18.8B
	WORD $0x4e32c0c9 // SMULL2 V9.8H, V6.16B, V18.16B
	VADDP V9.H8, V8.H8, V8.H8
	WORD $0x4e602908 // SADDLP V8.4S, V8.8H
	WORD $0x6f8c091e // MLA V30.4S, V8.4S, V12.S[2]
	WORD $0x0e33c0e8 // SMULL V8.8H, V7.8B, V19.8B
	WORD $0x4e33c0e9 // SMULL2 V9.8H, V7.16B, V19.16B
	VADDP V9.H8, V8.H8, V8.H8
	WORD $0x4e602908 // SADDLP V8.4S, V8.8H
	WORD $0x6fac091f // MLA V31.4S, V8.4S, V12.S[3]
	VUSHR $4, V0.B16, V6.B16
	VUSHR $4, V1.B16, V7.B16
	Q6U(V4, V5)
	// quarter 2: activations V20, V21; scales V25.S[0], .S[1]
	WORD $0x0e34c0c8 // SMULL V8.8H, V6.8B, V20.8B
	WORD $0x4e34c0c9 // SMULL2 V9.8H, V6.16B, V20.16B
	VADDP V9.H8, V8.H8, V8.H8
	WORD $0x4e602908 // SADDLP V8.4S, V8.8H
	WORD $0x6f99011e // MLA V30.4S, V8.4S, V25.S[0]
	WORD $0x0e35c0e8 // SMULL V8.8H, V7.8B, V21.8B
	WORD $0x4e35c0e9 // SMULL2 V9.8H, V7.16B, V21.16B
	VADDP V9.H8, V8.H8, V8.H8
	WORD $0x4e602908 // SADDLP V8.4S, V8.8H
	WORD $0x6fb9011f // MLA V31.4S, V8.4S, V25.S[1]
	VUSHR $4, V2.B16, V6.B16
	VUSHR $4, V3.B16, V7.B16
	VUSHR $2, V4.B16, V8.B16
	VUSHR $2, V5.B16, V9.B16
	Q6U(V8, V9)
	// quarter 3: activations V22, V23; scales V25.S[2], .S[3]
	WORD $0x0e36c0c8 // SMULL V8.8H, V6.8B, V22.8B
	WORD $0x4e36c0c9 // SMULL2 V9.8H, V6.16B, V22.16B
	VADDP V9.H8, V8.H8, V8.H8
	WORD $0x4e602908 // SADDLP V8.4S, V8.8H
	WORD $0x6f99091e // MLA V30.4S, V8.4S, V25.S[2]
	WORD $0x0e37c0e8 // SMULL V8.8H, V7.8B, V23.8B
	WORD $0x4e37c0e9 // SMULL2 V9.8H, V7.16B, V23.16B
	VADDP V9.H8, V8.H8, V8.H8
	WORD $0x4e602908 // SADDLP V8.4S, V8.8H
	WORD $0x6fb9091f // MLA V31.4S, V8.4S, V25.S[3]
	VMOV  V14.B16, V13.B16
	SUBS  $1, R10
	BNE   q6khalf
	WORD $0x4e21dbde // SCVTF V30.4S, V30.4S
	WORD $0x4e21dbff // SCVTF V31.4S, V31.4S
	VDUP  V24.S[0], V26.S4
	VFMLA V26.S4, V30.S4, V28.S4
	VFMLA V26.S4, V31.S4, V29.S4
	ADD   $210, R1
	ADD   $292, R2
	SUBS  $1, R0
	BNE   q6ksb
	WORD $0x4e3dd780 // FADD V0.4S, V28.4S, V29.4S
	VEXT  $8, V0.B16, V0.B16, V1.B16
	WORD $0x4e21d400 // FADD V0.4S, V0.4S, V1.4S
	WORD $0x7e30d81b // FADDP S27, V0.2S
	FMOVS F27, ret+24(FP)
	RET
