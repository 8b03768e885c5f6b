//go:build amd64 && !noasm

#include "textflag.h"
#include "dot_amd64.h"

// The BF16 dot product in the reference build's arithmetic (AVX-512 BF16: VDPBF16PS, bfStep), emulated with
// AVX2 + FMA: a lane of VDPBF16PS takes the elements 2j+1 and 2j of its 32-element step, in that order, each
// product (exact: a bf16 is the top half of a float32) added with one rounding. Lanes 0…7 live in one Y
// register and 8…15 in another: element 2j+1 is the high half of dword j of the loaded bytes (VPAND with
// 0xffff0000), element 2j its low half (VPSLLD $16).
// The instruction also takes denormal inputs as zero and flushes each sum that is tiny after its rounding to
// 24 bits, which an FMA does not do (MXCSR's DAZ and FTZ around the FMAs are not the instruction either: on
// Zen 4 they differed in 486 of 6,667 rows whose sums cross 2^-126). Where neither can matter, the FMAs give
// the instruction's bits: so the kernel only detects a pair of elements whose smaller
// magnitude is a nonzero denormal (a denormal times a zero is a zero either way) and a sum of magnitude in
// (0, 2^-126] (2^-126 itself: the FMA rounds a sum just under it up to it, at the denormals' step, where the
// instruction may stay under and flush), and returns exact false for the caller to take the reference. Real
// weights and activations never have either.
// The tests are folded into running maxima, compared once at the end. Constants: Y0 0x7f80 in each word,
// Y13 0x7fffffff, Y14 0x7f7fffff, Y15 0xffff0000, kBFAbs16 0x7fff in each word: for a magnitude m of 16 (32)
// bits, m + 0x7f80 > 0x7f80 (m + 0x7f7fffff > 0x7f7fffff) as signed integers exactly when 0 < m ≤ 0x7f
// (0 < m ≤ 0x00800000). Y12 and Y7 hold the maxima of the 16-bit and the 32-bit sums.

DATA kBFHi<>+0(SB)/4, $0xffff0000
GLOBL kBFHi<>(SB), RODATA|NOPTR, $4
DATA kBFAbs16<>+0(SB)/8, $0x7fff7fff7fff7fff
DATA kBFAbs16<>+8(SB)/8, $0x7fff7fff7fff7fff
DATA kBFAbs16<>+16(SB)/8, $0x7fff7fff7fff7fff
DATA kBFAbs16<>+24(SB)/8, $0x7fff7fff7fff7fff
GLOBL kBFAbs16<>(SB), RODATA|NOPTR, $32
DATA kBFDen16<>+0(SB)/4, $0x7f807f80
GLOBL kBFDen16<>(SB), RODATA|NOPTR, $4
DATA kBFAbs32<>+0(SB)/4, $0x7fffffff
GLOBL kBFAbs32<>(SB), RODATA|NOPTR, $4
DATA kBFTiny32<>+0(SB)/4, $0x7f7fffff
GLOBL kBFTiny32<>(SB), RODATA|NOPTR, $4

// BFDEN folds into Y12 the words' smaller magnitude of W's and A's, plus 0x7f80; clobbers T, U.
#define BFDEN(W, A, T, U) \
	VPAND   kBFAbs16<>(SB), W, T \
	VPAND   kBFAbs16<>(SB), A, U \
	VPMINUW U, T, T              \
	VPADDW  Y0, T, T             \
	VPMAXSW T, Y12, Y12

// BFTINY folds into Y7 the lanes' magnitude of R plus 0x7f7fffff; clobbers T.
#define BFTINY(R, T) \
	VPAND   Y13, R, T \
	VPADDD  Y14, T, T \
	VPMAXSD T, Y7, Y7

// BFHALF adds 16 elements at off(SI), off(DI) into the eight lanes ACC.
#define BFHALF(off, ACC) \
	VMOVDQU     off(SI), Y1     \
	VMOVDQU     off(DI), Y2     \
	BFDEN(Y1, Y2, Y5, Y6)       \
	VPAND       Y15, Y1, Y3     \
	VPAND       Y15, Y2, Y4     \
	VFMADD231PS Y4, Y3, ACC     \
	BFTINY(ACC, Y5)             \
	VPSLLD      $16, Y1, Y3     \
	VPSLLD      $16, Y2, Y4     \
	VFMADD231PS Y4, Y3, ACC     \
	BFTINY(ACC, Y6)

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
// _mm512_reduce_add_ps; returns their sum in float64, and exact false where a flush of the instruction may
// have changed it (see above: the caller takes the reference).
TEXT ·dotBF16VecAVX2(SB), NOSPLIT, $0-33
	MOVQ         n+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	SHRQ         $6, CX
	VPBROADCASTD kBFDen16<>(SB), Y0
	VPBROADCASTD kBFAbs32<>(SB), Y13
	VPBROADCASTD kBFTiny32<>(SB), Y14
	VMOVDQU      Y0, Y12
	VMOVDQU      Y14, Y7
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
	VPCMPGTW   Y0, Y12, Y12
	VPCMPGTD   Y14, Y7, Y7
	VPOR       Y12, Y7, Y7
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
// 64 elements. No software prefetch: the hardware's keeps up with this loop, and PREFETCHT0 4 KiB ahead made
// tinyllama's BF16 decode slower (two threads, alternating: 11.9–16.8 against 14.3–19.4 t/s without).
TEXT ·dotBF16VecBF16(SB), NOSPLIT, $0-32
	MOVQ   n+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	SHRQ   $6, CX
	VPXORD Z0, Z0, Z0
	VPXORD Z5, Z5, Z5

bnloop:
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
