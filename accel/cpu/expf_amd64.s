//go:build amd64 && !noasm

#include "textflag.h"

// Constants of expfVecAVX512 (float64).
DATA expfLog2e<>+0(SB)/8, $1.4426950408889634     // 1/ln 2
DATA expfLn2Hi<>+0(SB)/8, $6.93147180369123816490e-01 // ln 2, high part (k·hi is exact for |k| < 2^11)
DATA expfLn2Lo<>+0(SB)/8, $1.90821492927058770002e-10 // ln 2 − hi
DATA expfFloor<>+0(SB)/8, $-120.0                 // exp(−120) rounds to float32 0
DATA expfUp<>+0(SB)/8, $1.0000000000009095        // 1 + 2^−40
DATA expfDown<>+0(SB)/8, $0.9999999999990905     // 1 − 2^−40
DATA expfC<>+0(SB)/8, $2.08767569878680989792e-09 // 1/12!
DATA expfC<>+8(SB)/8, $2.50521083854417187751e-08 // 1/11!
DATA expfC<>+16(SB)/8, $2.75573192239858906526e-07 // 1/10!
DATA expfC<>+24(SB)/8, $2.75573192239858906526e-06 // 1/9!
DATA expfC<>+32(SB)/8, $2.48015873015873015873e-05 // 1/8!
DATA expfC<>+40(SB)/8, $1.98412698412698412698e-04 // 1/7!
DATA expfC<>+48(SB)/8, $1.38888888888888888889e-03 // 1/6!
DATA expfC<>+56(SB)/8, $8.33333333333333333333e-03 // 1/5!
DATA expfC<>+64(SB)/8, $4.16666666666666666667e-02 // 1/4!
DATA expfC<>+72(SB)/8, $1.66666666666666666667e-01 // 1/3!
DATA expfC<>+80(SB)/8, $0.5
DATA expfC<>+88(SB)/8, $1.0
DATA expfC<>+96(SB)/8, $1.0
GLOBL expfLog2e<>(SB), RODATA|NOPTR, $8
GLOBL expfLn2Hi<>(SB), RODATA|NOPTR, $8
GLOBL expfLn2Lo<>(SB), RODATA|NOPTR, $8
GLOBL expfFloor<>(SB), RODATA|NOPTR, $8
GLOBL expfUp<>(SB), RODATA|NOPTR, $8
GLOBL expfDown<>(SB), RODATA|NOPTR, $8
GLOBL expfC<>(SB), RODATA|NOPTR, $104

// EXPFSTEP: Z1 = Z1·r + C[k] (Horner).
#define EXPFSTEP(k) VFMADD213PD.BCST expfC<>+k(SB), Z2, Z1

// func expfVecAVX512(n int, x, y *float32) int
//
// y[i] = expf(x[i]) = float32(math.Exp(float64(x[i]))) for the first n (a multiple of 8) elements, eight at a
// time in float64: k = round(x/ln 2), r = x − k·ln 2 in two parts (|r| ≤ ln 2/2), exp(r) by its Taylor
// polynomial of degree 12 (relative error under 2^−50 with the FMAs' roundings), times 2^k. That value and
// math.Exp's both lie within 2^−40 of the true one, so where y·(1 ± 2^−40) round to the same float32 so do
// they; a lane where they do not, or whose x is above 0 or NaN, gets a NaN for the caller to recompute
// (the return value counts them). x below −120 is taken as −120 (the result is 0 either way).
TEXT ·expfVecAVX512(SB), NOSPLIT, $0-32
	MOVQ n+0(FP), CX
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DI
	XORQ AX, AX
	VBROADCASTSD expfLog2e<>(SB), Z10
	VBROADCASTSD expfLn2Hi<>(SB), Z11
	VBROADCASTSD expfLn2Lo<>(SB), Z12
	VBROADCASTSD expfFloor<>(SB), Z13
	VBROADCASTSD expfUp<>(SB), Z14
	VBROADCASTSD expfDown<>(SB), Z15
	VXORPD       Z16, Z16, Z16
	MOVQ         $1023, DX
	VPBROADCASTQ DX, Z17
	MOVL         $0x7fc00000, DX
	VPBROADCASTD DX, Y18 // a float32 NaN

loop:
	TESTQ       CX, CX
	JZ          done
	VCVTPS2PD   (SI), Z0
	VCMPPD      $6, Z16, Z0, K1 // not (x ≤ 0): above 0 or NaN (NLE_UQ)
	VMAXPD      Z13, Z0, Z0
	VMULPD      Z10, Z0, Z3
	VRNDSCALEPD $0, Z3, Z3     // k, to nearest
	VMOVAPD     Z0, Z2
	VFNMADD231PD Z11, Z3, Z2   // r = x − k·hi
	VFNMADD231PD Z12, Z3, Z2   // r −= k·lo
	VBROADCASTSD expfC<>+0(SB), Z1
	EXPFSTEP(8)
	EXPFSTEP(16)
	EXPFSTEP(24)
	EXPFSTEP(32)
	EXPFSTEP(40)
	EXPFSTEP(48)
	EXPFSTEP(56)
	EXPFSTEP(64)
	EXPFSTEP(72)
	EXPFSTEP(80)
	EXPFSTEP(88)
	EXPFSTEP(96)
	VCVTPD2QQ   Z3, Z3
	VPADDQ      Z17, Z3, Z3
	VPSLLQ      $52, Z3, Z3    // 2^k
	VMULPD      Z3, Z1, Z1
	VMULPD      Z14, Z1, Z4
	VMULPD      Z15, Z1, Z5
	VCVTPD2PS   Z1, Y1
	VCVTPD2PS   Z4, Y4
	VCVTPD2PS   Z5, Y5
	VPCMPD      $4, Y5, Y4, K2 // the two roundings differ (NE)
	KORB        K2, K1, K1
	VMOVDQA32   Y18, K1, Y1
	VMOVUPS     Y1, (DI)
	KMOVB       K1, DX
	POPCNTL     DX, DX
	ADDQ        DX, AX
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         loop

done:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
