//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"
#include "zero_amd64.h"
#include "prefetch_amd64.h"

// Kernels on stored IQ4_XSx16 groups (gemm_stored_iq4.go) against Q8_KX activations, AVX-512 VNNI. Lane r of
// every vector is row r. Per super-block each lane sums every sub-block exactly: the nibbles of a stored
// dword vector become kvalue+128 (VPSHUFB on ix4Tab), VPDPBUSD multiplies them with broadcast activation
// dwords into the sub-block's sum, which starts at the column's −128·Σy correction; the sums times the
// sub-block scales (VPMULLD) are added into the super-block's sum, and each lane does DotIQ4_XSQ8_KPanel's
// float work: acc = fma(float32(sum), d·yd, acc).

// kvaluesIQ4 + 128, as unsigned bytes.
DATA ix4Tab<>+0(SB)/8, $0x766a5d4f3f2d1801
DATA ix4Tab<>+8(SB)/8, $0xf1d9c5b5a6998d81
GLOBL ix4Tab<>(SB), RODATA|NOPTR, $16

DATA ix4Nib<>+0(SB)/4, $0x0f0f0f0f
GLOBL ix4Nib<>(SB), RODATA|NOPTR, $4

// IX4CONSTS loads the nibble mask into Z30 and the table, in every 128-bit lane, into Z31.
#define IX4CONSTS \
	VPBROADCASTD    ix4Nib<>(SB), Z30 \
	VBROADCASTI32X4 ix4Tab<>(SB), Z31

// IX4UNPACK turns stored dword so (its offset in the quants) of the super-block at SI into the table values
// plus 128 of its low nibbles (Z25) and its high nibbles (Z26). Clobbers Z24.
#define IX4UNPACK(so) \
	VMOVDQU32 const_ix4Qs+so(SI), Z24 \
	VPANDD    Z30, Z24, Z25           \
	VPSRLD    $4, Z24, Z26            \
	VPANDD    Z30, Z26, Z26           \
	VPSHUFB   Z25, Z31, Z25           \
	VPSHUFB   Z26, Z31, Z26

// IX4UNPACKV is IX4UNPACK with VPERMB (AVX-512 VBMI), whose six index bits need no mask: the table repeats
// every 16 bytes, so the bits above a nibble only pick a copy.
#define IX4UNPACKV(so) \
	VMOVDQU32 const_ix4Qs+so(SI), Z24 \
	VPSRLD    $4, Z24, Z26            \
	VPERMB    Z31, Z24, Z25           \
	VPERMB    Z31, Z26, Z26

// IX8D adds stored dword so of the super-block at SI into the sub-block sums Z0…Z7 of the eight columns at
// R8, R8+AX, R8+2AX, R8+BX, R9, … (low nibbles times the activation dword at lo, high nibbles at lo+16).
#define IX8D(so, lo) \
	IX4UNPACK(so)                                  \
	VPDPBUSD.BCST lo(R8), Z25, Z0                  \
	VPDPBUSD.BCST lo+16(R8), Z26, Z0               \
	VPDPBUSD.BCST lo(R8)(AX*1), Z25, Z1            \
	VPDPBUSD.BCST lo+16(R8)(AX*1), Z26, Z1         \
	VPDPBUSD.BCST lo(R8)(AX*2), Z25, Z2            \
	VPDPBUSD.BCST lo+16(R8)(AX*2), Z26, Z2         \
	VPDPBUSD.BCST lo(R8)(BX*1), Z25, Z3            \
	VPDPBUSD.BCST lo+16(R8)(BX*1), Z26, Z3         \
	VPDPBUSD.BCST lo(R9), Z25, Z4                  \
	VPDPBUSD.BCST lo+16(R9), Z26, Z4               \
	VPDPBUSD.BCST lo(R9)(AX*1), Z25, Z5            \
	VPDPBUSD.BCST lo+16(R9)(AX*1), Z26, Z5         \
	VPDPBUSD.BCST lo(R9)(AX*2), Z25, Z6            \
	VPDPBUSD.BCST lo+16(R9)(AX*2), Z26, Z6         \
	VPDPBUSD.BCST lo(R9)(BX*1), Z25, Z7            \
	VPDPBUSD.BCST lo+16(R9)(BX*1), Z26, Z7

// IX8SUB adds sub-block k of the eight columns into their super-block sums Z8…Z15: each column's sum starts
// at its correction, takes the sub-block's 32 elements, and is multiplied by the rows' scales.
#define IX8SUB(k) \
	VPBROADCASTD const_q8kxCorr+4*k(R8), Z0        \
	VPBROADCASTD const_q8kxCorr+4*k(R8)(AX*1), Z1  \
	VPBROADCASTD const_q8kxCorr+4*k(R8)(AX*2), Z2  \
	VPBROADCASTD const_q8kxCorr+4*k(R8)(BX*1), Z3  \
	VPBROADCASTD const_q8kxCorr+4*k(R9), Z4        \
	VPBROADCASTD const_q8kxCorr+4*k(R9)(AX*1), Z5  \
	VPBROADCASTD const_q8kxCorr+4*k(R9)(AX*2), Z6  \
	VPBROADCASTD const_q8kxCorr+4*k(R9)(BX*1), Z7  \
	IX8D(256*k, 4+32*k)                            \
	IX8D(256*k+64, 8+32*k)                         \
	IX8D(256*k+128, 12+32*k)                       \
	IX8D(256*k+192, 16+32*k)                       \
	VPMOVSXBD    const_ix4Ls+16*k(SI), Z27         \
	VPMULLD      Z27, Z0, Z0                       \
	VPMULLD      Z27, Z1, Z1                       \
	VPMULLD      Z27, Z2, Z2                       \
	VPMULLD      Z27, Z3, Z3                       \
	VPMULLD      Z27, Z4, Z4                       \
	VPMULLD      Z27, Z5, Z5                       \
	VPMULLD      Z27, Z6, Z6                       \
	VPMULLD      Z27, Z7, Z7                       \
	VPADDD       Z0, Z8, Z8                        \
	VPADDD       Z1, Z9, Z9                        \
	VPADDD       Z2, Z10, Z10                      \
	VPADDD       Z3, Z11, Z11                      \
	VPADDD       Z4, Z12, Z12                      \
	VPADDD       Z5, Z13, Z13                      \
	VPADDD       Z6, Z14, Z14                      \
	VPADDD       Z7, Z15, Z15

// IX8FMA fuses super-block sum S of the column whose block is at addr into ACC with d·yd (d in Z28).
#define IX8FMA(S, addr, ACC) \
	VCVTDQ2PS   S, S              \
	VMULPS.BCST addr, Z28, Z29    \
	VFMADD231PS Z29, S, ACC

// func gemm8IQ4x(nb int, p, a *byte, aStride int, out *float32, outStride, mask int)
//
// Reference: DotIQ4_XSQ8_KPanel for each of the 16×8 (row, column) pairs of one stored group; each stored
// dword is unpacked once for the eight columns.
TEXT ·gemm8IQ4x(SB), NOSPLIT, $0-56
	MOVQ   nb+0(FP), CX
	MOVQ   p+8(FP), SI
	MOVQ   a+16(FP), R8
	MOVQ   aStride+24(FP), AX
	LEAQ   (AX)(AX*2), BX
	LEAQ   (R8)(AX*4), R9
	IX4CONSTS
	ZERO8(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)

ix8loop:
	ZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	IX8SUB(0)
	IX8SUB(1)
	IX8SUB(2)
	IX8SUB(3)
	IX8SUB(4)
	IX8SUB(5)
	IX8SUB(6)
	IX8SUB(7)
	VMOVUPS (SI), Z28
	IX8FMA(Z8, (R8), Z16)
	IX8FMA(Z9, (R8)(AX*1), Z17)
	IX8FMA(Z10, (R8)(AX*2), Z18)
	IX8FMA(Z11, (R8)(BX*1), Z19)
	IX8FMA(Z12, (R9), Z20)
	IX8FMA(Z13, (R9)(AX*1), Z21)
	IX8FMA(Z14, (R9)(AX*2), Z22)
	IX8FMA(Z15, (R9)(BX*1), Z23)
	ADDQ    $const_ix4Block, SI
	ADDQ    $const_q8kxBlock, R8
	ADDQ    $const_q8kxBlock, R9
	DECQ    CX
	JNZ     ix8loop

	MOVQ    mask+48(FP), AX
	KMOVW   AX, K1
	MOVQ    out+32(FP), DI
	MOVQ    outStride+40(FP), DX
	SHLQ    $2, DX
	VMOVUPS Z16, K1, (DI)
	ADDQ    DX, DI
	VMOVUPS Z17, K1, (DI)
	ADDQ    DX, DI
	VMOVUPS Z18, K1, (DI)
	ADDQ    DX, DI
	VMOVUPS Z19, K1, (DI)
	ADDQ    DX, DI
	VMOVUPS Z20, K1, (DI)
	ADDQ    DX, DI
	VMOVUPS Z21, K1, (DI)
	ADDQ    DX, DI
	VMOVUPS Z22, K1, (DI)
	ADDQ    DX, DI
	VMOVUPS Z23, K1, (DI)
	VZEROUPPER
	RET

// IX4D adds stored dword so of the super-block at SI into the sub-block sums Z0…Z3 of the four columns at
// R8, R8+AX, R8+2AX and R8+BX.
#define IX4D(so, lo) \
	IX4UNPACK(so)                                  \
	VPDPBUSD.BCST lo(R8), Z25, Z0                  \
	VPDPBUSD.BCST lo+16(R8), Z26, Z0               \
	VPDPBUSD.BCST lo(R8)(AX*1), Z25, Z1            \
	VPDPBUSD.BCST lo+16(R8)(AX*1), Z26, Z1         \
	VPDPBUSD.BCST lo(R8)(AX*2), Z25, Z2            \
	VPDPBUSD.BCST lo+16(R8)(AX*2), Z26, Z2         \
	VPDPBUSD.BCST lo(R8)(BX*1), Z25, Z3            \
	VPDPBUSD.BCST lo+16(R8)(BX*1), Z26, Z3

// IX4SUB is IX8SUB for the four columns: sub-block k into their super-block sums Z8…Z11.
#define IX4SUB(k) \
	VPBROADCASTD const_q8kxCorr+4*k(R8), Z0        \
	VPBROADCASTD const_q8kxCorr+4*k(R8)(AX*1), Z1  \
	VPBROADCASTD const_q8kxCorr+4*k(R8)(AX*2), Z2  \
	VPBROADCASTD const_q8kxCorr+4*k(R8)(BX*1), Z3  \
	IX4D(256*k, 4+32*k)                            \
	IX4D(256*k+64, 8+32*k)                         \
	IX4D(256*k+128, 12+32*k)                       \
	IX4D(256*k+192, 16+32*k)                       \
	VPMOVSXBD    const_ix4Ls+16*k(SI), Z27         \
	VPMULLD      Z27, Z0, Z0                       \
	VPMULLD      Z27, Z1, Z1                       \
	VPMULLD      Z27, Z2, Z2                       \
	VPMULLD      Z27, Z3, Z3                       \
	VPADDD       Z0, Z8, Z8                        \
	VPADDD       Z1, Z9, Z9                        \
	VPADDD       Z2, Z10, Z10                      \
	VPADDD       Z3, Z11, Z11

// func gemm4IQ4x(nb int, p, a *byte, aStride int, out *float32, outStride, mask int)
//
// Reference: DotIQ4_XSQ8_KPanel for each of the 16×4 (row, column) pairs of one stored group (gemm8IQ4x for
// four columns).
TEXT ·gemm4IQ4x(SB), NOSPLIT, $0-56
	MOVQ   nb+0(FP), CX
	MOVQ   p+8(FP), SI
	MOVQ   a+16(FP), R8
	MOVQ   aStride+24(FP), AX
	LEAQ   (AX)(AX*2), BX
	IX4CONSTS
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19

ix4loop:
	VPXORD  Z8, Z8, Z8
	VPXORD  Z9, Z9, Z9
	VPXORD  Z10, Z10, Z10
	VPXORD  Z11, Z11, Z11
	IX4SUB(0)
	IX4SUB(1)
	IX4SUB(2)
	IX4SUB(3)
	IX4SUB(4)
	IX4SUB(5)
	IX4SUB(6)
	IX4SUB(7)
	VMOVUPS (SI), Z28
	IX8FMA(Z8, (R8), Z16)
	IX8FMA(Z9, (R8)(AX*1), Z17)
	IX8FMA(Z10, (R8)(AX*2), Z18)
	IX8FMA(Z11, (R8)(BX*1), Z19)
	ADDQ    $const_ix4Block, SI
	ADDQ    $const_q8kxBlock, R8
	DECQ    CX
	JNZ     ix4loop

	MOVQ    mask+48(FP), AX
	KMOVW   AX, K1
	MOVQ    out+32(FP), DI
	MOVQ    outStride+40(FP), DX
	SHLQ    $2, DX
	VMOVUPS Z16, K1, (DI)
	ADDQ    DX, DI
	VMOVUPS Z17, K1, (DI)
	ADDQ    DX, DI
	VMOVUPS Z18, K1, (DI)
	ADDQ    DX, DI
	VMOVUPS Z19, K1, (DI)
	VZEROUPPER
	RET

// IX1PFD is the two-column kernel's prefetch distance: 3 stored super-blocks.
#define IX1PFD 6720

// IXPFD1 is the one-column kernels': 2 stored super-blocks, every line (the header's three at the block
// start, each quant line as IX1D or IX1DV reads it). BenchmarkStreamGemm iq4_xs, alternating: one goroutine
// 23.8–26.7 GB/s against 18.3–19.9 unprefetched, two 39.1–47.4 against 26.9–35.7. (An earlier measurement had
// found them faster unprefetched: 20.7–21.7 against 12.1–16.5 GB/s with one goroutine. The host decides, Zen 4
// against Zen 5: the distance is STREAMAHEAD's, prefetch_amd64.go. The same prefetching measured level for
// Q4_0's and Q8_0's one-column kernels, which stream as fast without.)
#define IXPFD1 4480

// IX1FIN adds the eight sub-block sums Z0…Z7 of one super-block (exact integers, in any order) and
// fuses their float32 times d·yd into Z8, the reference's step; then it moves SI and DI to the next
// super-block.
#define IX1FIN \
	VPADDD      Z1, Z0, Z0            \
	VPADDD      Z3, Z2, Z2            \
	VPADDD      Z5, Z4, Z4            \
	VPADDD      Z7, Z6, Z6            \
	VPADDD      Z2, Z0, Z0            \
	VPADDD      Z6, Z4, Z4            \
	VPADDD      Z4, Z0, Z0            \
	VCVTDQ2PS   Z0, Z0                \
	VMOVUPS     (SI), Z28             \
	VMULPS.BCST (DI), Z28, Z29        \
	VFMADD231PS Z29, Z0, Z8           \
	ADDQ        $const_ix4Block, SI   \
	ADDQ        $const_q8kxBlock, DI

// IX1D adds stored dword so of the super-block at SI into sub-block sum Z (activation dwords at lo(DI) and
// lo+16(DI)).
#define IX1D(so, lo, Z) \
	PREFETCHT0    const_ix4Qs+so(SI)(R12*1) \
	IX4UNPACK(so)                           \
	VPDPBUSD.BCST lo(DI), Z25, Z            \
	VPDPBUSD.BCST lo+16(DI), Z26, Z

// IX1SUB computes sub-block k's scaled sum into Z: the correction, the 32 elements, times the rows' scales.
#define IX1SUB(k, Z) \
	VPBROADCASTD const_q8kxCorr+4*k(DI), Z \
	IX1D(256*k, 4+32*k, Z)                 \
	IX1D(256*k+64, 8+32*k, Z)              \
	IX1D(256*k+128, 12+32*k, Z)            \
	IX1D(256*k+192, 16+32*k, Z)            \
	VPMOVSXBD const_ix4Ls+16*k(SI), Z27    \
	VPMULLD   Z27, Z, Z

// func gemv1IQ4x(nb int, p, a *byte, out *float32, mask int)
//
// Reference: DotIQ4_XSQ8_KPanel for the 16 rows of one stored group against one Q8_KX column; the eight
// sub-block sums of a super-block are eight dependency chains.
TEXT ·gemv1IQ4x(SB), NOSPLIT, $0-40
	MOVQ   nb+0(FP), CX
	MOVQ   p+8(FP), SI
	MOVQ   a+16(FP), DI
	IX4CONSTS
	VPXORD Z8, Z8, Z8
	STREAMAHEAD(IXPFD1, R12)

ix1loop:
	PREFETCH3X(0, SI, R12)
	IX1SUB(0, Z0)
	IX1SUB(1, Z1)
	IX1SUB(2, Z2)
	IX1SUB(3, Z3)
	IX1SUB(4, Z4)
	IX1SUB(5, Z5)
	IX1SUB(6, Z6)
	IX1SUB(7, Z7)
	IX1FIN
	DECQ        CX
	JNZ         ix1loop

	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Z8, K1, (DI)
	VZEROUPPER
	RET

// IX1DV and IX1SUBV are IX1D and IX1SUB unpacking with IX4UNPACKV.
#define IX1DV(so, lo, Z) \
	PREFETCHT0    const_ix4Qs+so(SI)(R12*1) \
	IX4UNPACKV(so)                           \
	VPDPBUSD.BCST lo(DI), Z25, Z            \
	VPDPBUSD.BCST lo+16(DI), Z26, Z

#define IX1SUBV(k, Z) \
	VPBROADCASTD const_q8kxCorr+4*k(DI), Z \
	IX1DV(256*k, 4+32*k, Z)                 \
	IX1DV(256*k+64, 8+32*k, Z)              \
	IX1DV(256*k+128, 12+32*k, Z)            \
	IX1DV(256*k+192, 16+32*k, Z)            \
	VPMOVSXBD const_ix4Ls+16*k(SI), Z27    \
	VPMULLD   Z27, Z, Z

// func gemv1IQ4xVBMI(nb int, p, a *byte, out *float32, mask int)
//
// gemv1IQ4x with VPERMB (AVX-512 VBMI): two instructions fewer per stored dword.
TEXT ·gemv1IQ4xVBMI(SB), NOSPLIT, $0-40
	MOVQ   nb+0(FP), CX
	MOVQ   p+8(FP), SI
	MOVQ   a+16(FP), DI
	IX4CONSTS
	VPXORD Z8, Z8, Z8
	STREAMAHEAD(IXPFD1, R12)

ix1vloop:
	PREFETCH3X(0, SI, R12)
	IX1SUBV(0, Z0)
	IX1SUBV(1, Z1)
	IX1SUBV(2, Z2)
	IX1SUBV(3, Z3)
	IX1SUBV(4, Z4)
	IX1SUBV(5, Z5)
	IX1SUBV(6, Z6)
	IX1SUBV(7, Z7)
	IX1FIN
	DECQ        CX
	JNZ         ix1vloop

	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Z8, K1, (DI)
	VZEROUPPER
	RET

// IX2D adds stored dword so of the super-block at SI into the sub-block sums Z0 and Z1 of the two columns at
// R8 and R8+AX.
#define IX2D(so, lo) \
	IX4UNPACK(so)                                  \
	VPDPBUSD.BCST lo(R8), Z25, Z0                  \
	VPDPBUSD.BCST lo+16(R8), Z26, Z0               \
	VPDPBUSD.BCST lo(R8)(AX*1), Z25, Z1            \
	VPDPBUSD.BCST lo+16(R8)(AX*1), Z26, Z1

// IX2SUB is IX8SUB for the two columns: sub-block k into their super-block sums Z8 and Z9.
#define IX2SUB(k) \
	VPBROADCASTD const_q8kxCorr+4*k(R8), Z0        \
	VPBROADCASTD const_q8kxCorr+4*k(R8)(AX*1), Z1  \
	IX2D(256*k, 4+32*k)                            \
	IX2D(256*k+64, 8+32*k)                         \
	IX2D(256*k+128, 12+32*k)                       \
	IX2D(256*k+192, 16+32*k)                       \
	VPMOVSXBD    const_ix4Ls+16*k(SI), Z27         \
	VPMULLD      Z27, Z0, Z0                       \
	VPMULLD      Z27, Z1, Z1                       \
	VPADDD       Z0, Z8, Z8                        \
	VPADDD       Z1, Z9, Z9

// func gemm2IQ4x(nb int, p, a *byte, aStride int, out *float32, outStride, mask int)
//
// Reference: DotIQ4_XSQ8_KPanel for each of the 16×2 (row, column) pairs of one stored group (gemm8IQ4x for
// two columns: the group is read once for both, where decoding two sequences is bound by memory).
TEXT ·gemm2IQ4x(SB), NOSPLIT, $0-56
	MOVQ   nb+0(FP), CX
	MOVQ   p+8(FP), SI
	MOVQ   a+16(FP), R8
	MOVQ   aStride+24(FP), AX
	IX4CONSTS
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17

ix2loop:
	PREFETCH3(IX1PFD, SI)
	VPXORD     Z8, Z8, Z8
	VPXORD     Z9, Z9, Z9
	IX2SUB(0)
	IX2SUB(1)
	IX2SUB(2)
	IX2SUB(3)
	IX2SUB(4)
	IX2SUB(5)
	IX2SUB(6)
	IX2SUB(7)
	VMOVUPS    (SI), Z28
	IX8FMA(Z8, (R8), Z16)
	IX8FMA(Z9, (R8)(AX*1), Z17)
	ADDQ       $const_ix4Block, SI
	ADDQ       $const_q8kxBlock, R8
	DECQ       CX
	JNZ        ix2loop

	MOVQ    mask+48(FP), AX
	KMOVW   AX, K1
	MOVQ    out+32(FP), DI
	MOVQ    outStride+40(FP), DX
	SHLQ    $2, DX
	VMOVUPS Z16, K1, (DI)
	ADDQ    DX, DI
	VMOVUPS Z17, K1, (DI)
	VZEROUPPER
	RET
