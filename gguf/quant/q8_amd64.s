//go:build amd64 && !noasm

#include "textflag.h"

DATA q8abs<>+0(SB)/4, $0x7fffffff
GLOBL q8abs<>(SB), RODATA|NOPTR, $4

DATA q8c127<>+0(SB)/4, $127.0
GLOBL q8c127<>(SB), RODATA|NOPTR, $4

DATA q8perm<>+0(SB)/4, $0
DATA q8perm<>+4(SB)/4, $4
DATA q8perm<>+8(SB)/4, $1
DATA q8perm<>+12(SB)/4, $5
DATA q8perm<>+16(SB)/4, $2
DATA q8perm<>+20(SB)/4, $6
DATA q8perm<>+24(SB)/4, $3
DATA q8perm<>+28(SB)/4, $7
GLOBL q8perm<>(SB), RODATA|NOPTR, $32

// func quantizeQ8AVX2(nb int, src *float32, qs *byte, stride int, d *float32, sums *int32)
//
// Reference: quantizeQ8x86 per block (amax = max |x|, d = amax/127, q = round-half-even(x·(127/amax)),
// saturated to int8, Σq), which it equals for finite input (hand-written; the pack/permute is ggml's).
TEXT ·quantizeQ8AVX2(SB), NOSPLIT, $0-48
	MOVQ         nb+0(FP), CX
	MOVQ         src+8(FP), SI
	MOVQ         qs+16(FP), DI
	MOVQ         stride+24(FP), R8
	MOVQ         d+32(FP), R9
	MOVQ         sums+40(FP), R10
	VBROADCASTSS q8abs<>(SB), Y15
	VMOVSS       q8c127<>(SB), X14
	VMOVDQU      q8perm<>(SB), Y13
	VXORPS       X12, X12, X12

q8block:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VANDPS  Y15, Y0, Y4
	VANDPS  Y15, Y1, Y5
	VANDPS  Y15, Y2, Y6
	VANDPS  Y15, Y3, Y7
	VMAXPS  Y5, Y4, Y4
	VMAXPS  Y7, Y6, Y6
	VMAXPS  Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VMAXPS  X5, X4, X4
	VMOVHLPS X4, X4, X5
	VMAXPS  X5, X4, X4
	VMOVSHDUP X4, X5
	VMAXSS  X5, X4, X4           // amax
	VDIVSS  X14, X4, X5          // d = amax/127
	VMOVSS  X5, (R9)
	VDIVSS  X4, X14, X6          // 127/amax
	VCMPSS  $4, X12, X4, X7      // amax != 0 (or NaN)
	VANDPS  X7, X6, X6           // id
	VBROADCASTSS X6, Y6
	VMULPS  Y6, Y0, Y0
	VMULPS  Y6, Y1, Y1
	VMULPS  Y6, Y2, Y2
	VMULPS  Y6, Y3, Y3
	VCVTPS2DQ Y0, Y0
	VCVTPS2DQ Y1, Y1
	VCVTPS2DQ Y2, Y2
	VCVTPS2DQ Y3, Y3
	VPADDD  Y1, Y0, Y8
	VPADDD  Y3, Y2, Y9
	VPADDD  Y9, Y8, Y8
	VEXTRACTI128 $1, Y8, X9
	VPADDD  X9, X8, X8
	VPSHUFD $0x4e, X8, X9
	VPADDD  X9, X8, X8
	VPSHUFD $0xb1, X8, X9
	VPADDD  X9, X8, X8
	VMOVD   X8, (R10)
	VPACKSSDW Y1, Y0, Y0
	VPACKSSDW Y3, Y2, Y2
	VPACKSSWB Y2, Y0, Y0
	VPERMD  Y0, Y13, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $128, SI
	ADDQ    R8, DI
	ADDQ    $4, R9
	ADDQ    $4, R10
	DECQ    CX
	JNZ     q8block
	VZEROUPPER
	RET
