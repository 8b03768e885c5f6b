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
