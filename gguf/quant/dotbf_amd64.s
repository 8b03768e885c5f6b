//go:build amd64 && !noasm

#include "textflag.h"
#include "dot_amd64.h"

// The BF16 dot product in the reference build's arithmetic (AVX-512 BF16: VDPBF16PS), emulated with AVX2 + FMA:
// a lane of VDPBF16PS takes the elements 2j+1 and 2j of its 32-element step, in that order, each product
// (exact: a bf16 is the top half of a float32) added with one rounding. Lanes 0…7 live in one Y register and
// 8…15 in another: element 2j+1 is the high half of dword j of the loaded bytes (VPAND with 0xffff0000),
// element 2j its low half (VPSLLD $16).

DATA kBFHi<>+0(SB)/4, $0xffff0000
GLOBL kBFHi<>(SB), RODATA|NOPTR, $4

// BFHALF adds 16 elements at off(SI), off(DI) into the eight lanes ACC.
#define BFHALF(off, ACC) \
	VMOVDQU     off(SI), Y1     \
	VMOVDQU     off(DI), Y2     \
	VPAND       Y15, Y1, Y3     \
	VPAND       Y15, Y2, Y4     \
	VFMADD231PS Y4, Y3, ACC     \
	VPSLLD      $16, Y1, Y3     \
	VPSLLD      $16, Y2, Y4     \
	VFMADD231PS Y4, Y3, ACC

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
