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

// EXPFSTEPY: Y1 = Y1·r + C[k] (Horner), r in Y2.
#define EXPFSTEPY(k) \
	VBROADCASTSD expfC<>+k(SB), Y4 \
	VFMADD213PD  Y4, Y2, Y1

// func expfVecAVX2(n int, x, y *float32) int
//
// expfVecAVX512 with AVX2 and FMA, four lanes at a time in float64: the same operations (VROUNDPD for
// VRNDSCALEPD, k through int32 for VCVTPD2QQ: |k| ≤ 174 where x ≤ 0), so the same values and the same lanes
// left to the caller as NaN (counted in the return value). n is a multiple of 4.
TEXT ·expfVecAVX2(SB), NOSPLIT, $0-32
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	XORQ         AX, AX
	VBROADCASTSD expfLog2e<>(SB), Y10
	VBROADCASTSD expfLn2Hi<>(SB), Y11
	VBROADCASTSD expfLn2Lo<>(SB), Y12
	VBROADCASTSD expfFloor<>(SB), Y13
	VBROADCASTSD expfUp<>(SB), Y14
	VBROADCASTSD expfDown<>(SB), Y15
	VXORPS       X9, X9, X9
	MOVQ         $1023, DX
	MOVQ         DX, X8
	VPBROADCASTQ X8, Y8
	MOVL         $0x7fc00000, DX
	MOVQ         DX, X7
	VPBROADCASTD X7, X7 // a float32 NaN

loop2:
	TESTQ        CX, CX
	JZ           done2
	VMOVUPS      (SI), X6
	VCVTPS2PD    X6, Y0
	VCMPPS       $6, X9, X6, X6 // not (x ≤ 0): above 0 or NaN (NLE_UQ)
	VMAXPD       Y13, Y0, Y0
	VMULPD       Y10, Y0, Y3
	VROUNDPD     $0, Y3, Y3     // k, to nearest
	VMOVAPD      Y0, Y2
	VFNMADD231PD Y11, Y3, Y2    // r = x − k·hi
	VFNMADD231PD Y12, Y3, Y2    // r −= k·lo
	VBROADCASTSD expfC<>+0(SB), Y1
	EXPFSTEPY(8)
	EXPFSTEPY(16)
	EXPFSTEPY(24)
	EXPFSTEPY(32)
	EXPFSTEPY(40)
	EXPFSTEPY(48)
	EXPFSTEPY(56)
	EXPFSTEPY(64)
	EXPFSTEPY(72)
	EXPFSTEPY(80)
	EXPFSTEPY(88)
	EXPFSTEPY(96)
	VCVTPD2DQY   Y3, X3
	VPMOVSXDQ    X3, Y3
	VPADDQ       Y8, Y3, Y3
	VPSLLQ       $52, Y3, Y3    // 2^k
	VMULPD       Y3, Y1, Y1
	VMULPD       Y14, Y1, Y4
	VMULPD       Y15, Y1, Y5
	VCVTPD2PSY   Y1, X1
	VCVTPD2PSY   Y4, X4
	VCVTPD2PSY   Y5, X5
	VPCMPEQD     X5, X4, X4     // the two roundings agree
	VPANDN       X4, X6, X4     // and x ≤ 0: the lanes kept
	VBLENDVPS    X4, X1, X7, X1 // the others NaN
	VMOVUPS      X1, (DI)
	VMOVMSKPS    X4, DX
	POPCNTL      DX, DX
	ADDQ         $4, AX
	SUBQ         DX, AX
	ADDQ         $16, SI
	ADDQ         $16, DI
	SUBQ         $4, CX
	JMP          loop2

done2:
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
