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
