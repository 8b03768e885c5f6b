//go:build amd64 && !noasm

#include "textflag.h"
#include "zero_amd64.h"

// Kernel on stored Q8_0x16S groups (gemm_stored.go: the Q8_0x16 arrangement, quants signed) for CPUs with AVX2
// but without AVX-512 VNNI, in DotQ8_0Q8_0's arithmetic: a 256-bit register holds quant dword g (elements
// 4g…4g+3) of 8 of the group's rows (lane r = row 8h+r of half h), so each of the reference's eight float32
// lanes of a (row, column) pair is the lane of one of eight accumulators.
//
// Per group, llama.cpp's own AVX2 sign trick: VPMADDUBSW multiplies |q| (VPABSB, an unsigned byte ≤ 128) with
// the broadcast activation bytes carrying q's sign (VPSIGNB; in the column-pair kernel two byte operations
// with q's sign mask, off the multiply ports), and VPMADDWD with ones adds the two int16 pair
// sums into the exact Σ q·y of the group. |q|·|y| ≤ 128·127, so a pair sum fits an int16, and ±y is exact,
// for activation quants in −127…127 (the Gemm's act127), not the −128 an arbitrary Q8_0 row may hold:
// QuantizeActivation rounds x·127/max|x|, which stays within ±127 except where 127/max|x| overflows, in
// blocks whose f16 scale is then 0, so that their quants do not change the sum.

// Q8VG adds group g of the 16 rows (quants at qo(SI): rows 0…7, then 8…15) times the column's quant dword at
// ao(R8) into the group's accumulators: rows 0…7 in ACC (scaled by Y13), rows 8…15 in the frame at so(SP)
// (scaled by Y14). Y12 holds int16 ones.
#define Q8VG(qo, ao, ACC, so) \
	VPBROADCASTD ao(R8), Y15     \
	VMOVDQU      qo(SI), Y8      \
	VMOVDQU      qo+32(SI), Y9   \
	VPSIGNB      Y8, Y15, Y10    \
	VPSIGNB      Y9, Y15, Y11    \
	VPABSB       Y8, Y8          \
	VPABSB       Y9, Y9          \
	VPMADDUBSW   Y10, Y8, Y10    \
	VPMADDUBSW   Y11, Y9, Y11    \
	VPMADDWD     Y12, Y10, Y10   \
	VPMADDWD     Y12, Y11, Y11   \
	VCVTDQ2PS    Y10, Y10        \
	VCVTDQ2PS    Y11, Y11        \
	VFMADD231PS  Y13, Y10, ACC   \
	VMOVUPS      so(SP), Y9      \
	VFMADD231PS  Y14, Y11, Y9    \
	VMOVUPS      Y9, so(SP)

// LANESUM adds the eight group accumulators Y0…Y7 into Y0 as lanes8.sum adds a pair's lanes:
// ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)).
#define LANESUM \
	VADDPS Y4, Y0, Y0 \
	VADDPS Y6, Y2, Y2 \
	VADDPS Y5, Y1, Y1 \
	VADDPS Y7, Y3, Y3 \
	VADDPS Y2, Y0, Y0 \
	VADDPS Y3, Y1, Y1 \
	VADDPS Y1, Y0, Y0

// func gemv16Q8xAVX2(nb int, p, a *byte, out *float32)
//
// Reference: DotQ8_0Q8_0 (mulQ8_0x16SRef) for the 16 rows of one stored Q8_0x16S group (nb blocks at p) and
// the Q8_0S column at a: out[r]. One pass over the stored lines (decode streams them once) with each
// activation dword broadcast once for both halves; the second half's eight accumulators live in the frame.
TEXT ·gemv16Q8xAVX2(SB), NOSPLIT, $256-32
	MOVQ         nb+0(FP), CX
	MOVQ         p+8(FP), SI
	MOVQ         a+16(FP), R8
	MOVQ         out+24(FP), DI
	MOVL         $0x00010001, AX
	MOVD         AX, X12
	VPBROADCASTD X12, Y12
	ZERO8Y(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	VMOVUPS      Y0, 0(SP)
	VMOVUPS      Y0, 32(SP)
	VMOVUPS      Y0, 64(SP)
	VMOVUPS      Y0, 96(SP)
	VMOVUPS      Y0, 128(SP)
	VMOVUPS      Y0, 160(SP)
	VMOVUPS      Y0, 192(SP)
	VMOVUPS      Y0, 224(SP)

q8vblock:
	VCVTPH2PS    (SI), Y13
	VCVTPH2PS    16(SI), Y14
	VBROADCASTSS (R8), Y15
	VMULPS       Y15, Y13, Y13
	VMULPS       Y15, Y14, Y14
	Q8VG(32, 8, Y0, 0)
	Q8VG(96, 12, Y1, 32)
	Q8VG(160, 16, Y2, 64)
	Q8VG(224, 20, Y3, 96)
	Q8VG(288, 24, Y4, 128)
	Q8VG(352, 28, Y5, 160)
	Q8VG(416, 32, Y6, 192)
	Q8VG(480, 36, Y7, 224)
	ADDQ         $544, SI
	ADDQ         $40, R8
	DECQ         CX
	JNZ          q8vblock

	LANESUM
	VMOVUPS Y0, (DI)
	VMOVUPS 0(SP), Y0
	VMOVUPS 32(SP), Y1
	VMOVUPS 64(SP), Y2
	VMOVUPS 96(SP), Y3
	VMOVUPS 128(SP), Y4
	VMOVUPS 160(SP), Y5
	VMOVUPS 192(SP), Y6
	VMOVUPS 224(SP), Y7
	LANESUM
	VMOVUPS Y0, 32(DI)
	VZEROUPPER
	RET

// func dotQ8_0Q8SAVX2(nb int, w, a *byte) float32
//
// Reference: DotQ8_0Q8_0 of one Q8_0 row (original layout) with one Q8_0S row: Mul's path for few columns.
// Both sides sign-extended to int16 (exact for every quant), VPMADDWD and VPHADDD make the group sums, VPERMQ
// puts group i in lane i; the lanes are added at the end as lanes8.sum does.
TEXT ·dotQ8_0Q8SAVX2(SB), NOSPLIT, $0-28
	MOVQ   nb+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	VXORPS Y0, Y0, Y0

q8sdot:
	MOVWLZX      (SI), AX
	VMOVD        AX, X2
	VCVTPH2PS    X2, X2
	VMULSS       (DI), X2, X2
	VBROADCASTSS X2, Y2
	VPMOVSXBW    2(SI), Y3
	VPMOVSXBW    18(SI), Y4
	VPMOVSXBW    8(DI), Y5
	VPMOVSXBW    24(DI), Y6
	VPMADDWD     Y5, Y3, Y3
	VPMADDWD     Y6, Y4, Y4
	VPHADDD      Y4, Y3, Y3
	VPERMQ       $0xd8, Y3, Y3
	VCVTDQ2PS    Y3, Y3
	VFMADD231PS  Y3, Y2, Y0
	ADDQ         $34, SI
	ADDQ         $40, DI
	DECQ         CX
	JNZ          q8sdot

	VEXTRACTF128 $1, Y0, X1 // lanes8.sum
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// Q8X2HEAD puts one block's dw·da of the columns at R8 and DX into Y13 and Y14 (dw: the half's scales at SI).
#define Q8X2HEAD \
	VCVTPH2PS    (SI), Y15     \
	VBROADCASTSS (R8), Y13     \
	VMULPS       Y13, Y15, Y13 \
	VBROADCASTSS (DX), Y14     \
	VMULPS       Y14, Y15, Y14

// Q8X2G adds group g of the 8 rows (quants at qo(BX)) times the quant dwords at ao(R8) and ao(DX) of two
// columns, scaled by their dw·da in Y13 and Y14, into A0 and A1; |q| and the mask m of the negative quants
// (VPCMPGTB with zero in Y8) are made once for both columns. (y ⊕ m) − m is y·sign(q) (y where q = 0, whose
// product is 0 all the same), the operand VPSIGNB makes, in two operations that do not take the two ports
// VPSIGNB shares with VPMADDUBSW, VPMADDWD and the FMA on Zen 4.
#define Q8X2G(qo, ao, A0, A1) \
	VPCMPGTB     qo(BX), Y8, Y15  \
	VPABSB       qo(BX), Y9       \
	VPBROADCASTD ao(R8), Y10      \
	VPBROADCASTD ao(DX), Y11      \
	VPXOR        Y15, Y10, Y10    \
	VPXOR        Y15, Y11, Y11    \
	VPSUBB       Y15, Y10, Y10    \
	VPSUBB       Y15, Y11, Y11    \
	VPMADDUBSW   Y10, Y9, Y10     \
	VPMADDUBSW   Y11, Y9, Y11     \
	VPMADDWD     Y12, Y10, Y10    \
	VPMADDWD     Y12, Y11, Y11    \
	VCVTDQ2PS    Y10, Y10         \
	VCVTDQ2PS    Y11, Y11         \
	VFMADD231PS  Y13, Y10, A0     \
	VFMADD231PS  Y14, Y11, A1

// Q8X2START points the pass at the pair's first block (quants at R14+qoff) and zeroes its accumulators.
#define Q8X2START(qoff) \
	MOVQ   R12, CX         \
	MOVQ   R13, SI         \
	LEAQ   qoff(R14), BX   \
	MOVQ   R9, R8          \
	LEAQ   (R9)(AX*1), DX  \
	ZERO8Y(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)

// Q8X2PFD is the prefetch distance of the pair kernel's quant lines: 4 blocks.
#define Q8X2PFD 2176

// Q8X2NEXT prefetches the quant lines the pass reads Q8X2PFD bytes on and steps to the next block.
#define Q8X2NEXT \
	PREFETCHT0 Q8X2PFD(BX)     \
	PREFETCHT0 Q8X2PFD+128(BX) \
	PREFETCHT0 Q8X2PFD+256(BX) \
	PREFETCHT0 Q8X2PFD+384(BX) \
	ADDQ $544, SI \
	ADDQ $544, BX \
	ADDQ $40, R8  \
	ADDQ $40, DX  \
	DECQ CX

// Q8X2SUM adds the pass's lanes of each column, (Y0+Y2) + (Y1+Y3) and (Y4+Y6) + (Y5+Y7), into Y0 and Y4.
#define Q8X2SUM \
	VADDPS Y2, Y0, Y0 \
	VADDPS Y3, Y1, Y1 \
	VADDPS Y1, Y0, Y0 \
	VADDPS Y6, Y4, Y4 \
	VADDPS Y7, Y5, Y5 \
	VADDPS Y5, Y4, Y4

// func gemm2Q8xAVX2(nb int, p, a *byte, aStride, pairs, half int, out *float32, outStride int)
//
// Reference: DotQ8_0Q8_0 (mulQ8_0x16SRef) for the 8 rows of half half of one stored Q8_0x16S group (nb blocks
// at p) and 2·pairs Q8_0S columns at a, aStride bytes apart: out[c·outStride+r] for r < 8. Two columns at a
// time, each quant line loaded and made |q| once for both. The 16 accumulators of two columns do not fit the registers, so each pair takes two passes over the blocks:
// groups 0, 2, 4, 6 (lanes8.sum's (l0+l4) + (l2+l6), left in out) and then 1, 3, 5, 7 ((l1+l5) + (l3+l7),
// added to it).
TEXT ·gemm2Q8xAVX2(SB), NOSPLIT, $0-64
	MOVQ         nb+0(FP), R12
	MOVQ         p+8(FP), R13
	MOVQ         a+16(FP), R9
	MOVQ         aStride+24(FP), AX
	MOVQ         pairs+32(FP), R10
	MOVQ         half+40(FP), DX
	MOVQ         out+48(FP), DI
	MOVQ         outStride+56(FP), R11
	SHLQ         $2, R11
	SHLQ         $4, DX
	ADDQ         DX, R13
	LEAQ         32(R13)(DX*1), R14
	MOVL         $0x00010001, DX
	MOVD         DX, X12
	VPBROADCASTD X12, Y12
	VPXOR        Y8, Y8, Y8

q8x2pair:
	Q8X2START(0)

q8x2even:
	Q8X2HEAD
	Q8X2G(0, 8, Y0, Y4)
	Q8X2G(128, 16, Y1, Y5)
	Q8X2G(256, 24, Y2, Y6)
	Q8X2G(384, 32, Y3, Y7)
	Q8X2NEXT
	JNZ q8x2even
	Q8X2SUM
	VMOVUPS Y0, (DI)
	VMOVUPS Y4, (DI)(R11*1)
	Q8X2START(64)

q8x2odd:
	Q8X2HEAD
	Q8X2G(0, 12, Y0, Y4)
	Q8X2G(128, 20, Y1, Y5)
	Q8X2G(256, 28, Y2, Y6)
	Q8X2G(384, 36, Y3, Y7)
	Q8X2NEXT
	JNZ q8x2odd
	Q8X2SUM
	VADDPS  (DI), Y0, Y0
	VADDPS  (DI)(R11*1), Y4, Y4
	VMOVUPS Y0, (DI)
	VMOVUPS Y4, (DI)(R11*1)
	LEAQ    (DI)(R11*2), DI
	LEAQ    (R9)(AX*2), R9
	DECQ    R10
	JNZ     q8x2pair
	VZEROUPPER
	RET
