//go:build amd64 && !noasm

#include "textflag.h"

// Kernels on stored Q4_0x16 groups (gemm_stored.go) for CPUs with AVX2 but without AVX-512 VNNI: 256-bit
// registers hold 8 of the group's rows (lane r = row 8h+r of half h), so a plain load of a stored quant dword
// gives 8 rows. VPMADDUBSW multiplies the unsigned nibbles (0…15) with the broadcast signed activation bytes
// into int16 pairs (|2·15·128| < 2¹⁵: no saturation) and VPADDW adds the 8 of a block (16 products,
// |16·15·128| = 30720 < 2¹⁵); VPMADDWD with ones makes the exact int32 Σ q·y, and adding Q8_0S's correction
// −8·Σy gives DotQ4_0Q8_0Interleaved's block sum. The float work is the reference's, lane by lane.

// Y10: the nibble mask; Y12: int16 ones.
#define SETUP \
	MOVL         $0x0f0f0f0f, AX \
	MOVD         AX, X10         \
	VPBROADCASTD X10, Y10        \
	MOVL         $0x00010001, AX \
	MOVD         AX, X12         \
	VPBROADCASTD X12, Y12

// QMADD adds the products of the unpacked nibbles in Y8 (low) and Y9 (high) with the column at R's quant
// dwords at lo and hi into the int16 pairs I.
#define QMADD(R, lo, hi, I) \
	VPBROADCASTD lo(R), Y11  \
	VPMADDUBSW   Y11, Y8, Y11 \
	VPADDW       Y11, I, I    \
	VPBROADCASTD hi(R), Y11  \
	VPMADDUBSW   Y11, Y9, Y11 \
	VPADDW       Y11, I, I

// QK4 loads quant dword k (at wo, the half at DX·2) of the 8 rows and adds its products into the 4 columns.
#define QK4(wo, lo, hi) \
	VMOVDQU    wo(SI)(DX*2), Y8 \
	VPSRLW     $4, Y8, Y9       \
	VPAND      Y10, Y8, Y8      \
	VPAND      Y10, Y9, Y9      \
	QMADD(R8, lo, hi, Y4)       \
	QMADD(R9, lo, hi, Y5)       \
	QMADD(R10, lo, hi, Y6)      \
	QMADD(R11, lo, hi, Y7)

// QFIN: ACC = fma(s, dw·da, ACC) for the column at R, I holding its int16 pairs; Y13 holds dw.
#define QFIN(R, I, ACC) \
	VPMADDWD     Y12, I, I    \
	VPBROADCASTD 4(R), Y11    \
	VPADDD       Y11, I, I    \
	VCVTDQ2PS    I, I         \
	VBROADCASTSS (R), Y11     \
	VMULPS       Y11, Y13, Y11 \
	VFMADD231PS  Y11, I, ACC

// func gemm4Q4xAVX2(nb int, p, a *byte, aStride, half int, out *float32)
//
// Reference: DotQ4_0Q8_0Interleaved for the 8 rows of half half/16 of one stored group (nb blocks at p) and
// the 4 Q8_0S columns at a, aStride bytes apart; out[16c+r] is column c, row r (of the half).
TEXT ·gemm4Q4xAVX2(SB), NOSPLIT, $0-48
	MOVQ  nb+0(FP), CX
	MOVQ  p+8(FP), SI
	MOVQ  a+16(FP), R8
	MOVQ  aStride+24(FP), BX
	MOVQ  half+32(FP), DX
	MOVQ  out+40(FP), DI
	LEAQ  (R8)(BX*1), R9
	LEAQ  (R9)(BX*1), R10
	LEAQ  (R10)(BX*1), R11
	SETUP
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3

q4x4block:
	VPXOR     Y4, Y4, Y4
	VPXOR     Y5, Y5, Y5
	VPXOR     Y6, Y6, Y6
	VPXOR     Y7, Y7, Y7
	QK4(32, 8, 24)
	QK4(96, 12, 28)
	QK4(160, 16, 32)
	QK4(224, 20, 36)
	VCVTPH2PS (SI)(DX*1), Y13
	QFIN(R8, Y4, Y0)
	QFIN(R9, Y5, Y1)
	QFIN(R10, Y6, Y2)
	QFIN(R11, Y7, Y3)
	ADDQ      $288, SI
	ADDQ      $40, R8
	ADDQ      $40, R9
	ADDQ      $40, R10
	ADDQ      $40, R11
	DECQ      CX
	JNZ       q4x4block

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 64(DI)
	VMOVUPS Y2, 128(DI)
	VMOVUPS Y3, 192(DI)
	VZEROUPPER
	RET

// QV16 adds the products of quant dword k (at wo and wo+32: rows 0…7 and 8…15) with the column's quant dwords
// at lo and hi into Y4 (rows 0…7) and Y5 (rows 8…15).
#define QV16(wo, wo2, lo, hi) \
	VPBROADCASTD lo(R8), Y2   \
	VPBROADCASTD hi(R8), Y3   \
	VMOVDQU      wo(SI), Y8   \
	VMOVDQU      wo2(SI), Y6  \
	VPSRLW       $4, Y8, Y9   \
	VPAND        Y10, Y8, Y8  \
	VPAND        Y10, Y9, Y9  \
	VPSRLW       $4, Y6, Y7   \
	VPAND        Y10, Y6, Y6  \
	VPAND        Y10, Y7, Y7  \
	VPMADDUBSW   Y2, Y8, Y8   \
	VPADDW       Y8, Y4, Y4   \
	VPMADDUBSW   Y3, Y9, Y9   \
	VPADDW       Y9, Y4, Y4   \
	VPMADDUBSW   Y2, Y6, Y6   \
	VPADDW       Y6, Y5, Y5   \
	VPMADDUBSW   Y3, Y7, Y7   \
	VPADDW       Y7, Y5, Y5

// func gemv16Q4xAVX2(nb int, p, a *byte, out *float32)
//
// Reference: DotQ4_0Q8_0Interleaved for the 16 rows of one stored group (nb blocks at p) and the Q8_0S
// column at a; out[r] is row r. The column's quant dwords are broadcast once for both halves.
TEXT ·gemv16Q4xAVX2(SB), NOSPLIT, $0-32
	MOVQ  nb+0(FP), CX
	MOVQ  p+8(FP), SI
	MOVQ  a+16(FP), R8
	MOVQ  out+24(FP), DI
	SETUP
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

q4x1block:
	VPXOR        Y4, Y4, Y4
	VPXOR        Y5, Y5, Y5
	QV16(32, 64, 8, 24)
	QV16(96, 128, 12, 28)
	QV16(160, 192, 16, 32)
	QV16(224, 256, 20, 36)
	VPMADDWD     Y12, Y4, Y4
	VPMADDWD     Y12, Y5, Y5
	VPBROADCASTD 4(R8), Y11
	VPADDD       Y11, Y4, Y4
	VPADDD       Y11, Y5, Y5
	VCVTDQ2PS    Y4, Y4
	VCVTDQ2PS    Y5, Y5
	VBROADCASTSS (R8), Y11
	VCVTPH2PS    (SI), Y13
	VCVTPH2PS    16(SI), Y14
	VMULPS       Y11, Y13, Y13
	VMULPS       Y11, Y14, Y14
	VFMADD231PS  Y13, Y4, Y0
	VFMADD231PS  Y14, Y5, Y1
	ADDQ         $288, SI
	ADDQ         $40, R8
	DECQ         CX
	JNZ          q4x1block

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VZEROUPPER
	RET

// func dotQ4_0Q8SAVX2(nb int, w, a *byte) float32
//
// Reference: DotQ4_0Q8_0Interleaved of one Q4_0 row (original layout) with one Q8_0S row: Mul's decoding
// path for rows not in the stored layout. Per block the low nibbles (elements 0…15) and the high ones
// (16…31) make one register matching the activation's 32 quants; the exact Σ q·y plus Q8_0S's correction is
// the block sum s, and acc = fma(s, dw·da, acc) as in the reference.
TEXT ·dotQ4_0Q8SAVX2(SB), NOSPLIT, $0-28
	MOVQ  nb+0(FP), CX
	MOVQ  w+8(FP), SI
	MOVQ  a+16(FP), DI
	SETUP
	VXORPS X0, X0, X0

q4sloop:
	MOVWLZX      (SI), AX
	VMOVD        AX, X2
	VCVTPH2PS    X2, X2
	VMULSS       (DI), X2, X2
	VMOVDQU      2(SI), X3
	VPSRLW       $4, X3, X4
	VINSERTI128  $1, X4, Y3, Y3
	VPAND        Y10, Y3, Y3
	VPMADDUBSW   8(DI), Y3, Y3
	VPMADDWD     Y12, Y3, Y3
	VEXTRACTI128 $1, Y3, X4
	VPADDD       X4, X3, X3
	VPSHUFD      $0x4e, X3, X4
	VPADDD       X4, X3, X3
	VPSHUFD      $0xb1, X3, X4
	VPADDD       X4, X3, X3
	VMOVD        4(DI), X4
	VPADDD       X4, X3, X3
	VCVTDQ2PS    X3, X3
	VFMADD231SS  X2, X3, X0
	ADDQ         $18, SI
	ADDQ         $40, DI
	DECQ         CX
	JNZ          q4sloop
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET
