//go:build amd64 && !noasm

#include "textflag.h"
#include "vexp_amd64.h"

DATA vxBias<>+0(SB)/8, $1023
GLOBL vxBias<>(SB), RODATA|NOPTR, $8

// VEXP2 sets Y8 = vexpf(Y0) on 8 lanes; clobbers Y1…Y13, needs Y14 = int64 1023 in each quadword. The steps
// of VEXP (vexp_amd64.h) to j and n, then j·2^n exactly in float64 (four lanes at a time) rounded once to
// float32, which is what VSCALEFPS's single rounding gives; lanes with |n| > 192 become 0 (n < 0) or +Inf,
// NaN stays NaN.
#define VEXP2 \
	VBROADCASTSS VX_SHIFT, Y1 \
	VBROADCASTSS VX_LOG2E, Y7 \
	VFMADD231PS  Y7, Y0, Y1 \
	VBROADCASTSS VX_SHIFT, Y7 \
	VSUBPS       Y7, Y1, Y2 \
	VMOVAPS      Y0, Y3 \
	VBROADCASTSS VX_LN2HI, Y7 \
	VFNMADD231PS Y7, Y2, Y3 \
	VBROADCASTSS VX_LN2LO, Y7 \
	VFNMADD231PS Y7, Y2, Y3 \
	VMULPS       Y3, Y3, Y4 \
	VBROADCASTSS VX_C4, Y5 \
	VBROADCASTSS VX_C5, Y7 \
	VFMADD231PS  Y7, Y3, Y5 \
	VBROADCASTSS VX_C2, Y6 \
	VBROADCASTSS VX_C3, Y7 \
	VFMADD231PS  Y7, Y3, Y6 \
	VFMADD213PS  Y6, Y4, Y5 \
	VBROADCASTSS VX_ONE, Y7 \
	VBROADCASTSS VX_C1, Y8 \
	VFMADD231PS  Y8, Y3, Y7 \
	VFMADD213PS  Y7, Y4, Y5 \
	VCVTPS2DQ    Y2, Y6 \
	VCVTPS2PD    X5, Y8 \
	VPMOVSXDQ    X6, Y9 \
	VPADDQ       Y14, Y9, Y9 \
	VPSLLQ       $52, Y9, Y9 \
	VMULPD       Y9, Y8, Y8 \
	VCVTPD2PSY   Y8, X8 \
	VEXTRACTF128 $1, Y5, X10 \
	VCVTPS2PD    X10, Y10 \
	VEXTRACTI128 $1, Y6, X11 \
	VPMOVSXDQ    X11, Y11 \
	VPADDQ       Y14, Y11, Y11 \
	VPSLLQ       $52, Y11, Y11 \
	VMULPD       Y11, Y10, Y10 \
	VCVTPD2PSY   Y10, X10 \
	VINSERTF128  $1, X10, Y8, Y8 \
	VBROADCASTSS VX_ABS, Y7 \
	VANDPS       Y7, Y2, Y12 \
	VBROADCASTSS VX_192, Y7 \
	VCMPPS       $0x1e, Y7, Y12, Y12 \
	VXORPS       Y13, Y13, Y13 \
	VCMPPS       $0x1e, Y13, Y2, Y13 \
	VBROADCASTSS VX_INF, Y7 \
	VANDPS       Y7, Y13, Y13 \
	VBLENDVPS    Y12, Y13, Y8, Y8 \
	VCMPPS       $3, Y2, Y2, Y12 \
	VBLENDVPS    Y12, Y2, Y8, Y8

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
