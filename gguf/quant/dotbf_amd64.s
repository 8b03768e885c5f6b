//go:build amd64 && !noasm

#include "textflag.h"

// func dotBF16AVX2(n int, w, a *byte) float64
//
// Reference: DotBF16BF16, for n a positive multiple of 8, returning the float64 sum before its final
// rounding. The reference adds float64(x·y) one element at a time, so the additions stay sequential (one
// VADDSD per element, in element order); only the conversions (a bf16 is the top half of a float32) and
// the float32 products, eight at a time, are vectorized. Each product is the reference's: a float32
// multiplication rounded once, widened exactly.
TEXT ·dotBF16AVX2(SB), NOSPLIT, $0-32
	MOVQ   n+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	SHRQ   $3, CX
	VXORPD X0, X0, X0

bf16loop:
	PREFETCHT0   1024(SI)
	PREFETCHT0   1024(DI)
	VPMOVZXWD    (SI), Y1
	VPSLLD       $16, Y1, Y1
	VPMOVZXWD    (DI), Y2
	VPSLLD       $16, Y2, Y2
	VMULPS       Y2, Y1, Y1
	VCVTPS2PD    X1, Y2
	VEXTRACTF128 $1, Y1, X3
	VCVTPS2PD    X3, Y3
	VADDSD       X2, X0, X0
	VUNPCKHPD    X2, X2, X4
	VADDSD       X4, X0, X0
	VEXTRACTF128 $1, Y2, X2
	VADDSD       X2, X0, X0
	VUNPCKHPD    X2, X2, X4
	VADDSD       X4, X0, X0
	VADDSD       X3, X0, X0
	VUNPCKHPD    X3, X3, X4
	VADDSD       X4, X0, X0
	VEXTRACTF128 $1, Y3, X3
	VADDSD       X3, X0, X0
	VUNPCKHPD    X3, X3, X4
	VADDSD       X4, X0, X0
	ADDQ         $16, SI
	ADDQ         $16, DI
	DECQ         CX
	JNZ          bf16loop
	VZEROUPPER
	MOVSD        X0, ret+24(FP)
	RET
