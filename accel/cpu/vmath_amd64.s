//go:build amd64 && !noasm

#include "textflag.h"
#include "vexp_amd64.h"

// BINARY sets y = a OP b element by element for the arguments (n a positive multiple of 8).
#define BINARY(OP, loop) \
	MOVQ    n+0(FP), CX     \
	MOVQ    a+8(FP), SI     \
	MOVQ    b+16(FP), DX    \
	MOVQ    y+24(FP), DI    \
	SHRQ    $3, CX          \
loop:                           \
	VMOVUPS (SI), Y0        \
	OP      (DX), Y0, Y0    \
	VMOVUPS Y0, (DI)        \
	ADDQ    $32, SI         \
	ADDQ    $32, DX         \
	ADDQ    $32, DI         \
	DECQ    CX              \
	JNZ     loop            \
	VZEROUPPER              \
	RET

// The constants of vexpf (math.go) as float32 bit patterns, then masks, the saturation bound and +Inf.
DATA ·vexpConsts+0(SB)/4, $0x4b400000  // 0x1.8p23
DATA ·vexpConsts+4(SB)/4, $0x3fb8aa3b  // 0x1.715476p+0
DATA ·vexpConsts+8(SB)/4, $0x3f317200  // 0x1.62e4p-1
DATA ·vexpConsts+12(SB)/4, $0x35bfbe8e // 0x1.7f7d1cp-20
DATA ·vexpConsts+16(SB)/4, $0x3f7ffff6 // 0x1.ffffecp-1
DATA ·vexpConsts+20(SB)/4, $0x3efffedb // 0x1.fffdb6p-2
DATA ·vexpConsts+24(SB)/4, $0x3e2aaf33 // 0x1.555e66p-3
DATA ·vexpConsts+28(SB)/4, $0x3d2b9f17 // 0x1.573e2ep-5
DATA ·vexpConsts+32(SB)/4, $0x3c072010 // 0x1.0e4020p-7
DATA ·vexpConsts+36(SB)/4, $0x3f800000 // 1
DATA ·vexpConsts+40(SB)/4, $0x7fffffff
DATA ·vexpConsts+44(SB)/4, $0x80000000
DATA ·vexpConsts+48(SB)/4, $0x43400000 // 192
DATA ·vexpConsts+52(SB)/4, $0x7f800000 // +Inf
GLOBL ·vexpConsts(SB), RODATA|NOPTR, $56

// func vexpAVX512(n int, x, y *float32, m float32)
//
// Reference: y = vexpf(x − m), n a multiple of 16.
TEXT ·vexpAVX512(SB), NOSPLIT, $0-28
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS m+24(FP), Z15
	SHRQ         $4, CX

veloop:
	VMOVUPS (SI), Z0
	VSUBPS  Z15, Z0, Z0
	VEXP(vebig, vedone)
	VMOVUPS Z0, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     veloop
	VZEROUPPER
	RET

vebig:
	VEXPBIG(vedone)

// func vsiluAVX512(n int, x, y, u *float32)
//
// Reference: silu (x / (1 + vexpf(−x))), times u when u is not nil; n a multiple of 16.
TEXT ·vsiluAVX512(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	MOVQ u+24(FP), DX
	SHRQ $4, CX

vsloop:
	VMOVUPS     (SI), Z12
	VXORPS.BCST VX_SIGN, Z12, Z0
	VEXP(vsbig, vsdone)
	VADDPS.BCST VX_ONE, Z0, Z0
	VDIVPS      Z0, Z12, Z0
	TESTQ       DX, DX
	JZ          vsstore
	VMULPS      (DX), Z0, Z0
	ADDQ        $64, DX

vsstore:
	VMOVUPS Z0, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     vsloop
	VZEROUPPER
	RET

vsbig:
	VEXPBIG(vsdone)

// func roundF16AVX512(n int, x *float32)
//
// Reference: f16Round per element (VCVTPS2PH with round-to-nearest-even, then back), n a multiple of 16.
TEXT ·roundF16AVX512(SB), NOSPLIT, $0-16
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	SHRQ $4, CX

rfloop:
	VMOVUPS   (SI), Z0
	VCVTPS2PH $0, Z0, Y1
	VCVTPH2PS Y1, Z0
	VMOVUPS   Z0, (SI)
	ADDQ      $64, SI
	DECQ      CX
	JNZ       rfloop
	VZEROUPPER
	RET

// func addAVX2(n int, a, b, y *float32)
//
// y = a + b element by element, n a positive multiple of 8.
TEXT ·addAVX2(SB), NOSPLIT, $0-32
	BINARY(VADDPS, addloop)

// func mulAVX2(n int, a, b, y *float32)
//
// y = a · b element by element, n a positive multiple of 8.
TEXT ·mulAVX2(SB), NOSPLIT, $0-32
	BINARY(VMULPS, mulloop)
