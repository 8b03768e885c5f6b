//go:build amd64 && !noasm

#include "textflag.h"
#include "dot_amd64.h"
#include "bf16_amd64.h"
#include "zero_amd64.h"

// The F16 Gemm's kernel (gemm_float.go), AVX-512F: accumulator (r, c) is lane l of DotF16F16Tiled's
// l[i%16] = fma(w_i, a_i, l[i%16]) for weight row r and activation row c, over the chunks of 16 in order; each
// is reduced as _mm512_reduce_add_ps (Reduce16).

// RED16 leaves Reduce16 of the 16 lanes of Z (Y, X: its low halves) in X; clobbers X16 and Y16:
// t_i = l_i + l_{i+8}; u_i = t_i + t_{i+4}; (u0 + u2) + (u1 + u3).
#define RED16(Z, Y, X) \
	VEXTRACTF64X4 $1, Z, Y16 \
	VADDPS        Y16, Y, Y  \
	VEXTRACTF32X4 $1, Y, X16 \
	VADDPS        X16, X, X  \
	VMOVHLPS      X, X, X16  \
	VADDPS        X16, X, X  \
	VMOVSHDUP     X, X16     \
	VADDSS        X16, X, X

// ROW4 multiplies the four weight chunks Z16…Z19 with activation chunk A into accumulators Z(4c)…Z(4c+3).
#define ROW4(A, C0, C1, C2, C3) \
	VFMADD231PS A, Z16, C0 \
	VFMADD231PS A, Z17, C1 \
	VFMADD231PS A, Z18, C2 \
	VFMADD231PS A, Z19, C3

// WLOAD converts the current chunk of the four weight rows (SI, R9 bytes apart; R14 = 3·R9) into Z16…Z19.
#define WLOAD \
	VCVTPH2PS (SI), Z16        \
	VCVTPH2PS (SI)(R9*1), Z17  \
	VCVTPH2PS (SI)(R9*2), Z18  \
	VCVTPH2PS (SI)(R14*1), Z19

// func gemm4F16T(n int, w *byte, wStride int, a *byte, aStride, cols int, out *float32, outStride int)
TEXT ·gemm4F16T(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), BX
	MOVQ w+8(FP), R8
	MOVQ wStride+16(FP), R9
	MOVQ a+24(FP), R10
	MOVQ aStride+32(FP), R11
	MOVQ cols+40(FP), R12
	MOVQ out+48(FP), DI
	MOVQ outStride+56(FP), R13
	SHLQ $2, R13             // bytes between output columns
	LEAQ (R9)(R9*2), R14     // 3 weight rows
	LEAQ (R11)(R11*2), R15   // 3 activation rows
	LEAQ (R13)(R13*2), AX    // 3 output columns
	SHRQ $4, BX              // chunks of 16

f4cols:
	CMPQ   R12, $4
	JLT    f1col
	ZERO16
	MOVQ   R8, SI
	MOVQ   R10, DX
	MOVQ   BX, CX

f4k:
	WLOAD
	VMOVUPS (DX), Z20
	VMOVUPS (DX)(R11*1), Z21
	VMOVUPS (DX)(R11*2), Z22
	VMOVUPS (DX)(R15*1), Z23
	ROW4(Z20, Z0, Z1, Z2, Z3)
	ROW4(Z21, Z4, Z5, Z6, Z7)
	ROW4(Z22, Z8, Z9, Z10, Z11)
	ROW4(Z23, Z12, Z13, Z14, Z15)
	ADDQ    $32, SI
	ADDQ    $64, DX
	DECQ    CX
	JNZ     f4k

	RED16(Z0, Y0, X0)
	VMOVSS X0, 0(DI)
	RED16(Z1, Y1, X1)
	VMOVSS X1, 4(DI)
	RED16(Z2, Y2, X2)
	VMOVSS X2, 8(DI)
	RED16(Z3, Y3, X3)
	VMOVSS X3, 12(DI)
	RED16(Z4, Y4, X4)
	VMOVSS X4, 0(DI)(R13*1)
	RED16(Z5, Y5, X5)
	VMOVSS X5, 4(DI)(R13*1)
	RED16(Z6, Y6, X6)
	VMOVSS X6, 8(DI)(R13*1)
	RED16(Z7, Y7, X7)
	VMOVSS X7, 12(DI)(R13*1)
	RED16(Z8, Y8, X8)
	VMOVSS X8, 0(DI)(R13*2)
	RED16(Z9, Y9, X9)
	VMOVSS X9, 4(DI)(R13*2)
	RED16(Z10, Y10, X10)
	VMOVSS X10, 8(DI)(R13*2)
	RED16(Z11, Y11, X11)
	VMOVSS X11, 12(DI)(R13*2)
	RED16(Z12, Y12, X12)
	VMOVSS X12, 0(DI)(AX*1)
	RED16(Z13, Y13, X13)
	VMOVSS X13, 4(DI)(AX*1)
	RED16(Z14, Y14, X14)
	VMOVSS X14, 8(DI)(AX*1)
	RED16(Z15, Y15, X15)
	VMOVSS X15, 12(DI)(AX*1)
	LEAQ (R10)(R11*4), R10
	LEAQ (DI)(R13*4), DI
	SUBQ $4, R12
	JMP  f4cols

f1col:
	TESTQ  R12, R12
	JZ     fdone
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	MOVQ   R8, SI
	MOVQ   R10, DX
	MOVQ   BX, CX

f1k:
	WLOAD
	VMOVUPS (DX), Z20
	ROW4(Z20, Z0, Z1, Z2, Z3)
	ADDQ    $32, SI
	ADDQ    $64, DX
	DECQ    CX
	JNZ     f1k

	RED16(Z0, Y0, X0)
	VMOVSS X0, 0(DI)
	RED16(Z1, Y1, X1)
	VMOVSS X1, 4(DI)
	RED16(Z2, Y2, X2)
	VMOVSS X2, 8(DI)
	RED16(Z3, Y3, X3)
	VMOVSS X3, 12(DI)
	ADDQ R11, R10
	ADDQ R13, DI
	DECQ R12
	JMP  f1col

fdone:
	VZEROUPPER
	RET

// func dotF16TA(n int, w, a *byte) float32
//
// DotF16F16Tiled of one F16 weight row with one activation row in the F16 Gemm's layout (float32), n a
// positive multiple of 16: one row streamed at a time, for few columns (decoding).
TEXT ·dotF16TA(SB), NOSPLIT, $0-28
	MOVQ   n+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	SHRQ   $4, CX
	VPXORD Z0, Z0, Z0

fdloop:
	VCVTPH2PS   (SI), Z1
	VFMADD231PS (DI), Z1, Z0
	ADDQ        $32, SI
	ADDQ        $64, DI
	DECQ        CX
	JNZ         fdloop
	RED16(Z0, Y0, X0)
	VMOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// The BF16 Gemm's kernel (gemm_float.go), AVX-512F: DotBF16BF16's vector part for a tile of rows × columns,
// VDPBF16PS emulated as in dotbf_amd64.s (a lane takes element 2j+1 of its 32-element step, then element
// 2j, each exact product added with one rounding: a fused multiply-add; denormal bf16 inputs taken as zero
// and each denormal sum flushed to a zero of its sign, by comparing exponent bits with zero). Per pair, set 1
// takes the first 32 elements of every 64 and set 2 the next 32. Constants: Z29 0x8000 in each word (bf16
// sign), Z30 0x7f80 in each word (bf16 exponent), Z31 0xffff0000.

DATA gBFHi<>+0(SB)/4, $0xffff0000
GLOBL gBFHi<>(SB), RODATA|NOPTR, $4
DATA gBFSign16<>+0(SB)/4, $0x80008000
GLOBL gBFSign16<>(SB), RODATA|NOPTR, $4
DATA gBFExp16<>+0(SB)/4, $0x7f807f80
GLOBL gBFExp16<>(SB), RODATA|NOPTR, $4
DATA gBFSign32<>+0(SB)/4, $0x80000000
GLOBL gBFSign32<>(SB), RODATA|NOPTR, $4
DATA gBFExp32<>+0(SB)/4, $0x7f800000
GLOBL gBFExp32<>(SB), RODATA|NOPTR, $4
DATA gBFAbs32<>+0(SB)/4, $0x7fffffff
GLOBL gBFAbs32<>(SB), RODATA|NOPTR, $4
DATA gBFMinNorm<>+0(SB)/4, $0x00800000
GLOBL gBFMinNorm<>(SB), RODATA|NOPTR, $4

// BFSPLIT splits the 32 bf16 at ADDR into the floats of its odd elements (O) and its even ones (E), each
// denormal a zero of its sign.
#define BFSPLIT(ADDR, O, E) \
	VMOVDQU32 ADDR, E        \
	VPTESTNMW Z30, E, K1     \
	VPANDD    Z29, E, O      \
	VMOVDQU16 O, K1, E       \
	VPANDD    Z31, E, O      \
	VPSLLD    $16, E, E

// BFW4 splits the 32 elements at off of the four weight rows (SI, R9 bytes apart; R14 = 3·R9) into Z16…Z23.
#define BFW4(off) \
	BFSPLIT(off(SI), Z16, Z17)        \
	BFSPLIT(off(SI)(R9*1), Z18, Z19)  \
	BFSPLIT(off(SI)(R9*2), Z20, Z21)  \
	BFSPLIT(off(SI)(R14*1), Z22, Z23)

// BFMA adds W·A into C as one step of VDPBF16PS: a fused multiply-add, then a denormal lane set to a zero of
// its sign, and a lane at ±2^-126 marked in K4 (the FMA may have rounded up to it where the instruction,
// rounding to 24 bits, stays under and flushes, as in dotbf_amd64.s; the caller takes the reference).
#define BFMA(A, W, C) \
	VFMADD231PS    A, W, C                 \
	VPTESTNMD.BCST gBFExp32<>(SB), C, K2   \
	VPANDD.BCST    gBFSign32<>(SB), C, K2, C \
	VPANDD.BCST    gBFAbs32<>(SB), C, Z28  \
	VPCMPEQD.BCST  gBFMinNorm<>(SB), Z28, K3 \
	KORW           K3, K4, K4

// BFPAIR adds the odd (AO) and even (AE) activation floats into the four rows' accumulators C0…C3.
#define BFPAIR(AO, AE, C0, C1, C2, C3) \
	BFMA(AO, Z16, C0) \
	BFMA(AE, Z17, C0) \
	BFMA(AO, Z18, C1) \
	BFMA(AE, Z19, C1) \
	BFMA(AO, Z20, C2) \
	BFMA(AE, Z21, C2) \
	BFMA(AO, Z22, C3) \
	BFMA(AE, Z23, C3)

// BFSUM writes float64(Reduce16(S1)) + float64(Reduce16(S2)) (S1, S2 with their Y and X halves) at dst;
// clobbers S1, S2, X16, Y16.
#define BFSUM(S1, Y1, X1, S2, Y2, X2) \
	RED16(S1, Y1, X1)      \
	RED16(S2, Y2, X2)      \
	VCVTSS2SD X1, X1, X1   \
	VCVTSS2SD X2, X2, X2   \
	VADDSD    X2, X1, X1

// BFSTORE4 writes the sums of column 0 (sets Z0…Z3 and Z8…Z11) at DI…DI+24; BFSTORE8 also those of column 1
// (Z4…Z7 and Z12…Z15) at DI+32…DI+56.
#define BFSTORE4 \
	BFSUM(Z0, Y0, X0, Z8, Y8, X8)    \
	MOVSD X0, 0(DI)                  \
	BFSUM(Z1, Y1, X1, Z9, Y9, X9)    \
	MOVSD X1, 8(DI)                  \
	BFSUM(Z2, Y2, X2, Z10, Y10, X10) \
	MOVSD X2, 16(DI)                 \
	BFSUM(Z3, Y3, X3, Z11, Y11, X11) \
	MOVSD X3, 24(DI)

#define BFSTORE8 \
	BFSTORE4                         \
	BFSUM(Z4, Y4, X4, Z12, Y12, X12) \
	MOVSD X4, 32(DI)                 \
	BFSUM(Z5, Y5, X5, Z13, Y13, X13) \
	MOVSD X5, 40(DI)                 \
	BFSUM(Z6, Y6, X6, Z14, Y14, X14) \
	MOVSD X6, 48(DI)                 \
	BFSUM(Z7, Y7, X7, Z15, Y15, X15) \
	MOVSD X7, 56(DI)

// func gemm4BF16(steps int, w *byte, wStride int, a *byte, aStride, cols int, sums *float64) (exact bool)
//
// sums[4c + r] = float64(Reduce16(set 1)) + float64(Reduce16(set 2)) of DotBF16BF16's first 64·steps
// elements (steps positive) for weight row r < 4 (bf16 at w + r·wStride bytes) and activation row c < cols
// (bf16 at a + c·aStride bytes): two columns at a time, then one.
TEXT ·gemm4BF16(SB), NOSPLIT, $0-57
	MOVQ         steps+0(FP), BX
	MOVQ         w+8(FP), R8
	MOVQ         wStride+16(FP), R9
	MOVQ         a+24(FP), R10
	MOVQ         aStride+32(FP), R11
	MOVQ         cols+40(FP), R12
	MOVQ         sums+48(FP), DI
	LEAQ         (R9)(R9*2), R14
	VPBROADCASTD gBFHi<>(SB), Z31
	VPBROADCASTD gBFExp16<>(SB), Z30
	VPBROADCASTD gBFSign16<>(SB), Z29
	KXORW        K4, K4, K4

b2cols:
	CMPQ   R12, $2
	JLT    b1col
	ZERO16
	MOVQ   R8, SI
	MOVQ   R10, DX
	MOVQ   BX, CX

b2k:
	// set 1: Z0…Z3 (column 0), Z4…Z7 (column 1)
	BFW4(0)
	BFSPLIT(0(DX), Z24, Z25)
	BFSPLIT(0(DX)(R11*1), Z26, Z27)
	BFPAIR(Z24, Z25, Z0, Z1, Z2, Z3)
	BFPAIR(Z26, Z27, Z4, Z5, Z6, Z7)
	// set 2: Z8…Z11, Z12…Z15
	BFW4(64)
	BFSPLIT(64(DX), Z24, Z25)
	BFSPLIT(64(DX)(R11*1), Z26, Z27)
	BFPAIR(Z24, Z25, Z8, Z9, Z10, Z11)
	BFPAIR(Z26, Z27, Z12, Z13, Z14, Z15)
	ADDQ $128, SI
	ADDQ $128, DX
	DECQ CX
	JNZ  b2k

	BFSTORE8
	LEAQ  (R10)(R11*2), R10
	ADDQ  $64, DI
	SUBQ  $2, R12
	JMP   b2cols

b1col:
	TESTQ  R12, R12
	JZ     bdone
	ZERO8(Z0, Z1, Z2, Z3, Z8, Z9, Z10, Z11)
	MOVQ   R8, SI
	MOVQ   R10, DX
	MOVQ   BX, CX

b1k:
	BFW4(0)
	BFSPLIT(0(DX), Z24, Z25)
	BFPAIR(Z24, Z25, Z0, Z1, Z2, Z3)
	BFW4(64)
	BFSPLIT(64(DX), Z24, Z25)
	BFPAIR(Z24, Z25, Z8, Z9, Z10, Z11)
	ADDQ $128, SI
	ADDQ $128, DX
	DECQ CX
	JNZ  b1k

	BFSTORE4
	ADDQ  R11, R10
	ADDQ  $32, DI
	DECQ  R12
	JMP   b1col

bdone:
	KORTESTW K4, K4
	SETEQ    exact+56(FP)
	VZEROUPPER
	RET

// The F16 Gemm's kernels for CPUs with AVX2, FMA and F16C but not AVX-512: a 16-lane accumulator is two
// 8-float registers (lanes 0…7, 8…15), which changes nothing in any lane's operations.

// RED16Y leaves Reduce16 of the lanes LO (0…7) and HI (8…15) in X0; clobbers Y0, X1 and X2.
#define RED16Y(LO, HI) \
	VADDPS HI, LO, Y0 \
	HSUM8

// func gemm2F16TAVX2(n int, w *byte, wStride int, a *byte, aStride, cols int, out *float32, outStride int)
//
// gemm4F16T for two weight rows: 2 × 2 tiles (eight accumulator registers, the two rows' chunks and the two
// columns' chunks in the other eight), then the last column alone.
TEXT ·gemm2F16TAVX2(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), BX
	MOVQ w+8(FP), R8
	MOVQ wStride+16(FP), R9
	MOVQ a+24(FP), R10
	MOVQ aStride+32(FP), R11
	MOVQ cols+40(FP), R12
	MOVQ out+48(FP), DI
	MOVQ outStride+56(FP), R13
	SHLQ $2, R13
	SHRQ $4, BX

h2cols:
	CMPQ   R12, $2
	JLT    h1col
	ZERO8Y(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	MOVQ   R8, SI
	MOVQ   R10, DX
	MOVQ   BX, CX

h2k:
	VCVTPH2PS   (SI), Y8
	VCVTPH2PS   16(SI), Y9
	VCVTPH2PS   (SI)(R9*1), Y10
	VCVTPH2PS   16(SI)(R9*1), Y11
	VMOVUPS     (DX), Y12
	VMOVUPS     32(DX), Y13
	VMOVUPS     (DX)(R11*1), Y14
	VMOVUPS     32(DX)(R11*1), Y15
	VFMADD231PS Y12, Y8, Y0
	VFMADD231PS Y13, Y9, Y1
	VFMADD231PS Y12, Y10, Y2
	VFMADD231PS Y13, Y11, Y3
	VFMADD231PS Y14, Y8, Y4
	VFMADD231PS Y15, Y9, Y5
	VFMADD231PS Y14, Y10, Y6
	VFMADD231PS Y15, Y11, Y7
	ADDQ        $32, SI
	ADDQ        $64, DX
	DECQ        CX
	JNZ         h2k

	// (row, column) pairs: Y0:Y1 (0, 0), Y2:Y3 (1, 0), Y4:Y5 (0, 1), Y6:Y7 (1, 1)
	VMOVAPS Y2, Y8
	VMOVAPS Y3, Y9
	VMOVAPS Y4, Y10
	VMOVAPS Y5, Y11
	VMOVAPS Y6, Y12
	VMOVAPS Y7, Y13
	RED16Y(Y0, Y1)
	VMOVSS  X0, 0(DI)
	RED16Y(Y8, Y9)
	VMOVSS  X0, 4(DI)
	RED16Y(Y10, Y11)
	VMOVSS  X0, 0(DI)(R13*1)
	RED16Y(Y12, Y13)
	VMOVSS  X0, 4(DI)(R13*1)
	LEAQ    (R10)(R11*2), R10
	LEAQ    (DI)(R13*2), DI
	SUBQ    $2, R12
	JMP     h2cols

h1col:
	TESTQ  R12, R12
	JZ     hdone
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ   R8, SI
	MOVQ   R10, DX
	MOVQ   BX, CX

h1k:
	VCVTPH2PS   (SI), Y8
	VCVTPH2PS   16(SI), Y9
	VCVTPH2PS   (SI)(R9*1), Y10
	VCVTPH2PS   16(SI)(R9*1), Y11
	VMOVUPS     (DX), Y12
	VMOVUPS     32(DX), Y13
	VFMADD231PS Y12, Y8, Y0
	VFMADD231PS Y13, Y9, Y1
	VFMADD231PS Y12, Y10, Y2
	VFMADD231PS Y13, Y11, Y3
	ADDQ        $32, SI
	ADDQ        $64, DX
	DECQ        CX
	JNZ         h1k

	VMOVAPS Y2, Y8
	VMOVAPS Y3, Y9
	RED16Y(Y0, Y1)
	VMOVSS  X0, 0(DI)
	RED16Y(Y8, Y9)
	VMOVSS  X0, 4(DI)
	ADDQ    R11, R10
	ADDQ    R13, DI
	DECQ    R12
	JMP     h1col

hdone:
	VZEROUPPER
	RET

// func dotF16TAAVX2(n int, w, a *byte) float32
//
// dotF16TA with AVX2.
TEXT ·dotF16TAAVX2(SB), NOSPLIT, $0-28
	MOVQ   n+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	SHRQ   $4, CX
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

hdloop:
	VCVTPH2PS   (SI), Y4
	VCVTPH2PS   16(SI), Y5
	VFMADD231PS (DI), Y4, Y2
	VFMADD231PS 32(DI), Y5, Y3
	ADDQ        $32, SI
	ADDQ        $64, DI
	DECQ        CX
	JNZ         hdloop
	RED16Y(Y2, Y3)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func gemm4BF16BF16(steps int, w *byte, wStride int, a *byte, aStride, cols int, sums *float64) (exact bool)
//
// gemm4BF16 with the instruction itself (AVX-512 BF16): per 32-element step of a set, the four rows' chunks
// in Z16…Z19 (set 2: Z20…Z23), the columns' in Z24, Z25 (Z26, Z27), one VDPBF16PS per pair.
TEXT ·gemm4BF16BF16(SB), NOSPLIT, $0-57
	MOVQ steps+0(FP), BX
	MOVQ w+8(FP), R8
	MOVQ wStride+16(FP), R9
	MOVQ a+24(FP), R10
	MOVQ aStride+32(FP), R11
	MOVQ cols+40(FP), R12
	MOVQ sums+48(FP), DI
	LEAQ (R9)(R9*2), R14

n2cols:
	CMPQ R12, $2
	JLT  n1col
	ZERO16
	MOVQ R8, SI
	MOVQ R10, DX
	MOVQ BX, CX

n2k:
	// set 1
	VMOVDQU32 (SI), Z16
	VMOVDQU32 (SI)(R9*1), Z17
	VMOVDQU32 (SI)(R9*2), Z18
	VMOVDQU32 (SI)(R14*1), Z19
	VMOVDQU32 (DX), Z24
	VMOVDQU32 (DX)(R11*1), Z25
	VDPBF16PS(0, 16, 24)
	VDPBF16PS(1, 17, 24)
	VDPBF16PS(2, 18, 24)
	VDPBF16PS(3, 19, 24)
	VDPBF16PS(4, 16, 25)
	VDPBF16PS(5, 17, 25)
	VDPBF16PS(6, 18, 25)
	VDPBF16PS(7, 19, 25)
	// set 2
	VMOVDQU32 64(SI), Z20
	VMOVDQU32 64(SI)(R9*1), Z21
	VMOVDQU32 64(SI)(R9*2), Z22
	VMOVDQU32 64(SI)(R14*1), Z23
	VMOVDQU32 64(DX), Z26
	VMOVDQU32 64(DX)(R11*1), Z27
	VDPBF16PS(8, 20, 26)
	VDPBF16PS(9, 21, 26)
	VDPBF16PS(10, 22, 26)
	VDPBF16PS(11, 23, 26)
	VDPBF16PS(12, 20, 27)
	VDPBF16PS(13, 21, 27)
	VDPBF16PS(14, 22, 27)
	VDPBF16PS(15, 23, 27)
	ADDQ $128, SI
	ADDQ $128, DX
	DECQ CX
	JNZ  n2k

	BFSTORE8
	LEAQ (R10)(R11*2), R10
	ADDQ $64, DI
	SUBQ $2, R12
	JMP  n2cols

n1col:
	TESTQ R12, R12
	JZ    ndone
	ZERO8(Z0, Z1, Z2, Z3, Z8, Z9, Z10, Z11)
	MOVQ  R8, SI
	MOVQ  R10, DX
	MOVQ  BX, CX

n1k:
	// set 1
	VMOVDQU32 (SI), Z16
	VMOVDQU32 (SI)(R9*1), Z17
	VMOVDQU32 (SI)(R9*2), Z18
	VMOVDQU32 (SI)(R14*1), Z19
	VMOVDQU32 (DX), Z24
	VDPBF16PS(0, 16, 24)
	VDPBF16PS(1, 17, 24)
	VDPBF16PS(2, 18, 24)
	VDPBF16PS(3, 19, 24)
	// set 2
	VMOVDQU32 64(SI), Z20
	VMOVDQU32 64(SI)(R9*1), Z21
	VMOVDQU32 64(SI)(R9*2), Z22
	VMOVDQU32 64(SI)(R14*1), Z23
	VMOVDQU32 64(DX), Z26
	VDPBF16PS(8, 20, 26)
	VDPBF16PS(9, 21, 26)
	VDPBF16PS(10, 22, 26)
	VDPBF16PS(11, 23, 26)
	ADDQ $128, SI
	ADDQ $128, DX
	DECQ CX
	JNZ  n1k

	BFSTORE4
	ADDQ R11, R10
	ADDQ $32, DI
	DECQ R12
	JMP  n1col

ndone:
	MOVB $1, exact+56(FP)
	VZEROUPPER
	RET
