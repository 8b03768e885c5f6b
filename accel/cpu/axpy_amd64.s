//go:build amd64 && !noasm

#include "textflag.h"

// The value sums of flash attention (flash.go): y += x·a with one rounding per element (VFMADD231PS, as
// ggml_vec_mad_f32/_f16 on AVX-512), optionally rounded to F16 after (VCVTPS2PH nearest-even, as an F16
// accumulator stores it), x in F32 or F16. n is a multiple of 16.

// func axpyAVX512(n int, x, y *float32, a float32)
TEXT ·axpyAVX512(SB), NOSPLIT, $0-28
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS a+24(FP), Z2
	SHRQ         $4, CX

axloop:
	VMOVUPS     (SI), Z1
	VMOVUPS     (DI), Z0
	VFMADD231PS Z2, Z1, Z0
	VMOVUPS     Z0, (DI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        CX
	JNZ         axloop
	VZEROUPPER
	RET

// func axpyRoundAVX512(n int, x, y *float32, a float32)
TEXT ·axpyRoundAVX512(SB), NOSPLIT, $0-28
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS a+24(FP), Z2
	SHRQ         $4, CX

arloop:
	VMOVUPS     (SI), Z1
	VMOVUPS     (DI), Z0
	VFMADD231PS Z2, Z1, Z0
	VCVTPS2PH   $0, Z0, Y3
	VCVTPH2PS   Y3, Z0
	VMOVUPS     Z0, (DI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        CX
	JNZ         arloop
	VZEROUPPER
	RET

// func axpyHRoundAVX512(n int, x *uint16, y *float32, a float32)
TEXT ·axpyHRoundAVX512(SB), NOSPLIT, $0-28
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS a+24(FP), Z2
	SHRQ         $4, CX

ahloop:
	VCVTPH2PS   (SI), Z1
	VMOVUPS     (DI), Z0
	VFMADD231PS Z2, Z1, Z0
	VCVTPS2PH   $0, Z0, Y3
	VCVTPH2PS   Y3, Z0
	VMOVUPS     Z0, (DI)
	ADDQ        $32, SI
	ADDQ        $64, DI
	DECQ        CX
	JNZ         ahloop
	VZEROUPPER
	RET

// func axpyQ8AVX512(nb int, x *byte, y *float32, a float32)
//
// y += (d·q)·a over nb Q8_0 blocks of x (each 34 bytes: F16 d, 32 int8 q): the dequantized value rounded to
// float32 (as dequantize_row_q8_0), then fused into y.
TEXT ·axpyQ8AVX512(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS a+24(FP), Z2

aqloop:
	MOVWLZX      (SI), AX
	VMOVD        AX, X3
	VCVTPH2PS    X3, X3
	VBROADCASTSS X3, Z3
	VPMOVSXBD    2(SI), Z1
	VCVTDQ2PS    Z1, Z1
	VMULPS       Z3, Z1, Z1
	VMOVUPS      (DI), Z0
	VFMADD231PS  Z2, Z1, Z0
	VMOVUPS      Z0, (DI)
	VPMOVSXBD    18(SI), Z1
	VCVTDQ2PS    Z1, Z1
	VMULPS       Z3, Z1, Z1
	VMOVUPS      64(DI), Z0
	VFMADD231PS  Z2, Z1, Z0
	VMOVUPS      Z0, 64(DI)
	ADDQ         $34, SI
	ADDQ         $128, DI
	DECQ         CX
	JNZ          aqloop
	VZEROUPPER
	RET

DATA ·nib4Consts+0(SB)/4, $0x0000000f
DATA ·nib4Consts+4(SB)/4, $0x00000008
GLOBL ·nib4Consts(SB), RODATA|NOPTR, $8

// func axpyQ4AVX512(nb int, x *byte, y *float32, a float32)
//
// y += (d·(q−8))·a over nb Q4_0 blocks of x (each 18 bytes: F16 d, 16 bytes of nibbles: element j the low
// nibble of byte j, element j+16 its high nibble), the dequantized value rounded to float32 (as
// dequantize_row_q4_0), then fused into y.
TEXT ·axpyQ4AVX512(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS a+24(FP), Z2
	VPBROADCASTD ·nib4Consts+0(SB), Z4
	VPBROADCASTD ·nib4Consts+4(SB), Z5

a4loop:
	MOVWLZX      (SI), AX
	VMOVD        AX, X3
	VCVTPH2PS    X3, X3
	VBROADCASTSS X3, Z3
	VPMOVZXBD    2(SI), Z6
	VPANDD       Z4, Z6, Z1
	VPSUBD       Z5, Z1, Z1
	VCVTDQ2PS    Z1, Z1
	VMULPS       Z3, Z1, Z1
	VMOVUPS      (DI), Z0
	VFMADD231PS  Z2, Z1, Z0
	VMOVUPS      Z0, (DI)
	VPSRLD       $4, Z6, Z1
	VPSUBD       Z5, Z1, Z1
	VCVTDQ2PS    Z1, Z1
	VMULPS       Z3, Z1, Z1
	VMOVUPS      64(DI), Z0
	VFMADD231PS  Z2, Z1, Z0
	VMOVUPS      Z0, 64(DI)
	ADDQ         $18, SI
	ADDQ         $128, DI
	DECQ         CX
	JNZ          a4loop
	VZEROUPPER
	RET

// AQ8ROW adds block k of the row at SI (34 bytes a block) times the weight in Z2 to the floats in LO and HI
// (elements 32k … 32k+31 of y), as axpyQ8AVX512 does.
#define AQ8ROW(k, LO, HI) \
	MOVWLZX      (34*k)(SI), AX   \
	VMOVD        AX, X3           \
	VCVTPH2PS    X3, X3           \
	VBROADCASTSS X3, Z3           \
	VPMOVSXBD    (34*k+2)(SI), Z1 \
	VCVTDQ2PS    Z1, Z1           \
	VMULPS       Z3, Z1, Z1       \
	VFMADD231PS  Z2, Z1, LO       \
	VPMOVSXBD    (34*k+18)(SI), Z1 \
	VCVTDQ2PS    Z1, Z1           \
	VMULPS       Z3, Z1, Z1       \
	VFMADD231PS  Z2, Z1, HI

// func axpyQ8RowsAVX512(nb int, x *byte, stride, rows int, w, y *float32)
//
// axpyQ8AVX512 of rows Q8_0 rows of nb blocks, stride bytes apart, with the weights w[0…rows−1] in turn: y
// stays in registers across the rows, four blocks (128 floats) at a time; the same roundings per row.
TEXT ·axpyQ8RowsAVX512(SB), NOSPLIT, $0-48
	MOVQ nb+0(FP), CX
	MOVQ x+8(FP), R8
	MOVQ stride+16(FP), R9
	MOVQ y+40(FP), DI

aqrchunk:
	CMPQ    CX, $4
	JLT     aqrone
	VMOVUPS (DI), Z4
	VMOVUPS 64(DI), Z5
	VMOVUPS 128(DI), Z6
	VMOVUPS 192(DI), Z7
	VMOVUPS 256(DI), Z8
	VMOVUPS 320(DI), Z9
	VMOVUPS 384(DI), Z10
	VMOVUPS 448(DI), Z11
	MOVQ    R8, SI
	MOVQ    w+32(FP), DX
	MOVQ    rows+24(FP), BX

aqr4:
	VBROADCASTSS (DX), Z2
	AQ8ROW(0, Z4, Z5)
	AQ8ROW(1, Z6, Z7)
	AQ8ROW(2, Z8, Z9)
	AQ8ROW(3, Z10, Z11)
	ADDQ         R9, SI
	ADDQ         $4, DX
	DECQ         BX
	JNZ          aqr4
	VMOVUPS Z4, (DI)
	VMOVUPS Z5, 64(DI)
	VMOVUPS Z6, 128(DI)
	VMOVUPS Z7, 192(DI)
	VMOVUPS Z8, 256(DI)
	VMOVUPS Z9, 320(DI)
	VMOVUPS Z10, 384(DI)
	VMOVUPS Z11, 448(DI)
	ADDQ    $136, R8
	ADDQ    $512, DI
	SUBQ    $4, CX
	JMP     aqrchunk

aqrone:
	TESTQ   CX, CX
	JZ      aqrdone
	VMOVUPS (DI), Z4
	VMOVUPS 64(DI), Z5
	MOVQ    R8, SI
	MOVQ    w+32(FP), DX
	MOVQ    rows+24(FP), BX

aqr1:
	VBROADCASTSS (DX), Z2
	AQ8ROW(0, Z4, Z5)
	ADDQ         R9, SI
	ADDQ         $4, DX
	DECQ         BX
	JNZ          aqr1
	VMOVUPS Z4, (DI)
	VMOVUPS Z5, 64(DI)
	ADDQ    $34, R8
	ADDQ    $128, DI
	DECQ    CX
	JMP     aqrone

aqrdone:
	VZEROUPPER
	RET

// AHROW adds the 16 halves at k·32(SI) times Z2 to ACC, rounded to F16 (as axpyHRoundAVX512).
#define AHROW(k, ACC) \
	VCVTPH2PS   (32*k)(SI), Z1 \
	VFMADD231PS Z2, Z1, ACC    \
	VCVTPS2PH   $0, ACC, Y3    \
	VCVTPH2PS   Y3, ACC

// func axpyHRowsAVX512(n int, x *uint16, stride, rows int, w, y *float32)
//
// axpyHRoundAVX512 of rows F16 rows of n elements (a multiple of 16), stride bytes apart, with the weights
// w[0…rows−1] in turn: y stays in registers across the rows, 64 elements at a time.
TEXT ·axpyHRowsAVX512(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), R8
	MOVQ stride+16(FP), R9
	MOVQ y+40(FP), DI

ahrchunk:
	CMPQ    CX, $64
	JLT     ahrone
	VMOVUPS (DI), Z4
	VMOVUPS 64(DI), Z5
	VMOVUPS 128(DI), Z6
	VMOVUPS 192(DI), Z7
	MOVQ    R8, SI
	MOVQ    w+32(FP), DX
	MOVQ    rows+24(FP), BX

ahr4:
	VBROADCASTSS (DX), Z2
	AHROW(0, Z4)
	AHROW(1, Z5)
	AHROW(2, Z6)
	AHROW(3, Z7)
	ADDQ         R9, SI
	ADDQ         $4, DX
	DECQ         BX
	JNZ          ahr4
	VMOVUPS Z4, (DI)
	VMOVUPS Z5, 64(DI)
	VMOVUPS Z6, 128(DI)
	VMOVUPS Z7, 192(DI)
	ADDQ    $128, R8
	ADDQ    $256, DI
	SUBQ    $64, CX
	JMP     ahrchunk

ahrone:
	TESTQ   CX, CX
	JZ      ahrdone
	VMOVUPS (DI), Z4
	MOVQ    R8, SI
	MOVQ    w+32(FP), DX
	MOVQ    rows+24(FP), BX

ahr1:
	VBROADCASTSS (DX), Z2
	AHROW(0, Z4)
	ADDQ         R9, SI
	ADDQ         $4, DX
	DECQ         BX
	JNZ          ahr1
	VMOVUPS Z4, (DI)
	ADDQ    $32, R8
	ADDQ    $64, DI
	SUBQ    $16, CX
	JMP     ahrone

ahrdone:
	VZEROUPPER
	RET
