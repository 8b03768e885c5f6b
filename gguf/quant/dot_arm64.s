//go:build arm64 && !noasm

#include "textflag.h"

// NEON dot products of the 32-element block formats, hand-written Plan 9 assembly, in the reference's
// arithmetic (dot_blocks32.go). The Go assembler lacks SDOT, SMULL, SADDLP, SCVTF, FCVTL and the vector
// FADD/FMUL/FADDP; they are WORD encodings with the instruction in a comment beside each.
//
// The reference keeps eight float32 lanes, lane i holding elements 4i…4i+3 of every block. Here lanes 0…3
// are V30 and lanes 4…7 are V31. A block's 32 products are summed exactly into eight int32 lanes of the same
// layout (V4 = lanes 0…3 from elements 0…15, V5 = lanes 4…7 from elements 16…31), either
//
//   - with SDOT (the dotprod extension): int32 lane i of SDOT Vd.4S, Vn.16B, Vm.16B adds the four products
//     of bytes 4i…4i+3, which is the reference's lane as it is; or
//   - with plain NEON: SMULL multiplies 8 bytes into 8 int16 products, ADDP adds neighbouring products (a
//     pair of elements 2k, 2k+1) and SADDLP adds neighbouring pairs into int32 (elements 4i…4i+3). The pair
//     sums fit int16 for every quant type but Q8_0 (|q·y| ≤ 31·128, pair ≤ 7936); Q8_0's products
//     (−128·−128 = 16384) are widened pairwise by SADDLP first and the int32 pairs added by ADDP.
//
// The lanes are converted to float32 (exactly: |lane| ≤ 4·128·128) and fused into V30/V31 by the block's
// scale product dw·da (FMLA, as the reference's fma32), and added at the end in hsum_float_8's order. The
// offset terms of Q4_1/Q5_1 (mw·sa) are summed in order in F29 and added last, as in the reference.
//
// Every loop prefetches the weights 4 KiB ahead (PRFM; it never faults), as the amd64 kernels do: decoding
// streams the weights from memory and the hardware prefetchers alone keep too few lines in flight.
//
// Registers: R0 blocks left, R1 weights, R2 activations (both advanced block by block); V6 the scale
// product in every lane; V0 quants 0…15, V1 quants 16…31, V2/V3 the activation's; V15 = 0x0F bytes,
// V14 = the quant offset (8, 16) in bytes; for the Q5 types V10…V13 (QHCONST).

// DPROD sets V6 to 4 copies of f16(w)·f16(a) (a float32 product) from the halves at (R1) and (R2), and
// advances R1 and R2 past them. Clobbers R4, R5, F7.
#define DPROD \
	MOVHU.P 2(R1), R4 \
	MOVHU.P 2(R2), R5 \
	FMOVS   R4, F6    \
	FMOVS   R5, F7    \
	FCVTHS  F6, F6    \
	FCVTHS  F7, F7    \
	FMULS   F7, F6, F6 \
	VDUP    V6.S[0], V6.S4

// DMPROD reads [dw, mw] at (R1) and [da, sa] at (R2) (f16 pairs), sets V6 to 4 copies of dw·da, adds mw·sa
// to F29 (both float32 products, rounded; mw·sa is exact, two halves) and advances R1 and R2 past them.
// Clobbers R4, R5, V7.
#define DMPROD \
	MOVWU.P 4(R1), R4 \
	MOVWU.P 4(R2), R5 \
	FMOVS   R4, F6    \
	FMOVS   R5, F7    \
	WORD $0x0e2178c6 /* FCVTL V6.4S, V6.4H */ \
	WORD $0x0e2178e7 /* FCVTL V7.4S, V7.4H */ \
	WORD $0x6e27dcc6 /* FMUL V6.4S, V6.4S, V7.4S */ \
	VDUP    V6.S[1], V7.S4 \
	FADDS   F7, F29, F29 \
	VDUP    V6.S[0], V6.S4

// NIBBLES loads the 16 bytes of 4-bit quants at (R1) (advancing R1): low nibbles (elements 0…15) into V0,
// high nibbles (16…31) into V1.
#define NIBBLES \
	VLD1.P 16(R1), [V1.B16]  \
	VAND   V15.B16, V1.B16, V0.B16 \
	VUSHR  $4, V1.B16, V1.B16

// QHCONST sets the constants of QHBITS: V13 = 0x10 bytes, V12 = the bit of each byte's element in its qh
// byte (1, 2, 4, …, 128, twice), V11/V10 = TBL indices spreading qh bytes 0, 1 (V11) and 2, 3 (V10) over
// 8 bytes each. (VMOVQ $low, $high: the low 64 bits come first.)
#define QHCONST \
	VMOVI $16, V13.B16 \
	VMOVQ $0x8040201008040201, $0x8040201008040201, V12 \
	VMOVQ $0x0000000000000000, $0x0101010101010101, V11 \
	VMOVQ $0x0202020202020202, $0x0303030303030303, V10

// QHBITS reads the 32-bit qh word at (R1) (advancing R1) and sets byte j of V8 (j < 16) or V9 (j − 16)
// to 16 where bit j of qh is set, else 0. Clobbers R4, V7.
#define QHBITS \
	MOVWU.P 4(R1), R4 \
	FMOVS   R4, F7    \
	VTBL    V11.B16, [V7.B16], V8.B16 \
	VTBL    V10.B16, [V7.B16], V9.B16 \
	VCMTST  V12.B16, V8.B16, V8.B16   \
	VCMTST  V12.B16, V9.B16, V9.B16   \
	VAND    V13.B16, V8.B16, V8.B16   \
	VAND    V13.B16, V9.B16, V9.B16

// QHOR adds QHBITS' fifth bits to the nibbles: V0 |= V8, V1 |= V9.
#define QHOR \
	VORR V8.B16, V0.B16, V0.B16 \
	VORR V9.B16, V1.B16, V1.B16

// OFFSET subtracts V14 from every quant (q − 8 for Q4_0, q − 16 for Q5_0: signed bytes).
#define OFFSET \
	VSUB V14.B16, V0.B16, V0.B16 \
	VSUB V14.B16, V1.B16, V1.B16

// ACTS loads the 32 activation quants at (R2) into V2, V3, advancing R2.
#define ACTS \
	VLD1.P 32(R2), [V2.B16, V3.B16]

// LANESDOT sums the block's products into the int32 lanes V4 (0…3) and V5 (4…7) with SDOT.
#define LANESDOT \
	VEOR V4.B16, V4.B16, V4.B16 \
	VEOR V5.B16, V5.B16, V5.B16 \
	WORD $0x4e829404 /* SDOT V4.4S, V0.16B, V2.16B */ \
	WORD $0x4e839425 /* SDOT V5.4S, V1.16B, V3.16B */

// LANES16 is LANESDOT without dotprod for quants whose pair sums fit int16: products (SMULL) → pairs
// (ADDP) → fours (SADDLP). Clobbers V16…V19.
#define LANES16 \
	WORD $0x0e22c010 /* SMULL V16.8H, V0.8B, V2.8B */ \
	WORD $0x4e22c011 /* SMULL2 V17.8H, V0.16B, V2.16B */ \
	WORD $0x0e23c032 /* SMULL V18.8H, V1.8B, V3.8B */ \
	WORD $0x4e23c033 /* SMULL2 V19.8H, V1.16B, V3.16B */ \
	VADDP V17.H8, V16.H8, V16.H8 \
	VADDP V19.H8, V18.H8, V18.H8 \
	WORD $0x4e602a04 /* SADDLP V4.4S, V16.8H */ \
	WORD $0x4e602a45 /* SADDLP V5.4S, V18.8H */

// LANES32 is LANESDOT without dotprod for Q8_0: products (SMULL) → pairs in int32 (SADDLP) → fours (ADDP).
// Clobbers V16…V19.
#define LANES32 \
	WORD $0x0e22c010 /* SMULL V16.8H, V0.8B, V2.8B */ \
	WORD $0x4e22c011 /* SMULL2 V17.8H, V0.16B, V2.16B */ \
	WORD $0x0e23c032 /* SMULL V18.8H, V1.8B, V3.8B */ \
	WORD $0x4e23c033 /* SMULL2 V19.8H, V1.16B, V3.16B */ \
	WORD $0x4e602a10 /* SADDLP V16.4S, V16.8H */ \
	WORD $0x4e602a31 /* SADDLP V17.4S, V17.8H */ \
	WORD $0x4e602a52 /* SADDLP V18.4S, V18.8H */ \
	WORD $0x4e602a73 /* SADDLP V19.4S, V19.8H */ \
	VADDP V17.S4, V16.S4, V4.S4 \
	VADDP V19.S4, V18.S4, V5.S4

// ACCUM converts the int32 lanes V4, V5 to float32 and fuses them into V30, V31 by V6: l = fma(d, s, l).
#define ACCUM \
	WORD $0x4e21d884 /* SCVTF V4.4S, V4.4S */ \
	WORD $0x4e21d8a5 /* SCVTF V5.4S, V5.4S */ \
	VFMLA V6.S4, V4.S4, V30.S4 \
	VFMLA V6.S4, V5.S4, V31.S4

// HSUM8 leaves hsum_float_8 of the eight lanes in F30: ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)).
#define HSUM8 \
	WORD $0x4e3fd7de /* FADD V30.4S, V30.4S, V31.4S */ \
	VDUP V30.D[1], V31.D2 \
	WORD $0x4e3fd7de /* FADD V30.4S, V30.4S, V31.4S */ \
	WORD $0x7e30dbde /* FADDP S30, V30.2S */

// START loads the arguments and clears the accumulators.
#define START \
	MOVD nb+0(FP), R0 \
	MOVD w+8(FP), R1  \
	MOVD a+16(FP), R2 \
	VMOVI $15, V15.B16 \
	VEOR V29.B16, V29.B16, V29.B16 \
	VEOR V30.B16, V30.B16, V30.B16 \
	VEOR V31.B16, V31.B16, V31.B16

// func dotQ4_0Q8_0SDOT(nb int, w, a *byte) float32
//
// Reference: DotQ4_0Q8_0 (per block s = Σ (q−8)·y exactly; lanes += s·dw·da). Needs dotprod.
TEXT ·dotQ4_0Q8_0SDOT(SB), NOSPLIT, $0-28
	START
	VMOVI $8, V14.B16

q40sdot:
	PRFM 4096(R1), PLDL1KEEP
	DPROD
	NIBBLES
	OFFSET
	ACTS
	LANESDOT
	ACCUM
	SUBS $1, R0
	BNE  q40sdot
	HSUM8
	FMOVS F30, ret+24(FP)
	RET

// func dotQ4_0Q8_0NEON(nb int, w, a *byte) float32
//
// Reference: DotQ4_0Q8_0, without dotprod (|(q−8)·y| ≤ 1024).
TEXT ·dotQ4_0Q8_0NEON(SB), NOSPLIT, $0-28
	START
	VMOVI $8, V14.B16

q40neon:
	PRFM 4096(R1), PLDL1KEEP
	DPROD
	NIBBLES
	OFFSET
	ACTS
	LANES16
	ACCUM
	SUBS $1, R0
	BNE  q40neon
	HSUM8
	FMOVS F30, ret+24(FP)
	RET

// func dotQ4_1Q8_1SDOT(nb int, w, a *byte) float32
//
// Reference: DotQ4_1Q8_1 (per block s = Σ q·y exactly, q in 0…15; lanes += s·dw·da; summs += mw·sa).
// Needs dotprod.
TEXT ·dotQ4_1Q8_1SDOT(SB), NOSPLIT, $0-28
	START

q41sdot:
	PRFM 4096(R1), PLDL1KEEP
	DMPROD
	NIBBLES
	ACTS
	LANESDOT
	ACCUM
	SUBS $1, R0
	BNE  q41sdot
	HSUM8
	FADDS F29, F30, F30
	FMOVS F30, ret+24(FP)
	RET

// func dotQ4_1Q8_1NEON(nb int, w, a *byte) float32
//
// Reference: DotQ4_1Q8_1, without dotprod (q·y ≤ 15·128).
TEXT ·dotQ4_1Q8_1NEON(SB), NOSPLIT, $0-28
	START

q41neon:
	PRFM 4096(R1), PLDL1KEEP
	DMPROD
	NIBBLES
	ACTS
	LANES16
	ACCUM
	SUBS $1, R0
	BNE  q41neon
	HSUM8
	FADDS F29, F30, F30
	FMOVS F30, ret+24(FP)
	RET

// func dotQ5_0Q8_0SDOT(nb int, w, a *byte) float32
//
// Reference: DotQ5_0Q8_0 (per block s = Σ (q−16)·y exactly, q = nibble | 16·qh bit). Needs dotprod.
TEXT ·dotQ5_0Q8_0SDOT(SB), NOSPLIT, $0-28
	START
	VMOVI $16, V14.B16
	QHCONST

q50sdot:
	PRFM 4096(R1), PLDL1KEEP
	DPROD
	QHBITS
	NIBBLES
	QHOR
	OFFSET
	ACTS
	LANESDOT
	ACCUM
	SUBS $1, R0
	BNE  q50sdot
	HSUM8
	FMOVS F30, ret+24(FP)
	RET

// func dotQ5_0Q8_0NEON(nb int, w, a *byte) float32
//
// Reference: DotQ5_0Q8_0, without dotprod (|(q−16)·y| ≤ 2048).
TEXT ·dotQ5_0Q8_0NEON(SB), NOSPLIT, $0-28
	START
	VMOVI $16, V14.B16
	QHCONST

q50neon:
	PRFM 4096(R1), PLDL1KEEP
	DPROD
	QHBITS
	NIBBLES
	QHOR
	OFFSET
	ACTS
	LANES16
	ACCUM
	SUBS $1, R0
	BNE  q50neon
	HSUM8
	FMOVS F30, ret+24(FP)
	RET

// func dotQ5_1Q8_1SDOT(nb int, w, a *byte) float32
//
// Reference: DotQ5_1Q8_1 (per block s = Σ q·y exactly, q in 0…31; lanes += s·dw·da; summs += mw·sa).
// Needs dotprod.
TEXT ·dotQ5_1Q8_1SDOT(SB), NOSPLIT, $0-28
	START
	QHCONST

q51sdot:
	PRFM 4096(R1), PLDL1KEEP
	DMPROD
	QHBITS
	NIBBLES
	QHOR
	ACTS
	LANESDOT
	ACCUM
	SUBS $1, R0
	BNE  q51sdot
	HSUM8
	FADDS F29, F30, F30
	FMOVS F30, ret+24(FP)
	RET

// func dotQ5_1Q8_1NEON(nb int, w, a *byte) float32
//
// Reference: DotQ5_1Q8_1, without dotprod (q·y ≤ 31·128).
TEXT ·dotQ5_1Q8_1NEON(SB), NOSPLIT, $0-28
	START
	QHCONST

q51neon:
	PRFM 4096(R1), PLDL1KEEP
	DMPROD
	QHBITS
	NIBBLES
	QHOR
	ACTS
	LANES16
	ACCUM
	SUBS $1, R0
	BNE  q51neon
	HSUM8
	FADDS F29, F30, F30
	FMOVS F30, ret+24(FP)
	RET

// func dotQ8_0Q8_0SDOT(nb int, w, a *byte) float32
//
// Reference: DotQ8_0Q8_0 (per block s = Σ x·y exactly; lanes += s·dw·da). Needs dotprod.
TEXT ·dotQ8_0Q8_0SDOT(SB), NOSPLIT, $0-28
	START

q80sdot:
	PRFM 4096(R1), PLDL1KEEP
	DPROD
	VLD1.P 32(R1), [V0.B16, V1.B16]
	ACTS
	LANESDOT
	ACCUM
	SUBS $1, R0
	BNE  q80sdot
	HSUM8
	FMOVS F30, ret+24(FP)
	RET

// func dotQ8_0Q8_0NEON(nb int, w, a *byte) float32
//
// Reference: DotQ8_0Q8_0, without dotprod.
TEXT ·dotQ8_0Q8_0NEON(SB), NOSPLIT, $0-28
	START

q80neon:
	PRFM 4096(R1), PLDL1KEEP
	DPROD
	VLD1.P 32(R1), [V0.B16, V1.B16]
	ACTS
	LANES32
	ACCUM
	SUBS $1, R0
	BNE  q80neon
	HSUM8
	FMOVS F30, ret+24(FP)
	RET
