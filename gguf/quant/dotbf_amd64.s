//go:build amd64 && !noasm

#include "textflag.h"
#include "dot_amd64.h"

// The BF16 dot product in the reference build's arithmetic (AVX-512 BF16: VDPBF16PS, bfStep), emulated with
// AVX2 + FMA: a lane of VDPBF16PS takes the elements 2j+1 and 2j of its 32-element step, in that order, each
// product (exact: a bf16 is the top half of a float32) added with one rounding, denormal inputs taken as zero
// and a denormal sum flushed to zero (of its sign) after each addition. Lanes 0…7 live in one Y register and
// 8…15 in another: element 2j+1 is the high half of dword j of the loaded bytes (VPAND with 0xffff0000),
// element 2j its low half (VPSLLD $16). The flushes compare bits: MXCSR's DAZ and FTZ around the FMAs are not
// the instruction (on Zen 4 they differed in 486 of 6,667 rows whose sums cross 2^-126).
// An FMA rounds a sum under 2^-126 at the denormals' coarser step, where the instruction rounds to 24 bits
// first: a sum just under 2^-126 (within 2^-150) becomes 2^-126 there, which the instruction flushes when its
// own rounding stays under. The kernel marks every lane that lands on ±2^-126 (Y7, sticky), and its caller
// takes the reference for such a row.
// Constants: Y12 zero, Y13 0x7fffffff (float32 magnitude), Y14 0x7f80 in each word (bf16 exponent), Y15
// 0xffff0000; kBFMaxDen 0x007fffff and kBFMinNorm 0x00800000 in each lane.

DATA kBFHi<>+0(SB)/4, $0xffff0000
GLOBL kBFHi<>(SB), RODATA|NOPTR, $4
DATA kBFExp16<>+0(SB)/4, $0x7f807f80
GLOBL kBFExp16<>(SB), RODATA|NOPTR, $4
DATA kBFAbs32<>+0(SB)/4, $0x7fffffff
GLOBL kBFAbs32<>(SB), RODATA|NOPTR, $4
DATA kBFMaxDen<>+0(SB)/8, $0x007fffff007fffff
DATA kBFMaxDen<>+8(SB)/8, $0x007fffff007fffff
DATA kBFMaxDen<>+16(SB)/8, $0x007fffff007fffff
DATA kBFMaxDen<>+24(SB)/8, $0x007fffff007fffff
GLOBL kBFMaxDen<>(SB), RODATA|NOPTR, $32
DATA kBFMinNorm<>+0(SB)/8, $0x0080000000800000
DATA kBFMinNorm<>+8(SB)/8, $0x0080000000800000
DATA kBFMinNorm<>+16(SB)/8, $0x0080000000800000
DATA kBFMinNorm<>+24(SB)/8, $0x0080000000800000
GLOBL kBFMinNorm<>(SB), RODATA|NOPTR, $32

// BFDAZ sets each denormal bf16 word of R to a zero of its sign (the others keep their bits); clobbers T.
#define BFDAZ(R, T) \
	VPAND    Y14, R, T \
	VPCMPEQW Y12, T, T \
	VPSRLW   $1, T, T  \
	VPANDN   R, T, R

// BFFTZ sets each denormal float32 lane of R to a zero of its sign and marks in Y7 the lanes at ±2^-126;
// clobbers T and U.
#define BFFTZ(R, T, U) \
	VPAND    Y13, R, T              \
	VPCMPEQD kBFMinNorm<>(SB), T, U \
	VPOR     U, Y7, Y7              \
	VPCMPGTD kBFMaxDen<>(SB), T, U  \
	VPANDN   Y13, U, T              \
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
	BFFTZ(ACC, Y5, Y6)          \
	VPSLLD      $16, Y1, Y3     \
	VPSLLD      $16, Y2, Y4     \
	VFMADD231PS Y4, Y3, ACC     \
	BFFTZ(ACC, Y5, Y6)

// BFSTEP adds the 32-element step at off into the 16 lanes LO (0…7) and HI (8…15).
#define BFSTEP(off, LO, HI) \
	BFHALF(off, LO) \
	BFHALF(off+32, HI)

// REDUCE16 leaves _mm512_reduce_add_ps of the 16 lanes LO, HI in X0. Clobbers Y0…Y2.
#define REDUCE16(LO, HI) \
	VADDPS LO, HI, Y0 \
	HSUM8

// func dotBF16VecAVX2(n int, w, a *byte) (sum float64, exact bool)
//
// Reference: DotBF16BF16's vector part for n a positive multiple of 64 (ggml_vec_dot_bf16, AVX-512 BF16): two
// sets of 16 lanes, for the first and the second 32 elements of every 64, each reduced as
// _mm512_reduce_add_ps; returns their sum in float64, and exact false where a lane landed on ±2^-126 (see
// above: the caller takes the reference).
TEXT ·dotBF16VecAVX2(SB), NOSPLIT, $0-33
	MOVQ         n+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	SHRQ         $6, CX
	VPXOR        Y12, Y12, Y12
	VPXOR        Y7, Y7, Y7
	VPBROADCASTD kBFAbs32<>(SB), Y13
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
	VPTEST     Y7, Y7
	SETEQ      exact+32(FP)
	REDUCE16(Y8, Y9)
	VCVTSS2SD  X0, X0, X6
	REDUCE16(Y10, Y11)
	VCVTSS2SD  X0, X0, X7
	VADDSD     X7, X6, X6
	VZEROUPPER
	MOVSD      X6, sum+24(FP)
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
