//go:build amd64 && !noasm

#include "textflag.h"

// ggml_v_expf on 16 float32 lanes with AVX-512 (hand-written): the same operations as vexpf (math.go), so
// every lane is bit-identical to it.

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
DATA vx126<>+0(SB)/4, $126.0
GLOBL vx126<>(SB), RODATA|NOPTR, $4
DATA vx192<>+0(SB)/4, $192.0
GLOBL vx192<>(SB), RODATA|NOPTR, $4
DATA vxNeg<>+0(SB)/4, $0x82000000
GLOBL vxNeg<>(SB), RODATA|NOPTR, $4
DATA vxBias<>+0(SB)/4, $0x7f000000
GLOBL vxBias<>(SB), RODATA|NOPTR, $4

// VEXP sets Z0 = vexpf(Z0); clobbers Z1…Z9, K1, K2. Step by step as vexpf: z = x·log2e + shift (Z1),
// n = z − shift (Z2), b = x − n·ln2hi − n·ln2lo (Z3), e = bits(z) << 23 (Z4), k = e + bits(1) (Z5),
// u = b² (Z6), j = ((c5·b + c4)·u + (c3·b + c2))·u + c1·b (Z7), result k·j + k. Lanes with |n| > 126
// (results near or past the float range) take the rarely used branch to big, vexpf's second path.
#define VEXP(big, done) \
	VBROADCASTSS     vxShift<>(SB), Z1      \
	VFMADD231PS.BCST vxLog2e<>(SB), Z0, Z1  \
	VSUBPS.BCST      vxShift<>(SB), Z1, Z2  \
	VMOVAPS          Z0, Z3                 \
	VFNMADD231PS.BCST vxLn2Hi<>(SB), Z2, Z3 \
	VFNMADD231PS.BCST vxLn2Lo<>(SB), Z2, Z3 \
	VPSLLD           $23, Z1, Z4            \
	VPADDD.BCST      vxOne<>(SB), Z4, Z5    \
	VMULPS           Z3, Z3, Z6             \
	VBROADCASTSS     vxC4<>(SB), Z7         \
	VFMADD231PS.BCST vxC5<>(SB), Z3, Z7     \
	VBROADCASTSS     vxC2<>(SB), Z8         \
	VFMADD231PS.BCST vxC3<>(SB), Z3, Z8     \
	VFMADD213PS      Z8, Z6, Z7             \
	VMULPS.BCST      vxC1<>(SB), Z3, Z9     \
	VFMADD213PS      Z9, Z6, Z7             \
	VANDPS.BCST      vxAbs<>(SB), Z2, Z9    \
	VCMPPS.BCST      $0x1e, vx126<>(SB), Z9, K1 \
	KORTESTW         K1, K1                 \
	JNZ              big                    \
	VFMADD213PS      Z5, Z5, Z7             \
	VMOVAPS          Z7, Z0                 \
done:

// VEXPBIG is the other path of VEXP for the lanes in K1 (Z2 = n, Z4 = e, Z5 = k, Z7 = j, Z9 = |n|):
// g = 0x82000000 where n ≤ 0, s1 = bits(g + 0x7f000000), s2 = bits(e − g), result (s2·j + s2)·s1, or s1·s1
// where |n| > 192; the other lanes get k·j + k.
#define VEXPBIG(done) \
	VMOVAPS          Z7, Z0                 \
	VFMADD213PS      Z5, Z5, Z0             \
	VXORPS           Z1, Z1, Z1             \
	VCMPPS           $0x12, Z1, Z2, K2      \
	VPBROADCASTD     vxNeg<>(SB), K2, Z1    \
	VPADDD.BCST      vxBias<>(SB), Z1, Z6   \
	VPSUBD           Z1, Z4, Z8             \
	VFMADD213PS      Z8, Z8, Z7             \
	VMULPS           Z6, Z7, K1, Z0         \
	VCMPPS.BCST      $0x1e, vx192<>(SB), Z9, K2 \
	VMULPS           Z6, Z6, K2, Z0         \
	JMP              done

// func vexpSumAVX512(n int, x, y *float32, m float32) float64
//
// Reference: expSum's loop (y = vexpf(x − m), Σy in float64), n a multiple of 16; the float64 sum is kept
// in 8 lanes.
TEXT ·vexpSumAVX512(SB), NOSPLIT, $0-40
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS m+24(FP), Z15
	VXORPD       Z14, Z14, Z14
	VXORPD       Z13, Z13, Z13
	SHRQ         $4, CX

vesloop:
	VMOVUPS (SI), Z0
	VSUBPS  Z15, Z0, Z0
	VEXP(vesbig, vesdone)
	VMOVUPS      Z0, (DI)
	VCVTPS2PD    Y0, Z10
	VEXTRACTF32X8 $1, Z0, Y11
	VCVTPS2PD    Y11, Z11
	VADDPD       Z10, Z14, Z14
	VADDPD       Z11, Z13, Z13
	ADDQ         $64, SI
	ADDQ         $64, DI
	DECQ         CX
	JNZ          vesloop
	VADDPD        Z13, Z14, Z14
	VEXTRACTF64X4 $1, Z14, Y13
	VADDPD        Y13, Y14, Y14
	VEXTRACTF128  $1, Y14, X13
	VADDPD        X13, X14, X14
	VMOVHLPS      X14, X14, X13
	VADDSD        X13, X14, X14
	VZEROUPPER
	MOVSD         X14, ret+32(FP)
	RET

vesbig:
	VEXPBIG(vesdone)

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

DATA vxNegInf<>+0(SB)/4, $0xff800000
GLOBL vxNegInf<>(SB), RODATA|NOPTR, $4

// func scaleMaxAVX512(n int, x *float32, f float32) float32
//
// Reference: scaleMaxVec's loop (x *= f, running max), n a multiple of 16.
TEXT ·scaleMaxAVX512(SB), NOSPLIT, $0-28
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	VBROADCASTSS f+16(FP), Z1
	VBROADCASTSS vxNegInf<>(SB), Z2
	SHRQ         $4, CX

smloop:
	VMULPS  (SI), Z1, Z0
	VMOVUPS Z0, (SI)
	VMAXPS  Z0, Z2, Z2
	ADDQ    $64, SI
	DECQ    CX
	JNZ     smloop
	VEXTRACTF64X4 $1, Z2, Y3
	VMAXPS        Y3, Y2, Y2
	VEXTRACTF128  $1, Y2, X3
	VMAXPS        X3, X2, X2
	VMOVHLPS      X2, X2, X3
	VMAXPS        X3, X2, X2
	VMOVSHDUP     X2, X3
	VMAXSS        X3, X2, X2
	VZEROUPPER
	MOVSS         X2, ret+24(FP)
	RET

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
