//go:build amd64 && !noasm

#include "textflag.h"
#include "q4row_amd64.h"
#include "zero_amd64.h"

// Batched kernels for packed groups of 16 weight rows (see gemm.go), AVX-512 VNNI on 512-bit registers,
// hand-written Plan 9 assembly. Lane r of every vector is weight row r, and each lane does exactly the float
// operations of the reference dot product for its (row, column) pair. The integer sums come from VPDPBUSD
// (packed unsigned quants × the column's broadcast signed quants: exact int32), started from the column's
// correction for the packing offset.

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

// GCOLD: ACC = fma(s, dw·da, ACC) (the repacked order); Z24 holds dw.
#define GCOLD(R, T, ACC) \
	GSUM(R, T)                      \
	VMULPS.BCST (R)(DX*1), Z24, Z25 \
	VFMADD231PS Z25, T, ACC

// PSETUP loads a packer's arguments (func(nb int, w *byte, wStride int, dst *byte, mask int)): CX blocks,
// the rows at SI (Z31: their offsets), the packed blocks at DI, the rows to pack in K7.
#define PSETUP \
	MOVQ         nb+0(FP), CX       \
	MOVQ         w+8(FP), SI        \
	MOVQ         wStride+16(FP), AX \
	MOVQ         dst+24(FP), DI     \
	MOVQ         mask+32(FP), BX    \
	KMOVW        BX, K7             \
	VPBROADCASTD AX, Z31            \
	VPMULLD      gIota<>(SB), Z31, Z31

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

// func gemm8Q8S(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)
//
// Reference: DotQ4_0Q8_0Interleaved for each of the 16×8 (row, column) pairs.
TEXT ·gemm8Q8S(SB), NOSPLIT, $0-56
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

// func gemm1Q8S(nb int, packed, a *byte, out *float32, mask int)
TEXT ·gemm1Q8S(SB), NOSPLIT, $0-40
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
	VFMADD231PS Z25, Z8, Z0
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

// GGRP adds group g of one Q8_0G column (R, block at DX) to its lane accumulator ACC: T = corr_g +
// Σ packed_g·y_g (exact), ACC = fma(T, D, ACC) with D = dw·da.
#define GGRP(R, g, W, D, T, ACC) \
	VPBROADCASTD  (4+4*g)(R)(DX*1), T    \
	VPDPBUSD.BCST (36+4*g)(R)(DX*1), W, T \
	VCVTDQ2PS     T, T                   \
	VFMADD231PS   D, T, ACC

// GCOLG adds one block of the column at R into the accumulators A0…A7; Z24 holds dw.
#define GCOLG(R, D, T0, T1, A0, A1, A2, A3, A4, A5, A6, A7) \
	VMULPS.BCST (R)(DX*1), Z24, D       \
	GGRP(R, 0, Z16, D, T0, A0)          \
	GGRP(R, 1, Z17, D, T1, A1)          \
	GGRP(R, 2, Z18, D, T0, A2)          \
	GGRP(R, 3, Z19, D, T1, A3)          \
	GGRP(R, 4, Z20, D, T0, A4)          \
	GGRP(R, 5, Z21, D, T1, A5)          \
	GGRP(R, 6, Z22, D, T0, A6)          \
	GGRP(R, 7, Z23, D, T1, A7)

// HSUM8L leaves hsum_float_8 of the lane accumulators A0…A7 (each lane a row) in A0:
// ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)).
#define HSUM8L(A0, A1, A2, A3, A4, A5, A6, A7) \
	VADDPS A4, A0, A0 \
	VADDPS A5, A1, A1 \
	VADDPS A6, A2, A2 \
	VADDPS A7, A3, A3 \
	VADDPS A2, A0, A0 \
	VADDPS A3, A1, A1 \
	VADDPS A1, A0, A0

// G2STORE reduces the two columns' eight accumulators each (Z0…Z7, Z8…Z15) and stores the rows of mask K1
// of both: the first at DI, the second AX floats on.
#define G2STORE \
	HSUM8L(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)       \
	HSUM8L(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15) \
	VMOVUPS Z0, K1, (DI)                         \
	VMOVUPS Z8, K1, (DI)(AX*4)

// func gemm2Q8G(nb int, packed, a *byte, aStride int, out *float32, outStride, mask int)
//
// Reference: DotQ8_0Q8_0 (ggml_vec_dot's eight lanes) for each of the 16×2 (row, column) pairs: lane
// accumulators Z0…Z7 for the first column, Z8…Z15 for the second.
TEXT ·gemm2Q8G(SB), NOSPLIT, $0-56
	MOVQ nb+0(FP), CX
	MOVQ packed+8(FP), SI
	MOVQ a+16(FP), R8
	MOVQ aStride+24(FP), AX
	LEAQ (R8)(AX*1), R9
	XORQ DX, DX
	ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	ZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

g2gloop:
	GLOAD
	VMOVUPS 512(SI), Z24
	GCOLG(R8, Z25, Z26, Z27, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	GCOLG(R9, Z28, Z29, Z30, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	ADDQ $576, SI
	ADDQ $68, DX
	DECQ CX
	JNZ  g2gloop

	MOVQ    mask+48(FP), AX
	KMOVW   AX, K1
	MOVQ    out+32(FP), DI
	MOVQ    outStride+40(FP), AX
	G2STORE
	VZEROUPPER
	RET

// func gemm1Q8G(nb int, packed, a *byte, out *float32, mask int)
TEXT ·gemm1Q8G(SB), NOSPLIT, $0-40
	MOVQ nb+0(FP), CX
	MOVQ packed+8(FP), SI
	MOVQ a+16(FP), R8
	XORQ DX, DX
	ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

g1gloop:
	GLOAD
	VMOVUPS 512(SI), Z24
	GCOLG(R8, Z25, Z26, Z27, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	ADDQ $576, SI
	ADDQ $68, DX
	DECQ CX
	JNZ  g1gloop

	HSUM8L(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Z0, K1, (DI)
	VZEROUPPER
	RET

// XLOAD loads the current stored Q8_0x16 block at SI (gemm_stored.go): the rows' scales as float32 in Z24,
// the 8 quant groups (unsigned) in Z16…Z23, as GLOAD and the packed scales give them.
#define XLOAD \
	VCVTPH2PS (SI), Z24     \
	VMOVDQU32 32(SI), Z16   \
	VMOVDQU32 96(SI), Z17   \
	VMOVDQU32 160(SI), Z18  \
	VMOVDQU32 224(SI), Z19  \
	VMOVDQU32 288(SI), Z20  \
	VMOVDQU32 352(SI), Z21  \
	VMOVDQU32 416(SI), Z22  \
	VMOVDQU32 480(SI), Z23

// XPFD: 16 stored Q8_0x16 blocks ahead, for the two-column kernel.
#define XPFD 8704

// XPREFETCH prefetches the stored block XPFD bytes after SI (544 bytes: nine lines).
#define XPREFETCH \
	PREFETCHT0 XPFD(SI)     \
	PREFETCHT0 XPFD+64(SI)  \
	PREFETCHT0 XPFD+128(SI) \
	PREFETCHT0 XPFD+192(SI) \
	PREFETCHT0 XPFD+256(SI) \
	PREFETCHT0 XPFD+320(SI) \
	PREFETCHT0 XPFD+384(SI) \
	PREFETCHT0 XPFD+448(SI) \
	PREFETCHT0 XPFD+512(SI)

// func gemm2Q8x(nb int, p, a *byte, aStride int, out *float32, outStride, mask int)
//
// gemm2Q8G on a stored Q8_0x16 group, the stream of blocks prefetched XPFD bytes ahead.
TEXT ·gemm2Q8x(SB), NOSPLIT, $0-56
	MOVQ nb+0(FP), CX
	MOVQ p+8(FP), SI
	MOVQ a+16(FP), R8
	MOVQ aStride+24(FP), AX
	LEAQ (R8)(AX*1), R9
	XORQ DX, DX
	ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	ZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

x2gloop:
	XPREFETCH
	XLOAD
	GCOLG(R8, Z25, Z26, Z27, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	GCOLG(R9, Z28, Z29, Z30, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	ADDQ $544, SI
	ADDQ $68, DX
	DECQ CX
	JNZ  x2gloop

	MOVQ    mask+48(FP), AX
	KMOVW   AX, K1
	MOVQ    out+32(FP), DI
	MOVQ    outStride+40(FP), AX
	G2STORE
	VZEROUPPER
	RET

// func gemm1Q8x(nb int, p, a *byte, out *float32, mask int)
//
// gemm1Q8G on a stored Q8_0x16 group: one stream, left to the hardware prefetcher (prefetching it XPFD bytes
// ahead as gemm2Q8x does cost decoding 15-20%: qwen3-0.6b Q8_0 28.6/27.2/30.7 -> 33.2/32.8/36.6 t/s).
TEXT ·gemm1Q8x(SB), NOSPLIT, $0-40
	MOVQ nb+0(FP), CX
	MOVQ p+8(FP), SI
	MOVQ a+16(FP), R8
	XORQ DX, DX
	ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

x1gloop:
	XLOAD
	GCOLG(R8, Z25, Z26, Z27, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	ADDQ $544, SI
	ADDQ $68, DX
	DECQ CX
	JNZ  x1gloop

	HSUM8L(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Z0, K1, (DI)
	VZEROUPPER
	RET

DATA gIota<>+0(SB)/8, $0x0000000100000000
DATA gIota<>+8(SB)/8, $0x0000000300000002
DATA gIota<>+16(SB)/8, $0x0000000500000004
DATA gIota<>+24(SB)/8, $0x0000000700000006
DATA gIota<>+32(SB)/8, $0x0000000900000008
DATA gIota<>+40(SB)/8, $0x0000000b0000000a
DATA gIota<>+48(SB)/8, $0x0000000d0000000c
DATA gIota<>+56(SB)/8, $0x0000000f0000000e
GLOBL gIota<>(SB), RODATA|NOPTR, $64

DATA gNib<>+0(SB)/4, $0x0f0f0f0f
GLOBL gNib<>(SB), RODATA|NOPTR, $4

#define PFD 4096

// GATHER loads dword off of the current block of every row in K7 into Z (rows Z31 bytes apart).
#define GATHER(off, Z) \
	KMOVW      K7, K1 \
	VPGATHERDD off(SI)(Z31*1), K1, Z

// func gemvQ4_0R16(nb int, w *byte, wStride int, a *byte, out *float32, mask int)
//
// Reference: DotQ4_0Q8_0Interleaved for up to 16 rows: the rows' blocks are gathered so that lane r holds
// row r (its scale word, then its 16 quant bytes as four dwords), the 8 groups of 4 nibbles are multiplied
// with the broadcast activation groups (VPDPBUSD, exact), and every lane does the reference's
// fma(s, dw·da, acc).
TEXT ·gemvQ4_0R16(SB), NOSPLIT, $0-48
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         wStride+16(FP), AX
	MOVQ         a+24(FP), DI
	MOVQ         mask+40(FP), BX
	KMOVW        BX, K7
	VPBROADCASTD AX, Z31
	VPMULLD      gIota<>(SB), Z31, Z31
	VPBROADCASTD gNib<>(SB), Z30
	VPXORD       Z0, Z0, Z0
	SHLQ         $4, AX
	LEAQ         (SI)(AX*1), R8 // the next 16 rows, prefetched 288 bytes (16·18) per block

gv4loop:
	PREFETCHT0 0(R8)
	PREFETCHT0 64(R8)
	PREFETCHT0 128(R8)
	PREFETCHT0 192(R8)
	PREFETCHT0 256(R8)
	ADDQ       $288, R8
	GATHER(0, Z1)
	GATHER(2, Z2)
	GATHER(6, Z3)
	GATHER(10, Z4)
	GATHER(14, Z5)
	VPMOVDW       Z1, Y1
	VCVTPH2PS     Y1, Z1
	Q4ROW16
	ADDQ          $18, SI
	ADDQ          $40, DI
	DECQ          CX
	JNZ           gv4loop

	MOVQ    out+32(FP), DI
	VMOVUPS Z0, K7, (DI)
	VZEROUPPER
	RET

DATA gB80<>+0(SB)/4, $0x80808080
GLOBL gB80<>(SB), RODATA|NOPTR, $4

// func dotQ8_0Q8GVNNI(nb int, w, a *byte) float32
//
// Reference: DotQ8_0Q8_0 with the activation in Q8_0G: per block the lanes start at the corrections and
// add Σ (x+128)·y (VPDPBUSD, exact); one 8-lane accumulator, hsum_float_8 at the end.
TEXT ·dotQ8_0Q8GVNNI(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	VPBROADCASTD gB80<>(SB), Y13
	VXORPS       Y0, Y0, Y0

q8gloop:
	PREFETCHT0   PFD(SI)
	MOVWLZX      0(SI), AX
	VMOVD        AX, X2
	VCVTPH2PS    X2, X2
	VMULSS       0(DI), X2, X2
	VBROADCASTSS X2, Y2
	VPXOR        2(SI), Y13, Y3
	VMOVDQU      4(DI), Y4
	VPDPBUSD     36(DI), Y3, Y4
	VCVTDQ2PS    Y4, Y4
	VFMADD231PS  Y4, Y2, Y0
	ADDQ         $34, SI
	ADDQ         $68, DI
	DECQ         CX
	JNZ          q8gloop

	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// PGATHER gathers dword off of the current block of every row in K7 into Z (zeroed first; rows Z31 bytes
// apart).
#define PGATHER(off, Z) \
	VPXORD     Z, Z, Z \
	KMOVW      K7, K1  \
	VPGATHERDD off(SI)(Z31*1), K1, Z

// PSCALES converts the rows' f16 scales (the low words of Z) to float32 at q8PackD(DI).
#define PSCALES(Z) \
	VPMOVDW   Z, Y0     \
	VCVTPH2PS Y0, Z0    \
	VMOVUPS   Z0, 512(DI)

// P40 stores the low and high nibbles of the gathered quant dword Z as groups g and g+4.
#define P40(Z, g) \
	VPANDD    Z30, Z, Z5          \
	VMOVDQU32 Z5, (g*64)(DI)      \
	VPSRLD    $4, Z, Z            \
	VPANDD    Z30, Z, Z           \
	VMOVDQU32 Z, ((g+4)*64)(DI)

// func packQ4_0G(nb int, w *byte, wStride int, dst *byte, mask int)
//
// packQ4_0 with gathers: lane r of each packed vector is loaded straight from row r.
TEXT ·packQ4_0G(SB), NOSPLIT, $0-40
	PSETUP
	VPBROADCASTD gNib<>(SB), Z30

p40loop:
	PGATHER(0, Z1)
	PGATHER(2, Z2)
	PGATHER(6, Z3)
	PGATHER(10, Z4)
	PGATHER(14, Z6)
	PSCALES(Z1)
	P40(Z2, 0)
	P40(Z3, 1)
	P40(Z4, 2)
	P40(Z6, 3)
	ADDQ $18, SI
	ADDQ $576, DI
	DECQ CX
	JNZ  p40loop
	VZEROUPPER
	RET

DATA gSign<>+0(SB)/4, $0x80808080
GLOBL gSign<>(SB), RODATA|NOPTR, $4

// P80 stores the gathered quant dword Z, its bytes offset to unsigned, as group g.
#define P80(Z, g) \
	VPXORD    Z30, Z, Z \
	VMOVDQU32 Z, (g*64)(DI)

// func packQ8_0G(nb int, w *byte, wStride int, dst *byte, mask int)
//
// packQ8_0 with gathers.
TEXT ·packQ8_0G(SB), NOSPLIT, $0-40
	PSETUP
	VPBROADCASTD gSign<>(SB), Z30

p80loop:
	PGATHER(0, Z1)
	PSCALES(Z1)
	PGATHER(2, Z2)
	PGATHER(6, Z3)
	PGATHER(10, Z4)
	PGATHER(14, Z5)
	PGATHER(18, Z6)
	PGATHER(22, Z7)
	PGATHER(26, Z8)
	PGATHER(30, Z9)
	P80(Z2, 0)
	P80(Z3, 1)
	P80(Z4, 2)
	P80(Z5, 3)
	P80(Z6, 4)
	P80(Z7, 5)
	P80(Z8, 6)
	P80(Z9, 7)
	ADDQ $34, SI
	ADDQ $576, DI
	DECQ CX
	JNZ  p80loop
	VZEROUPPER
	RET
