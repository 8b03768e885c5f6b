//go:build amd64 && !noasm

#include "textflag.h"

// Batched kernels for packed groups of 8 weight rows (see gemm.go), AVX-512 VNNI on 256-bit registers,
// hand-written Plan 9 assembly. Lane r of every vector is weight row r. Per block and activation column:
// start from the column's −off·Σq, add the 8 groups of 4 products with VPDPBUSD (packed unsigned quants ×
// the column's broadcast signed quants: exact int32), convert, scale and add — in the reference's order.

// GLOAD loads the 8 packed quant groups of the current block into Y16…Y23.
#define GLOAD \
	VMOVDQU32 0(SI), Y16   \
	VMOVDQU32 32(SI), Y17  \
	VMOVDQU32 64(SI), Y18  \
	VMOVDQU32 96(SI), Y19  \
	VMOVDQU32 128(SI), Y20 \
	VMOVDQU32 160(SI), Y21 \
	VMOVDQU32 192(SI), Y22 \
	VMOVDQU32 224(SI), Y23

// GSUM leaves the exact block sums Σ (q−off)·y of the column at R (block at offset DX) in T.
#define GSUM(R, T) \
	VPBROADCASTD  4(R)(DX*1), T        \
	VPDPBUSD.BCST 8(R)(DX*1), Y16, T   \
	VPDPBUSD.BCST 12(R)(DX*1), Y17, T  \
	VPDPBUSD.BCST 16(R)(DX*1), Y18, T  \
	VPDPBUSD.BCST 20(R)(DX*1), Y19, T  \
	VPDPBUSD.BCST 24(R)(DX*1), Y20, T  \
	VPDPBUSD.BCST 28(R)(DX*1), Y21, T  \
	VPDPBUSD.BCST 32(R)(DX*1), Y22, T  \
	VPDPBUSD.BCST 36(R)(DX*1), Y23, T  \
	VCVTDQ2PS     T, T

// GCOLXY: ACC += (s·dw)·da.
#define GCOLXY(R, T, ACC) \
	GSUM(R, T)                    \
	VMULPS      256(SI), T, T     \
	VMULPS.BCST (R)(DX*1), T, T   \
	VADDPS      T, ACC, ACC

// GCOLD: ACC += s·(dw·da); Y24 holds dw.
#define GCOLD(R, T, ACC) \
	GSUM(R, T)                    \
	VMULPS.BCST (R)(DX*1), Y24, Y25 \
	VMULPS      Y25, T, T         \
	VADDPS      T, ACC, ACC

// GSETUP8 points R8…R13, BX, DI at the 8 activation columns and zeroes the accumulators Y0…Y7.
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
	VXORPS Y0, Y0, Y0          \
	VXORPS Y1, Y1, Y1          \
	VXORPS Y2, Y2, Y2          \
	VXORPS Y3, Y3, Y3          \
	VXORPS Y4, Y4, Y4          \
	VXORPS Y5, Y5, Y5          \
	VXORPS Y6, Y6, Y6          \
	VXORPS Y7, Y7, Y7

// GSTORE8 writes the rows in mask of Y0…Y7 to out, out+outStride, ….
#define GSTORE8 \
	MOVQ    mask+48(FP), AX        \
	KMOVW   AX, K1                 \
	MOVQ    out+32(FP), DI         \
	MOVQ    outStride+40(FP), AX   \
	SHLQ    $2, AX                 \
	VMOVUPS Y0, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Y1, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Y2, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Y3, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Y4, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Y5, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Y6, K1, (DI)           \
	ADDQ    AX, DI                 \
	VMOVUPS Y7, K1, (DI)           \
	VZEROUPPER

// func gemm8Q8SXY(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)
//
// Reference: DotQ4_0Q8_0 for each of the 8×8 row pairs (sum += (s·dw)·da per block, in block order).
TEXT ·gemm8Q8SXY(SB), NOSPLIT, $0-56
	GSETUP8

g8xyloop:
	GLOAD
	GCOLXY(R8, Y8, Y0)
	GCOLXY(R9, Y9, Y1)
	GCOLXY(R10, Y10, Y2)
	GCOLXY(R11, Y11, Y3)
	GCOLXY(R12, Y12, Y4)
	GCOLXY(R13, Y13, Y5)
	GCOLXY(BX, Y14, Y6)
	GCOLXY(DI, Y15, Y7)
	ADDQ $288, SI
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
	VMOVUPS 256(SI), Y24
	GCOLD(R8, Y8, Y0)
	GCOLD(R9, Y9, Y1)
	GCOLD(R10, Y10, Y2)
	GCOLD(R11, Y11, Y3)
	GCOLD(R12, Y12, Y4)
	GCOLD(R13, Y13, Y5)
	GCOLD(BX, Y14, Y6)
	GCOLD(DI, Y15, Y7)
	ADDQ    $288, SI
	ADDQ    $40, DX
	DECQ    CX
	JNZ     g8dloop
	GSTORE8
	RET

// GSUM1 is GSUM with two dependency chains (one column alone would wait on VPDPBUSD latency).
#define GSUM1(R, T) \
	VPBROADCASTD  4(R)(DX*1), T        \
	VPXORD        Y9, Y9, Y9           \
	VPDPBUSD.BCST 8(R)(DX*1), Y16, T   \
	VPDPBUSD.BCST 12(R)(DX*1), Y17, Y9 \
	VPDPBUSD.BCST 16(R)(DX*1), Y18, T  \
	VPDPBUSD.BCST 20(R)(DX*1), Y19, Y9 \
	VPDPBUSD.BCST 24(R)(DX*1), Y20, T  \
	VPDPBUSD.BCST 28(R)(DX*1), Y21, Y9 \
	VPDPBUSD.BCST 32(R)(DX*1), Y22, T  \
	VPDPBUSD.BCST 36(R)(DX*1), Y23, Y9 \
	VPADDD        Y9, T, T             \
	VCVTDQ2PS     T, T

// func gemm1Q8SXY(nb int, packed, a *byte, out *float32, mask int)
TEXT ·gemm1Q8SXY(SB), NOSPLIT, $0-40
	MOVQ   nb+0(FP), CX
	MOVQ   packed+8(FP), SI
	MOVQ   a+16(FP), R8
	XORQ   DX, DX
	VXORPS Y0, Y0, Y0

g1xyloop:
	GLOAD
	GSUM1(R8, Y8)
	VMULPS      256(SI), Y8, Y8
	VMULPS.BCST (R8)(DX*1), Y8, Y8
	VADDPS      Y8, Y0, Y0
	ADDQ        $288, SI
	ADDQ        $40, DX
	DECQ        CX
	JNZ         g1xyloop

	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Y0, K1, (DI)
	VZEROUPPER
	RET

// func gemm1Q8SD(nb int, packed, a *byte, out *float32, mask int)
TEXT ·gemm1Q8SD(SB), NOSPLIT, $0-40
	MOVQ   nb+0(FP), CX
	MOVQ   packed+8(FP), SI
	MOVQ   a+16(FP), R8
	XORQ   DX, DX
	VXORPS Y0, Y0, Y0

g1dloop:
	GLOAD
	GSUM1(R8, Y8)
	VMOVUPS     256(SI), Y24
	VMULPS.BCST (R8)(DX*1), Y24, Y25
	VMULPS      Y25, Y8, Y8
	VADDPS      Y8, Y0, Y0
	ADDQ        $288, SI
	ADDQ        $40, DX
	DECQ        CX
	JNZ         g1dloop

	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Y0, K1, (DI)
	VZEROUPPER
	RET
