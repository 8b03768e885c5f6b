//go:build amd64 && !noasm

#include "textflag.h"

// Batched kernels for packed groups of 16 weight rows (see gemm.go), AVX-512 VNNI on 512-bit registers,
// hand-written Plan 9 assembly. Lane r of every vector is weight row r. Per block and activation column:
// start from the column's −off·Σq, add the 8 groups of 4 products with VPDPBUSD (packed unsigned quants ×
// the column's broadcast signed quants: exact int32), convert, scale and add — in the reference's order.

// GLOAD loads the 8 packed quant groups of the current block into Z16…Z23.
#define GLOAD \
	VMOVDQU32 0(SI), Z16   \
	VMOVDQU32 64(SI), Z17  \
	VMOVDQU32 128(SI), Z18  \
	VMOVDQU32 192(SI), Z19  \
	VMOVDQU32 256(SI), Z20 \
	VMOVDQU32 320(SI), Z21 \
	VMOVDQU32 384(SI), Z22 \
	VMOVDQU32 448(SI), Z23

// GSUM leaves the exact block sums Σ (q−off)·y of the column at R (block at offset DX) in T.
#define GSUM(R, T) \
	VPBROADCASTD  4(R)(DX*1), T        \
	VPDPBUSD.BCST 8(R)(DX*1), Z16, T   \
	VPDPBUSD.BCST 12(R)(DX*1), Z17, T  \
	VPDPBUSD.BCST 16(R)(DX*1), Z18, T  \
	VPDPBUSD.BCST 20(R)(DX*1), Z19, T  \
	VPDPBUSD.BCST 24(R)(DX*1), Z20, T  \
	VPDPBUSD.BCST 28(R)(DX*1), Z21, T  \
	VPDPBUSD.BCST 32(R)(DX*1), Z22, T  \
	VPDPBUSD.BCST 36(R)(DX*1), Z23, T  \
	VCVTDQ2PS     T, T

// GCOLXY: ACC += (s·dw)·da.
#define GCOLXY(R, T, ACC) \
	GSUM(R, T)                    \
	VMULPS      512(SI), T, T     \
	VMULPS.BCST (R)(DX*1), T, T   \
	VADDPS      T, ACC, ACC

// GCOLD: ACC += s·(dw·da); Z24 holds dw.
#define GCOLD(R, T, ACC) \
	GSUM(R, T)                    \
	VMULPS.BCST (R)(DX*1), Z24, Z25 \
	VMULPS      Z25, T, T         \
	VADDPS      T, ACC, ACC

// GSETUP8 points R8…R13, BX, DI at the 8 activation columns and zeroes the accumulators Z0…Z7.
#define GSETUP8 \
	MOVQ   nb+0(FP), CX        \
	MOVQ   packed+8(FP), SI    \
	MOVQ   a+16(FP), R8        \
	MOVQ   aStride+24(FP), AX  \
	LEAQ   (R8)(AX*1), R9      \
	LEAQ   (R9)(AX*1), R10     \
	LEAQ   (R10)(AX*1), R11    \
	LEAQ   (R11)(AX*1), R12    \
	LEAQ   (R12)(AX*1), R13    \
	LEAQ   (R13)(AX*1), BX     \
	LEAQ   (BX)(AX*1), DI      \
	XORQ   DX, DX              \
	VPXORD Z0, Z0, Z0          \
	VPXORD Z1, Z1, Z1          \
	VPXORD Z2, Z2, Z2          \
	VPXORD Z3, Z3, Z3          \
	VPXORD Z4, Z4, Z4          \
	VPXORD Z5, Z5, Z5          \
	VPXORD Z6, Z6, Z6          \
	VPXORD Z7, Z7, Z7

// GSTORE8 writes the rows in mask of Z0…Z7 to out, out+outStride, ….
#define GSTORE8 \
	MOVQ    mask+48(FP), AX        \
	KMOVW   AX, K1                 \
	MOVQ    out+32(FP), DI         \
	MOVQ    outStride+40(FP), AX   \
	SHLQ    $2, AX                 \
	VMOVUPS Z0, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Z1, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Z2, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Z3, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Z4, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Z5, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Z6, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Z7, K1, (DI)           \
	VZEROUPPER

// func gemm8Q8SXY(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)
//
// Reference: DotQ4_0Q8_0 for each of the 8×8 row pairs (sum += (s·dw)·da per block, in block order).
TEXT ·gemm8Q8SXY(SB), NOSPLIT, $0-56
	GSETUP8

g8xyloop:
	GLOAD
	GCOLXY(R8, Z8, Z0)
	GCOLXY(R9, Z9, Z1)
	GCOLXY(R10, Z10, Z2)
	GCOLXY(R11, Z11, Z3)
	GCOLXY(R12, Z12, Z4)
	GCOLXY(R13, Z13, Z5)
	GCOLXY(BX, Z14, Z6)
	GCOLXY(DI, Z15, Z7)
	ADDQ $576, SI
	ADDQ $40, DX
	DECQ CX
	JNZ  g8xyloop
	GSTORE8
	RET

// func gemm8Q8SD(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)
//
// Reference: DotQ8_0Q8_0 / DotQ5_0Q8_0 for each of the 8×8 row pairs (sum += s·(dw·da) per block).
TEXT ·gemm8Q8SD(SB), NOSPLIT, $0-56
	GSETUP8

g8dloop:
	GLOAD
	VMOVUPS 512(SI), Z24
	GCOLD(R8, Z8, Z0)
	GCOLD(R9, Z9, Z1)
	GCOLD(R10, Z10, Z2)
	GCOLD(R11, Z11, Z3)
	GCOLD(R12, Z12, Z4)
	GCOLD(R13, Z13, Z5)
	GCOLD(BX, Z14, Z6)
	GCOLD(DI, Z15, Z7)
	ADDQ    $576, SI
	ADDQ    $40, DX
	DECQ    CX
	JNZ     g8dloop
	GSTORE8
	RET

// GSUM1 is GSUM with two dependency chains (one column alone would wait on VPDPBUSD latency).
#define GSUM1(R, T) \
	VPBROADCASTD  4(R)(DX*1), T        \
	VPXORD        Z9, Z9, Z9           \
	VPDPBUSD.BCST 8(R)(DX*1), Z16, T   \
	VPDPBUSD.BCST 12(R)(DX*1), Z17, Z9 \
	VPDPBUSD.BCST 16(R)(DX*1), Z18, T  \
	VPDPBUSD.BCST 20(R)(DX*1), Z19, Z9 \
	VPDPBUSD.BCST 24(R)(DX*1), Z20, T  \
	VPDPBUSD.BCST 28(R)(DX*1), Z21, Z9 \
	VPDPBUSD.BCST 32(R)(DX*1), Z22, T  \
	VPDPBUSD.BCST 36(R)(DX*1), Z23, Z9 \
	VPADDD        Z9, T, T             \
	VCVTDQ2PS     T, T

// func gemm1Q8SXY(nb int, packed, a *byte, out *float32, mask int)
TEXT ·gemm1Q8SXY(SB), NOSPLIT, $0-40
	MOVQ   nb+0(FP), CX
	MOVQ   packed+8(FP), SI
	MOVQ   a+16(FP), R8
	XORQ   DX, DX
	VPXORD Z0, Z0, Z0

g1xyloop:
	GLOAD
	GSUM1(R8, Z8)
	VMULPS      512(SI), Z8, Z8
	VMULPS.BCST (R8)(DX*1), Z8, Z8
	VADDPS      Z8, Z0, Z0
	ADDQ        $576, SI
	ADDQ        $40, DX
	DECQ        CX
	JNZ         g1xyloop

	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Z0, K1, (DI)
	VZEROUPPER
	RET

// func gemm1Q8SD(nb int, packed, a *byte, out *float32, mask int)
TEXT ·gemm1Q8SD(SB), NOSPLIT, $0-40
	MOVQ   nb+0(FP), CX
	MOVQ   packed+8(FP), SI
	MOVQ   a+16(FP), R8
	XORQ   DX, DX
	VPXORD Z0, Z0, Z0

g1dloop:
	GLOAD
	GSUM1(R8, Z8)
	VMOVUPS     512(SI), Z24
	VMULPS.BCST (R8)(DX*1), Z24, Z25
	VMULPS      Z25, Z8, Z8
	VADDPS      Z8, Z0, Z0
	ADDQ        $576, SI
	ADDQ        $40, DX
	DECQ        CX
	JNZ         g1dloop

	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Z0, K1, (DI)
	VZEROUPPER
	RET

// K-quant kernels. Registers: Z0…Z7 the columns' accumulators, Z8…Z15 their super-block sums (before the
// activation scale), Z16…Z23 a group's packed quants, Z24…Z31 the columns' integer group sums.

// KCOL4: T2 += float(Σ q·y of the 32-element group at DX) · sc·d (at 512(SI)).
#define KCOL4(R, T, T2) \
	VPXORD        T, T, T              \
	VPDPBUSD.BCST 4(R)(DX*1), Z16, T   \
	VPDPBUSD.BCST 8(R)(DX*1), Z17, T   \
	VPDPBUSD.BCST 12(R)(DX*1), Z18, T  \
	VPDPBUSD.BCST 16(R)(DX*1), Z19, T  \
	VPDPBUSD.BCST 20(R)(DX*1), Z20, T  \
	VPDPBUSD.BCST 24(R)(DX*1), Z21, T  \
	VPDPBUSD.BCST 28(R)(DX*1), Z22, T  \
	VPDPBUSD.BCST 32(R)(DX*1), Z23, T  \
	VCVTDQ2PS     T, T                 \
	VFMADD231PS   512(SI), T, T2

// KMIN: T2 −= Σ_j psum_j · min_j·dmin (psums at DX+4, mins in Z16…Z23).
#define KMIN(R, T2) \
	VFNMADD231PS.BCST 4(R)(DX*1), Z16, T2  \
	VFNMADD231PS.BCST 8(R)(DX*1), Z17, T2  \
	VFNMADD231PS.BCST 12(R)(DX*1), Z18, T2 \
	VFNMADD231PS.BCST 16(R)(DX*1), Z19, T2 \
	VFNMADD231PS.BCST 20(R)(DX*1), Z20, T2 \
	VFNMADD231PS.BCST 24(R)(DX*1), Z21, T2 \
	VFNMADD231PS.BCST 28(R)(DX*1), Z22, T2 \
	VFNMADD231PS.BCST 32(R)(DX*1), Z23, T2

#define KZERO2 \
	VPXORD Z8, Z8, Z8    \
	VPXORD Z9, Z9, Z9    \
	VPXORD Z10, Z10, Z10 \
	VPXORD Z11, Z11, Z11 \
	VPXORD Z12, Z12, Z12 \
	VPXORD Z13, Z13, Z13 \
	VPXORD Z14, Z14, Z14 \
	VPXORD Z15, Z15, Z15

// KFIN adds T2 · yd (yd at DX+off) into ACC for all 8 columns.
#define KFIN(off) \
	VFMADD231PS.BCST off(R8)(DX*1), Z8, Z0   \
	VFMADD231PS.BCST off(R9)(DX*1), Z9, Z1   \
	VFMADD231PS.BCST off(R10)(DX*1), Z10, Z2 \
	VFMADD231PS.BCST off(R11)(DX*1), Z11, Z3 \
	VFMADD231PS.BCST off(R12)(DX*1), Z12, Z4 \
	VFMADD231PS.BCST off(R13)(DX*1), Z13, Z5 \
	VFMADD231PS.BCST off(BX)(DX*1), Z14, Z6  \
	VFMADD231PS.BCST off(DI)(DX*1), Z15, Z7

// func gemm8K4(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)
//
// Reference: DotQ4_KQ8_K / DotQ5_KQ8_K for each of the 8×8 row pairs (Q8_KS4 activations).
TEXT ·gemm8K4(SB), NOSPLIT, $0-56
	GSETUP8

k48sb:
	KZERO2
	MOVQ $8, AX

k48g:
	GLOAD
	KCOL4(R8, Z24, Z8)
	KCOL4(R9, Z25, Z9)
	KCOL4(R10, Z26, Z10)
	KCOL4(R11, Z27, Z11)
	KCOL4(R12, Z28, Z12)
	KCOL4(R13, Z29, Z13)
	KCOL4(BX, Z30, Z14)
	KCOL4(DI, Z31, Z15)
	ADDQ $576, SI
	ADDQ $32, DX
	DECQ AX
	JNZ  k48g

	GLOAD
	KMIN(R8, Z8)
	KMIN(R9, Z9)
	KMIN(R10, Z10)
	KMIN(R11, Z11)
	KMIN(R12, Z12)
	KMIN(R13, Z13)
	KMIN(BX, Z14)
	KMIN(DI, Z15)
	KFIN(-256)
	ADDQ $512, SI
	ADDQ $36, DX
	DECQ CX
	JNZ  k48sb
	GSTORE8
	RET

// func gemm1K4(nb int, packed, a *byte, out *float32, mask int)
TEXT ·gemm1K4(SB), NOSPLIT, $0-40
	MOVQ   nb+0(FP), CX
	MOVQ   packed+8(FP), SI
	MOVQ   a+16(FP), R8
	XORQ   DX, DX
	VPXORD Z0, Z0, Z0

k41sb:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	MOVQ   $8, AX

k41g:
	GLOAD
	VPXORD        Z24, Z24, Z24
	VPXORD        Z25, Z25, Z25
	VPDPBUSD.BCST 4(R8)(DX*1), Z16, Z24
	VPDPBUSD.BCST 8(R8)(DX*1), Z17, Z25
	VPDPBUSD.BCST 12(R8)(DX*1), Z18, Z24
	VPDPBUSD.BCST 16(R8)(DX*1), Z19, Z25
	VPDPBUSD.BCST 20(R8)(DX*1), Z20, Z24
	VPDPBUSD.BCST 24(R8)(DX*1), Z21, Z25
	VPDPBUSD.BCST 28(R8)(DX*1), Z22, Z24
	VPDPBUSD.BCST 32(R8)(DX*1), Z23, Z25
	VPADDD        Z25, Z24, Z24
	VCVTDQ2PS     Z24, Z24
	VFMADD231PS   512(SI), Z24, Z8
	ADDQ          $576, SI
	ADDQ          $32, DX
	DECQ          AX
	JNZ           k41g

	GLOAD
	KMIN(R8, Z9)
	VADDPS           Z9, Z8, Z8
	VFMADD231PS.BCST -256(R8)(DX*1), Z8, Z0
	ADDQ             $512, SI
	ADDQ             $36, DX
	DECQ             CX
	JNZ              k41sb

	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Z0, K1, (DI)
	VZEROUPPER
	RET

// KCOL6: T2 += float(Σ (q−32)·y of the 16-element group at DX) · sc·d (at 256(SI)).
#define KCOL6(R, T, T2) \
	VPBROADCASTD  4(R)(DX*1), T        \
	VPDPBUSD.BCST 8(R)(DX*1), Z16, T   \
	VPDPBUSD.BCST 12(R)(DX*1), Z17, T  \
	VPDPBUSD.BCST 16(R)(DX*1), Z18, T  \
	VPDPBUSD.BCST 20(R)(DX*1), Z19, T  \
	VCVTDQ2PS     T, T                 \
	VFMADD231PS   256(SI), T, T2

#define GLOAD4 \
	VMOVDQU32 0(SI), Z16  \
	VMOVDQU32 64(SI), Z17 \
	VMOVDQU32 128(SI), Z18 \
	VMOVDQU32 192(SI), Z19

// func gemm8K6(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)
//
// Reference: DotQ6_KQ8_K for each of the 8×8 row pairs (Q8_KS6 activations).
TEXT ·gemm8K6(SB), NOSPLIT, $0-56
	GSETUP8

k68sb:
	KZERO2
	MOVQ $16, AX

k68g:
	GLOAD4
	KCOL6(R8, Z24, Z8)
	KCOL6(R9, Z25, Z9)
	KCOL6(R10, Z26, Z10)
	KCOL6(R11, Z27, Z11)
	KCOL6(R12, Z28, Z12)
	KCOL6(R13, Z29, Z13)
	KCOL6(BX, Z30, Z14)
	KCOL6(DI, Z31, Z15)
	ADDQ $320, SI
	ADDQ $20, DX
	DECQ AX
	JNZ  k68g

	KFIN(-320)
	ADDQ $4, DX
	DECQ CX
	JNZ  k68sb
	GSTORE8
	RET

// func gemm1K6(nb int, packed, a *byte, out *float32, mask int)
TEXT ·gemm1K6(SB), NOSPLIT, $0-40
	MOVQ   nb+0(FP), CX
	MOVQ   packed+8(FP), SI
	MOVQ   a+16(FP), R8
	XORQ   DX, DX
	VPXORD Z0, Z0, Z0

k61sb:
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	MOVQ   $8, AX

k61g:
	// two groups per iteration, each its own chain
	GLOAD4
	KCOL6(R8, Z24, Z8)
	ADDQ      $320, SI
	ADDQ      $20, DX
	GLOAD4
	KCOL6(R8, Z25, Z9)
	ADDQ      $320, SI
	ADDQ      $20, DX
	DECQ      AX
	JNZ       k61g

	VADDPS           Z9, Z8, Z8
	VFMADD231PS.BCST -320(R8)(DX*1), Z8, Z0
	ADDQ             $4, DX
	DECQ             CX
	JNZ              k61sb

	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Z0, K1, (DI)
	VZEROUPPER
	RET
