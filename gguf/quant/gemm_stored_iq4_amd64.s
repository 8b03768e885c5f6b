//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"
#include "zero_amd64.h"

// The one-column kernel on stored IQ4_XSx16 groups (gemm_stored_iq4.go), AVX-512 VNNI. Lane r of every vector
// is row r.

DATA ix4xNib<>+0(SB)/4, $0x0f0f0f0f
GLOBL ix4xNib<>(SB), RODATA|NOPTR, $4
DATA ix4x80<>+0(SB)/4, $0x80808080
GLOBL ix4x80<>(SB), RODATA|NOPTR, $4

// ix4xValues is kvaluesIQ4 + 128: each nibble's value as an unsigned byte.
DATA ix4xValues<>+0(SB)/4, $0x3f2d1801
DATA ix4xValues<>+4(SB)/4, $0x766a5d4f
DATA ix4xValues<>+8(SB)/4, $0xa6998d81
DATA ix4xValues<>+12(SB)/4, $0xf1d9c5b5
GLOBL ix4xValues<>(SB), RODATA|NOPTR, $16

// IX4XA stores −128·(the sum of each activation dword) of sub-block k at 32k(SP): the eight dwords of its
// 32 quants (Q8_K's at 4(DI)), one a lane (Y29 = 128 in every byte, Y28 = 0).
#define IX4XA(k) \
	VPXORD   Y27, Y27, Y27    \
	VPDPBUSD 4+32*k(DI), Y29, Y27 \
	VPSUBD   Y27, Y28, Y27    \
	VMOVDQU32 Y27, 32*k(SP)

// IX4XD adds dword j of sub-block k (scales in Z16) into lanes j (ZL) and j+4 (ZH): the nibbles looked up as
// value + 128, four of them times the lane's activation dword added to −128·(its sum), so the exact Σ q·y of
// the four, then times the scale.
#define IX4XD(k, j, ZL, ZH) \
	VMOVDQU32     const_ix4xQs+256*k+64*j(SI), Z17 \
	VPANDD        Z31, Z17, Z18                    \
	VPSRLD        $4, Z17, Z19                     \
	VPANDD        Z31, Z19, Z19                    \
	VPSHUFB       Z18, Z30, Z18                    \
	VPSHUFB       Z19, Z30, Z19                    \
	VPBROADCASTD  32*k+4*j(SP), Z20                \
	VPDPBUSD.BCST 4+32*k+4*j(DI), Z18, Z20         \
	VPMULLD       Z16, Z20, Z20                    \
	VPADDD        Z20, ZL, ZL                      \
	VPBROADCASTD  32*k+16+4*j(SP), Z21             \
	VPDPBUSD.BCST 4+32*k+16+4*j(DI), Z19, Z21      \
	VPMULLD       Z16, Z21, Z21                    \
	VPADDD        Z21, ZH, ZH

// IX4XSUB adds sub-block k into the eight lanes Z0…Z7.
#define IX4XSUB(k) \
	VPMOVSXBD const_ix4xScales+16*k(SI), Z16 \
	IX4XD(k, 0, Z0, Z4)                      \
	IX4XD(k, 1, Z1, Z5)                      \
	IX4XD(k, 2, Z2, Z6)                      \
	IX4XD(k, 3, Z3, Z7)

// func gemv1IQ4x(nb int, p, a *byte, out *float32, mask int)
//
// Reference: DotIQ4_XSQ8_K for the 16 rows of one stored group against one Q8_KL column (its Q8_K blocks
// q8klBlock bytes apart): per super-block the eight integer lanes, each fused into its float32 accumulator
// (Z8…Z15) with d·yd, then the accumulators added as hsum_float_8; the rows selected by mask are written.
TEXT ·gemv1IQ4x(SB), NOSPLIT, $256-40
	MOVQ            nb+0(FP), CX
	MOVQ            p+8(FP), SI
	MOVQ            a+16(FP), DI
	VPBROADCASTD    ix4xNib<>(SB), Z31
	VBROADCASTI32X4 ix4xValues<>(SB), Z30
	VPBROADCASTD    ix4x80<>(SB), Y29
	VPXORD          Y28, Y28, Y28
	ZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

ix4xloop:
	IX4XA(0)
	IX4XA(1)
	IX4XA(2)
	IX4XA(3)
	IX4XA(4)
	IX4XA(5)
	IX4XA(6)
	IX4XA(7)
	ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	IX4XSUB(0)
	IX4XSUB(1)
	IX4XSUB(2)
	IX4XSUB(3)
	IX4XSUB(4)
	IX4XSUB(5)
	IX4XSUB(6)
	IX4XSUB(7)
	VCVTPH2PS   (SI), Z24
	VMULPS.BCST (DI), Z24, Z24
	VCVTDQ2PS   Z0, Z0
	VFMADD231PS Z24, Z0, Z8
	VCVTDQ2PS   Z1, Z1
	VFMADD231PS Z24, Z1, Z9
	VCVTDQ2PS   Z2, Z2
	VFMADD231PS Z24, Z2, Z10
	VCVTDQ2PS   Z3, Z3
	VFMADD231PS Z24, Z3, Z11
	VCVTDQ2PS   Z4, Z4
	VFMADD231PS Z24, Z4, Z12
	VCVTDQ2PS   Z5, Z5
	VFMADD231PS Z24, Z5, Z13
	VCVTDQ2PS   Z6, Z6
	VFMADD231PS Z24, Z6, Z14
	VCVTDQ2PS   Z7, Z7
	VFMADD231PS Z24, Z7, Z15
	ADDQ        $const_ix4xBlock, SI
	ADDQ        $const_q8klBlock, DI
	DECQ        CX
	JNZ         ix4xloop

	// hsum_float_8: lanes m and m+4, then (0+2) + (1+3)
	VADDPS  Z12, Z8, Z8
	VADDPS  Z13, Z9, Z9
	VADDPS  Z14, Z10, Z10
	VADDPS  Z15, Z11, Z11
	VADDPS  Z10, Z8, Z8
	VADDPS  Z11, Z9, Z9
	VADDPS  Z9, Z8, Z8
	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Z8, K1, (DI)
	VZEROUPPER
	RET
