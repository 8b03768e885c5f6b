//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"
#include "mxfp4_amd64.h"

// Kernels on stored MXFP4x16 groups (gemm_stored_mx.go), AVX-512 VNNI, against Q8_0S activation rows (d float32
// at 0, −8·Σa at 4, the quants at 8). Lane r of every vector is row r.

DATA mxxNib<>+0(SB)/4, $0x0f0f0f0f
GLOBL mxxNib<>(SB), RODATA|NOPTR, $4

// MXXCONSTS loads Z30 = 0x0f bytes, Z29 = kMXU, Z28 = 1, Z27 = 2^-128's bits.
#define MXXCONSTS \
	VPBROADCASTD    mxxNib<>(SB), Z30 \
	VBROADCASTI32X4 kMXU<>(SB), Z29   \
	VPBROADCASTD    kMXOne<>(SB), Z28 \
	VPBROADCASTD    kMXSub<>(SB), Z27

// MXXSCALE leaves in Z2 the rows' e8m0Half(e) for the block at SI, built from the exponents' bits as
// e8m0Half does: (e−1)<<23, or 2^-128<<e below 2. Clobbers Z1, Z3, K2.
#define MXXSCALE \
	VPMOVZXBD (SI), Z1         \
	VPSUBD    Z28, Z1, Z2      \
	VPSLLD    $23, Z2, Z2      \
	VPSLLVD   Z1, Z27, Z3      \
	VPCMPGTD  Z28, Z1, K2      \
	VPBLENDMD Z2, Z3, K2, Z2

// MXXQ looks up stored dword t of the block at SI as kvaluesMXFP4+12: the low nibbles into LO, the high into HI.
#define MXXQ(t, LO, HI) \
	VMOVDQU32 const_mxxQs+64*t(SI), HI \
	VPANDD    Z30, HI, LO              \
	VPSHUFB   LO, Z29, LO              \
	VPSRLD    $4, HI, HI               \
	VPANDD    Z30, HI, HI              \
	VPSHUFB   HI, Z29, HI

// MXXCOL adds the block of the column at R (block offset DX) to the rows' running sums ACC, with the looked-up
// quants in Z8…Z15 and e8m0Half(e) in Z2: S = −12·Σa + Σ (kvalue+12)·a (two chains, S and T), then
// ACC += float32(yd·e)·float32(S), each step rounded.
#define MXXCOL(R, S, T, D, ACC) \
	VPBROADCASTD  4(R)(DX*1), S        \
	VPSRAD        $1, S, T             \
	VPADDD        T, S, S              \
	VPXORD        T, T, T              \
	VPDPBUSD.BCST 8(R)(DX*1), Z8, S    \
	VPDPBUSD.BCST 24(R)(DX*1), Z9, T   \
	VPDPBUSD.BCST 12(R)(DX*1), Z10, S  \
	VPDPBUSD.BCST 28(R)(DX*1), Z11, T  \
	VPDPBUSD.BCST 16(R)(DX*1), Z12, S  \
	VPDPBUSD.BCST 32(R)(DX*1), Z13, T  \
	VPDPBUSD.BCST 20(R)(DX*1), Z14, S  \
	VPDPBUSD.BCST 36(R)(DX*1), Z15, T  \
	VPADDD        T, S, S              \
	VCVTDQ2PS     S, S                 \
	VMULPS.BCST   (R)(DX*1), Z2, D     \
	VMULPS        D, S, S              \
	VADDPS        S, ACC, ACC

// MXXBLOCK looks up the block at SI: its scales into Z2, its quants into Z8…Z15.
#define MXXBLOCK \
	MXXSCALE          \
	MXXQ(0, Z8, Z9)   \
	MXXQ(1, Z10, Z11) \
	MXXQ(2, Z12, Z13) \
	MXXQ(3, Z14, Z15)

// func gemv1MXx(nb int, p, a *byte, out *float32, mask int)
//
// Reference: DotMXFP4Q8_0 for the 16 rows of one stored group against one Q8_0S column; the rows of mask are
// written.
TEXT ·gemv1MXx(SB), NOSPLIT, $0-40
	MOVQ   nb+0(FP), CX
	MOVQ   p+8(FP), SI
	MOVQ   a+16(FP), R8
	XORQ   DX, DX
	MXXCONSTS
	VPXORD Z0, Z0, Z0

mx1loop:
	MXXBLOCK
	MXXCOL(R8, Z4, Z5, Z6, Z0)
	ADDQ   $const_mxxBlock, SI
	ADDQ   $40, DX
	DECQ   CX
	JNZ    mx1loop

	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Z0, K1, (DI)
	VZEROUPPER
	RET

// func gemm4MXx(nb int, p, a *byte, aStride int, out *float32, outStride, mask int)
//
// gemv1MXx for four columns aStride bytes apart, each block looked up once.
TEXT ·gemm4MXx(SB), NOSPLIT, $0-56
	MOVQ   nb+0(FP), CX
	MOVQ   p+8(FP), SI
	MOVQ   a+16(FP), R8
	MOVQ   aStride+24(FP), AX
	LEAQ   (R8)(AX*1), R9
	LEAQ   (R9)(AX*1), R10
	LEAQ   (R10)(AX*1), R11
	XORQ   DX, DX
	MXXCONSTS
	VPXORD Z0, Z0, Z0
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18

mx4loop:
	MXXBLOCK
	MXXCOL(R8, Z4, Z5, Z6, Z0)
	MXXCOL(R9, Z19, Z20, Z21, Z16)
	MXXCOL(R10, Z22, Z23, Z24, Z17)
	MXXCOL(R11, Z25, Z26, Z7, Z18)
	ADDQ   $const_mxxBlock, SI
	ADDQ   $40, DX
	DECQ   CX
	JNZ    mx4loop

	MOVQ    mask+48(FP), AX
	KMOVW   AX, K1
	MOVQ    out+32(FP), DI
	MOVQ    outStride+40(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, K1, (DI)
	ADDQ    AX, DI
	VMOVUPS Z16, K1, (DI)
	ADDQ    AX, DI
	VMOVUPS Z17, K1, (DI)
	ADDQ    AX, DI
	VMOVUPS Z18, K1, (DI)
	VZEROUPPER
	RET
