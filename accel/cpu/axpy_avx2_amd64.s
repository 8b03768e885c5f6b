//go:build amd64 && !noasm

#include "textflag.h"

// axpy_amd64.s's value sums of flash attention for CPUs with AVX2, FMA and F16C but not AVX-512, eight floats
// a register: the same operations per element (one fused multiply-add, the F16 roundings, the dequantized
// values rounded to float32 first), so the results are the same bits. n is a multiple of 8.

// LOAD4Y and STORE4Y move 32 floats at DI to and from Y4…Y7; LOAD8Y and STORE8Y 64 to and from Y4…Y11.
#define LOAD4Y \
	VMOVUPS (DI), Y4   \
	VMOVUPS 32(DI), Y5 \
	VMOVUPS 64(DI), Y6 \
	VMOVUPS 96(DI), Y7

#define STORE4Y \
	VMOVUPS Y4, (DI)   \
	VMOVUPS Y5, 32(DI) \
	VMOVUPS Y6, 64(DI) \
	VMOVUPS Y7, 96(DI)

#define LOAD8Y \
	LOAD4Y              \
	VMOVUPS 128(DI), Y8  \
	VMOVUPS 160(DI), Y9  \
	VMOVUPS 192(DI), Y10 \
	VMOVUPS 224(DI), Y11

#define STORE8Y \
	STORE4Y              \
	VMOVUPS Y8, 128(DI)  \
	VMOVUPS Y9, 160(DI)  \
	VMOVUPS Y10, 192(DI) \
	VMOVUPS Y11, 224(DI)

// func axpyAVX2(n int, x, y *float32, a float32)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-28
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS a+24(FP), Y2
	SHRQ         $3, CX

ax2loop:
	VMOVUPS     (SI), Y1
	VMOVUPS     (DI), Y0
	VFMADD231PS Y2, Y1, Y0
	VMOVUPS     Y0, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         ax2loop
	VZEROUPPER
	RET

// func axpyRoundAVX2(n int, x, y *float32, a float32)
TEXT ·axpyRoundAVX2(SB), NOSPLIT, $0-28
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS a+24(FP), Y2
	SHRQ         $3, CX

ar2loop:
	VMOVUPS     (SI), Y1
	VMOVUPS     (DI), Y0
	VFMADD231PS Y2, Y1, Y0
	VCVTPS2PH   $0, Y0, X3
	VCVTPH2PS   X3, Y0
	VMOVUPS     Y0, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         ar2loop
	VZEROUPPER
	RET

// func axpyHRoundAVX2(n int, x *uint16, y *float32, a float32)
TEXT ·axpyHRoundAVX2(SB), NOSPLIT, $0-28
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS a+24(FP), Y2
	SHRQ         $3, CX

ah2loop:
	VCVTPH2PS   (SI), Y1
	VMOVUPS     (DI), Y0
	VFMADD231PS Y2, Y1, Y0
	VCVTPS2PH   $0, Y0, X3
	VCVTPH2PS   X3, Y0
	VMOVUPS     Y0, (DI)
	ADDQ        $16, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         ah2loop
	VZEROUPPER
	RET

// Q8D2 sets Y3 to the F16 scale at off(SI) as float32 in every lane.
#define Q8D2(off) \
	MOVWLZX      off(SI), AX \
	VMOVD        AX, X3      \
	VCVTPH2PS    X3, X3      \
	VBROADCASTSS X3, Y3

// Q8Y2 adds the eight quants at off(SI) (int8), times the scale Y3 and rounded, times the weight Y2 to ACC.
#define Q8Y2(off, ACC) \
	VPMOVSXBD   off(SI), Y1 \
	VCVTDQ2PS   Y1, Y1      \
	VMULPS      Y3, Y1, Y1  \
	VFMADD231PS Y2, Y1, ACC

// func axpyQ8AVX2(nb int, x *byte, y *float32, a float32)
//
// axpyQ8AVX512 with AVX2: y += (d·q)·a over nb Q8_0 blocks of x.
TEXT ·axpyQ8AVX2(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS a+24(FP), Y2

aq2loop:
	Q8D2(0)
	LOAD4Y
	Q8Y2(2, Y4)
	Q8Y2(10, Y5)
	Q8Y2(18, Y6)
	Q8Y2(26, Y7)
	STORE4Y
	ADDQ    $34, SI
	ADDQ    $128, DI
	DECQ    CX
	JNZ     aq2loop
	VZEROUPPER
	RET

// Q4Y2 adds the nibbles of the eight bytes at off(SI) (zero-extended in Y6 by the caller: low nibbles to LO,
// high ones to HI), minus 8, times the scale Y3 and rounded, times the weight Y2.
#define Q4Y2(LO, HI) \
	VPAND       Y4, Y6, Y1  \
	VPSUBD      Y5, Y1, Y1  \
	VCVTDQ2PS   Y1, Y1      \
	VMULPS      Y3, Y1, Y1  \
	VFMADD231PS Y2, Y1, LO  \
	VPSRLD      $4, Y6, Y1  \
	VPSUBD      Y5, Y1, Y1  \
	VCVTDQ2PS   Y1, Y1      \
	VMULPS      Y3, Y1, Y1  \
	VFMADD231PS Y2, Y1, HI

// func axpyQ4AVX2(nb int, x *byte, y *float32, a float32)
//
// axpyQ4AVX512 with AVX2: y += (d·(q−8))·a over nb Q4_0 blocks of x.
TEXT ·axpyQ4AVX2(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS a+24(FP), Y2
	VPBROADCASTD ·nib4Consts+0(SB), Y4
	VPBROADCASTD ·nib4Consts+4(SB), Y5

a42loop:
	Q8D2(0)
	VMOVUPS   (DI), Y8
	VMOVUPS   32(DI), Y9
	VMOVUPS   64(DI), Y10
	VMOVUPS   96(DI), Y11
	VPMOVZXBD 2(SI), Y6
	Q4Y2(Y8, Y10)
	VPMOVZXBD 10(SI), Y6
	Q4Y2(Y9, Y11)
	VMOVUPS   Y8, (DI)
	VMOVUPS   Y9, 32(DI)
	VMOVUPS   Y10, 64(DI)
	VMOVUPS   Y11, 96(DI)
	ADDQ      $18, SI
	ADDQ      $128, DI
	DECQ      CX
	JNZ       a42loop
	VZEROUPPER
	RET

// func axpyQ8RowsAVX2(nb int, x *byte, stride, rows int, w, y *float32)
//
// axpyQ8AVX2 of rows Q8_0 rows of nb blocks, stride bytes apart, with the weights w[0…rows−1] in turn: y
// stays in registers across the rows, two blocks (64 floats) at a time; the same roundings per row.
TEXT ·axpyQ8RowsAVX2(SB), NOSPLIT, $0-48
	MOVQ nb+0(FP), CX
	MOVQ x+8(FP), R8
	MOVQ stride+16(FP), R9
	MOVQ y+40(FP), DI

aq2rchunk:
	CMPQ    CX, $2
	JLT     aq2rone
	LOAD8Y
	MOVQ    R8, SI
	MOVQ    w+32(FP), DX
	MOVQ    rows+24(FP), BX

aq2r2:
	VBROADCASTSS (DX), Y2
	Q8D2(0)
	Q8Y2(2, Y4)
	Q8Y2(10, Y5)
	Q8Y2(18, Y6)
	Q8Y2(26, Y7)
	Q8D2(34)
	Q8Y2(36, Y8)
	Q8Y2(44, Y9)
	Q8Y2(52, Y10)
	Q8Y2(60, Y11)
	ADDQ         R9, SI
	ADDQ         $4, DX
	DECQ         BX
	JNZ          aq2r2
	STORE8Y
	ADDQ    $68, R8
	ADDQ    $256, DI
	SUBQ    $2, CX
	JMP     aq2rchunk

aq2rone:
	TESTQ   CX, CX
	JZ      aq2rdone
	LOAD4Y
	MOVQ    R8, SI
	MOVQ    w+32(FP), DX
	MOVQ    rows+24(FP), BX

aq2r1:
	VBROADCASTSS (DX), Y2
	Q8D2(0)
	Q8Y2(2, Y4)
	Q8Y2(10, Y5)
	Q8Y2(18, Y6)
	Q8Y2(26, Y7)
	ADDQ         R9, SI
	ADDQ         $4, DX
	DECQ         BX
	JNZ          aq2r1
	STORE4Y

aq2rdone:
	VZEROUPPER
	RET

// AH2ROW adds the 8 halves at off(SI) times Y2 to ACC, rounded to F16 (as axpyHRoundAVX2).
#define AH2ROW(off, ACC) \
	VCVTPH2PS   off(SI), Y1 \
	VFMADD231PS Y2, Y1, ACC \
	VCVTPS2PH   $0, ACC, X3 \
	VCVTPH2PS   X3, ACC

// func axpyHRowsAVX2(n int, x *uint16, stride, rows int, w, y *float32)
//
// axpyHRoundAVX2 of rows F16 rows of n elements (a multiple of 8), stride bytes apart, with the weights
// w[0…rows−1] in turn: y stays in registers across the rows, 64 elements (eight chains of roundings) at a
// time, then 8.
TEXT ·axpyHRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), R8
	MOVQ stride+16(FP), R9
	MOVQ y+40(FP), DI

ah2rchunk:
	CMPQ    CX, $64
	JLT     ah2rone
	LOAD8Y
	MOVQ    R8, SI
	MOVQ    w+32(FP), DX
	MOVQ    rows+24(FP), BX

ah2r8:
	VBROADCASTSS (DX), Y2
	AH2ROW(0, Y4)
	AH2ROW(16, Y5)
	AH2ROW(32, Y6)
	AH2ROW(48, Y7)
	AH2ROW(64, Y8)
	AH2ROW(80, Y9)
	AH2ROW(96, Y10)
	AH2ROW(112, Y11)
	ADDQ         R9, SI
	ADDQ         $4, DX
	DECQ         BX
	JNZ          ah2r8
	STORE8Y
	ADDQ    $128, R8
	ADDQ    $256, DI
	SUBQ    $64, CX
	JMP     ah2rchunk

ah2rone:
	TESTQ   CX, CX
	JZ      ah2rdone
	VMOVUPS (DI), Y4
	MOVQ    R8, SI
	MOVQ    w+32(FP), DX
	MOVQ    rows+24(FP), BX

ah2r1:
	VBROADCASTSS (DX), Y2
	AH2ROW(0, Y4)
	ADDQ         R9, SI
	ADDQ         $4, DX
	DECQ         BX
	JNZ          ah2r1
	VMOVUPS Y4, (DI)
	ADDQ    $16, R8
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     ah2rone

ah2rdone:
	VZEROUPPER
	RET
