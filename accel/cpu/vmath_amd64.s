//go:build amd64 && !noasm

#include "textflag.h"

// ggml_v_expf on 16 float32 lanes with AVX-512 (hand-written): the operations of vexpf (math.go), which are
// those of ggml's AVX-512 form, so every lane is bit-identical to it.

DATA vxShift<>+0(SB)/4, $0x4b400000   // 0x1.8p23
GLOBL vxShift<>(SB), RODATA|NOPTR, $4
DATA vxLog2e<>+0(SB)/4, $0x3fb8aa3b   // 0x1.715476p+0
GLOBL vxLog2e<>(SB), RODATA|NOPTR, $4
DATA vxLn2Hi<>+0(SB)/4, $0x3f317200   // 0x1.62e4p-1
GLOBL vxLn2Hi<>(SB), RODATA|NOPTR, $4
DATA vxLn2Lo<>+0(SB)/4, $0x35bfbe8e   // 0x1.7f7d1cp-20
GLOBL vxLn2Lo<>(SB), RODATA|NOPTR, $4
DATA vxC1<>+0(SB)/4, $0x3f7ffff6      // 0x1.ffffecp-1
GLOBL vxC1<>(SB), RODATA|NOPTR, $4
DATA vxC2<>+0(SB)/4, $0x3efffedb      // 0x1.fffdb6p-2
GLOBL vxC2<>(SB), RODATA|NOPTR, $4
DATA vxC3<>+0(SB)/4, $0x3e2aaf33      // 0x1.555e66p-3
GLOBL vxC3<>(SB), RODATA|NOPTR, $4
DATA vxC4<>+0(SB)/4, $0x3d2b9f17      // 0x1.573e2ep-5
GLOBL vxC4<>(SB), RODATA|NOPTR, $4
DATA vxC5<>+0(SB)/4, $0x3c072010      // 0x1.0e4020p-7
GLOBL vxC5<>(SB), RODATA|NOPTR, $4
DATA vxOne<>+0(SB)/4, $0x3f800000
GLOBL vxOne<>(SB), RODATA|NOPTR, $4
DATA vxAbs<>+0(SB)/4, $0x7fffffff
GLOBL vxAbs<>(SB), RODATA|NOPTR, $4
DATA vxSign<>+0(SB)/4, $0x80000000
GLOBL vxSign<>(SB), RODATA|NOPTR, $4
DATA vx192<>+0(SB)/4, $192.0
GLOBL vx192<>(SB), RODATA|NOPTR, $4
DATA vxInf<>+0(SB)/4, $0x7f800000
GLOBL vxInf<>(SB), RODATA|NOPTR, $4

// VEXP sets Z0 = vexpf(Z0); clobbers Z1…Z7, K1, K2. Step by step as vexpf: z = x·log2e + shift (Z1),
// n = z − shift (Z2), b = x − n·ln2hi − n·ln2lo (Z3), u = b² (Z4), j = ((c5·b + c4)·u + (c3·b + c2))·u +
// (c1·b + 1) (Z5), result j·2^n by VSCALEFPS. Lanes with |n| > 192 take the rarely used branch to big,
// which sets them to 0 (n < 0) or +Inf.
#define VEXP(big, done) \
	VBROADCASTSS      vxShift<>(SB), Z1      \
	VFMADD231PS.BCST  vxLog2e<>(SB), Z0, Z1  \
	VSUBPS.BCST       vxShift<>(SB), Z1, Z2  \
	VMOVAPS           Z0, Z3                 \
	VFNMADD231PS.BCST vxLn2Hi<>(SB), Z2, Z3  \
	VFNMADD231PS.BCST vxLn2Lo<>(SB), Z2, Z3  \
	VMULPS            Z3, Z3, Z4             \
	VBROADCASTSS      vxC4<>(SB), Z5         \
	VFMADD231PS.BCST  vxC5<>(SB), Z3, Z5     \
	VBROADCASTSS      vxC2<>(SB), Z6         \
	VFMADD231PS.BCST  vxC3<>(SB), Z3, Z6     \
	VFMADD213PS       Z6, Z4, Z5             \
	VBROADCASTSS      vxOne<>(SB), Z7        \
	VFMADD231PS.BCST  vxC1<>(SB), Z3, Z7     \
	VFMADD213PS       Z7, Z4, Z5             \
	VSCALEFPS         Z2, Z5, Z0             \
	VANDPS.BCST       vxAbs<>(SB), Z2, Z6    \
	VCMPPS.BCST       $0x1e, vx192<>(SB), Z6, K1 \
	KORTESTW          K1, K1                 \
	JNZ               big                    \
done:

// VEXPBIG sets the lanes in K1 (|n| > 192, Z2 = n) to +Inf where n > 0, else 0.
#define VEXPBIG(done) \
	VXORPS       Z6, Z6, Z6             \
	VMOVAPS      Z6, K1, Z0             \
	VCMPPS       $0x1e, Z6, Z2, K1, K2  \
	VBROADCASTSS vxInf<>(SB), K2, Z0    \
	JMP          done

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
	VXORPS.BCST vxSign<>(SB), Z12, Z0
	VEXP(vsbig, vsdone)
	VADDPS.BCST vxOne<>(SB), Z0, Z0
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
