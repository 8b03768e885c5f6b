//go:build amd64 && !noasm

#include "textflag.h"
#include "dot_amd64.h"

// The BF16 dot product in the reference build's arithmetic (AVX-512 BF16: VDPBF16PS, bfStep), emulated with
// AVX2 + FMA: a lane of VDPBF16PS takes the elements 2j+1 and 2j of its 32-element step, in that order, each
// product (exact: a bf16 is the top half of a float32) added with one rounding, denormal inputs taken as zero
// and a denormal sum flushed to zero (of its sign) after each addition. Lanes 0…7 live in one Y register and
// 8…15 in another: element 2j+1 is the high half of dword j of the loaded bytes (VPAND with 0xffff0000),
// element 2j its low half (VPSLLD $16). The flushes compare exponent bits with zero: FMA's own flush-to-zero
// would need MXCSR's, which the instruction ignores and Go leaves clear.
// Constants: Y12 zero, Y13 0x7f800000 (float32 exponent), Y14 0x7f80 in each word (bf16 exponent), Y15
// 0xffff0000.

DATA kBFHi<>+0(SB)/4, $0xffff0000
GLOBL kBFHi<>(SB), RODATA|NOPTR, $4
DATA kBFExp16<>+0(SB)/4, $0x7f807f80
GLOBL kBFExp16<>(SB), RODATA|NOPTR, $4
DATA kBFExp32<>+0(SB)/4, $0x7f800000
GLOBL kBFExp32<>(SB), RODATA|NOPTR, $4

// BFDAZ sets each denormal bf16 word of R to a zero of its sign (the others keep their bits); clobbers T.
#define BFDAZ(R, T) \
	VPAND    Y14, R, T \
	VPCMPEQW Y12, T, T \
	VPSRLW   $1, T, T  \
	VPANDN   R, T, R

// BFFTZ sets each denormal float32 lane of R to a zero of its sign; clobbers T.
#define BFFTZ(R, T) \
	VPAND    Y13, R, T \
	VPCMPEQD Y12, T, T \
	VPSRLD   $1, T, T  \
	VPANDN   R, T, R

// BFHALF adds 16 elements at off(SI), off(DI) into the eight lanes ACC.
#define BFHALF(off, ACC) \
	VMOVDQU     off(SI), Y1     \
	VMOVDQU     off(DI), Y2     \
	BFDAZ(Y1, Y5)               \
	BFDAZ(Y2, Y6)               \
	VPAND       Y15, Y1, Y3     \
	VPAND       Y15, Y2, Y4     \
	VFMADD231PS Y4, Y3, ACC     \
	BFFTZ(ACC, Y5)              \
	VPSLLD      $16, Y1, Y3     \
	VPSLLD      $16, Y2, Y4     \
	VFMADD231PS Y4, Y3, ACC     \
	BFFTZ(ACC, Y6)

// BFSTEP adds the 32-element step at off into the 16 lanes LO (0…7) and HI (8…15).
#define BFSTEP(off, LO, HI) \
	BFHALF(off, LO) \
	BFHALF(off+32, HI)

// REDUCE16 leaves _mm512_reduce_add_ps of the 16 lanes LO, HI in X0. Clobbers Y0…Y2.
#define REDUCE16(LO, HI) \
	VADDPS LO, HI, Y0 \
	HSUM8

// func dotBF16VecAVX2(n int, w, a *byte) float64
//
// Reference: DotBF16BF16's vector part for n a positive multiple of 64 (ggml_vec_dot_bf16, AVX-512 BF16): two
// sets of 16 lanes, for the first and the second 32 elements of every 64, each reduced as
// _mm512_reduce_add_ps; returns their sum in float64.
TEXT ·dotBF16VecAVX2(SB), NOSPLIT, $0-32
	MOVQ         n+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	SHRQ         $6, CX
	VPXOR        Y12, Y12, Y12
	VPBROADCASTD kBFExp32<>(SB), Y13
	VPBROADCASTD kBFExp16<>(SB), Y14
	VPBROADCASTD kBFHi<>(SB), Y15
	VXORPS       Y8, Y8, Y8
	VXORPS       Y9, Y9, Y9
	VXORPS       Y10, Y10, Y10
	VXORPS       Y11, Y11, Y11

bfvloop:
	PREFETCHT0 4096(SI)
	PREFETCHT0 4096+64(SI)
	BFSTEP(0, Y8, Y9)
	BFSTEP(64, Y10, Y11)
	ADDQ       $128, SI
	ADDQ       $128, DI
	DECQ       CX
	JNZ        bfvloop
	REDUCE16(Y8, Y9)
	VCVTSS2SD  X0, X0, X6
	REDUCE16(Y10, Y11)
	VCVTSS2SD  X0, X0, X7
	VADDSD     X7, X6, X6
	VZEROUPPER
	MOVSD      X6, ret+24(FP)
	RET

#include "bf16_amd64.h"

// func vdpbf16ps(acc *[16]float32, w, a *[32]uint16)
//
// One VDPBF16PS of the 32 bf16 at w and a into the 16 lanes at acc: the instruction itself, for the tests
// that hold bfStep to it (CPUs with AVX-512 BF16).
TEXT ·vdpbf16ps(SB), NOSPLIT, $0-24
	MOVQ      acc+0(FP), AX
	MOVQ      w+8(FP), BX
	MOVQ      a+16(FP), CX
	VMOVDQU32 (AX), Z0
	VMOVDQU32 (BX), Z1
	VMOVDQU32 (CX), Z2
	VDPBF16PS(0, 1, 2)
	VMOVDQU32 Z0, (AX)
	VZEROUPPER
	RET

// func dotBF16VecBF16(n int, w, a *byte) float64
//
// dotBF16VecAVX2 with the instruction itself (AVX-512 BF16): set 1 in Z0, set 2 in Z5, one VDPBF16PS each per
// 64 elements.
TEXT ·dotBF16VecBF16(SB), NOSPLIT, $0-32
	MOVQ   n+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	SHRQ   $6, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z5, Z5, Z5

bnloop:
	PREFETCHT0 4096(SI)
	PREFETCHT0 4096+64(SI)
	VMOVDQU32  (SI), Z1
	VMOVDQU32  (DI), Z2
	VDPBF16PS(0, 1, 2)
	VMOVDQU32  64(SI), Z3
	VMOVDQU32  64(DI), Z4
	VDPBF16PS(5, 3, 4)
	ADDQ       $128, SI
	ADDQ       $128, DI
	DECQ       CX
	JNZ        bnloop
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	HSUM8
	VCVTSS2SD     X0, X0, X6
	VEXTRACTF64X4 $1, Z5, Y1
	VADDPS        Y1, Y5, Y0
	HSUM8
	VCVTSS2SD     X0, X0, X7
	VADDSD        X7, X6, X6
	VZEROUPPER
	MOVSD         X6, ret+24(FP)
	RET
