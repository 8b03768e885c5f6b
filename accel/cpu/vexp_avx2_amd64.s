//go:build amd64 && !noasm

#include "textflag.h"
#include "vexp_amd64.h"

DATA vxBias<>+0(SB)/8, $1023
GLOBL vxBias<>(SB), RODATA|NOPTR, $8

// func vexpAVX2(n int, x, y *float32, m float32)
//
// Reference: y = vexpf(x − m), n a multiple of 8 (AVX2 and FMA).
TEXT ·vexpAVX2(SB), NOSPLIT, $0-28
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS m+24(FP), Y15
	VPBROADCASTQ vxBias<>(SB), Y14
	SHRQ         $3, CX

vx2loop:
	VMOVUPS      (SI), Y0
	VSUBPS       Y15, Y0, Y0
	VEXP2
	VMOVUPS      Y8, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DI
	DECQ         CX
	JNZ          vx2loop
	VZEROUPPER
	RET

// func vsiluAVX2(n int, x, y, u *float32)
//
// Reference: silu (x / (1 + vexpf(−x))), times u when u is not nil; n a multiple of 8.
TEXT ·vsiluAVX2(SB), NOSPLIT, $0-32
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	MOVQ         u+24(FP), DX
	VPBROADCASTQ vxBias<>(SB), Y14
	SHRQ         $3, CX

vs2loop:
	VMOVUPS      (SI), Y15
	VBROADCASTSS VX_SIGN, Y0
	VXORPS       Y15, Y0, Y0
	VEXP2
	VBROADCASTSS VX_ONE, Y7
	VADDPS       Y7, Y8, Y8
	VDIVPS       Y8, Y15, Y8
	TESTQ        DX, DX
	JZ           vs2store
	VMULPS       (DX), Y8, Y8
	ADDQ         $32, DX

vs2store:
	VMOVUPS Y8, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     vs2loop
	VZEROUPPER
	RET
