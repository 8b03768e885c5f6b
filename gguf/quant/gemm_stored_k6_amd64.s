//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"

// Kernels on stored Q6_Kx16 groups (gemm_k6.go), AVX-512 VNNI: one integer lane m of DotQ6_KQ8_K through
// all the super-blocks of a group per call. Lane r of every vector is row r; per super-block it sums each
// quarter's dword exactly (VPDPBUSD of the unpacked unsigned quants with the broadcast activation dword),
// puts two quarters' sums into the words of a dword and multiply-adds them with the quarters' scales
// (VPDPWSSD), takes −32·scale·bsum of groups 2m and 2m+1 off (VPDPWSSD), and fuses the lane into its float32
// accumulator: acc = fma(d·yd, lane, acc). The caller adds the eight accumulators as hsum_float_8.

DATA k6xNib<>+0(SB)/4, $0x0f0f0f0f
GLOBL k6xNib<>(SB), RODATA|NOPTR, $4
DATA k6x3F<>+0(SB)/4, $0x3f3f3f3f
GLOBL k6x3F<>(SB), RODATA|NOPTR, $4
DATA k6xLo<>+0(SB)/4, $0x0000ffff
GLOBL k6xLo<>(SB), RODATA|NOPTR, $4

// k6xM32 is −32 in word t of a dword (the other word 0): t = 0 at 0, t = 1 at 4.
DATA k6xM32<>+0(SB)/4, $0x0000ffe0
DATA k6xM32<>+4(SB)/4, $0xffe00000
GLOBL k6xM32<>(SB), RODATA|NOPTR, $8

// K6XPFD is the kernels' prefetch distance in the lane stream: 4 super-blocks.
#define K6XPFD 1536

// K6SETUP loads the constants and the registers of lane m (t = m%2): R12 = 4m (the quant dword offset in
// an activation block), R13 = 4m − 2t (the bsum pair whose word t is bsum 2m), DI = 128·(m/4) (the lane's
// quarter scale pairs), AX = 32·(m/2) (the scale pairs holding groups 2m and 2m+1 in word t), Z28 = −32 in
// word t.
#define K6SETUP \
	MOVQ          m+40(FP), AX        \
	MOVQ          AX, R13             \
	ANDQ          $1, R13             \
	LEAQ          k6xM32<>(SB), DI    \
	VPBROADCASTD  (DI)(R13*4), Z28    \
	LEAQ          (AX*4), R12         \
	NEGQ          R13                 \
	LEAQ          (R12)(R13*2), R13   \
	MOVQ          AX, DI              \
	SHRQ          $2, DI              \
	SHLQ          $7, DI              \
	SHRQ          $1, AX              \
	SHLQ          $5, AX              \
	VPBROADCASTD  k6xNib<>(SB), Z30   \
	VPBROADCASTD  k6x3F<>(SB), Z29    \
	VPBROADCASTD  k6xLo<>(SB), Z31    \
	XORQ          DX, DX

// K6UNPACK unpacks half h of the lane at SI (dwords ql[l], ql[l+32], qh[l]) into the quarters' unsigned
// quants Z16…Z19.
#define K6UNPACK(h) \
	PREFETCHT0  K6XPFD+192*h(SI)          \
	PREFETCHT0  K6XPFD+192*h+64(SI)       \
	PREFETCHT0  K6XPFD+192*h+128(SI)      \
	VMOVDQU32   192*h(SI), Z13            \
	VMOVDQU32   192*h+64(SI), Z14         \
	VMOVDQU32   192*h+128(SI), Z15        \
	VPSLLD      $4, Z15, Z20              \
	VPTERNLOGD  $0xd8, Z30, Z13, Z20      \
	VPANDD      Z29, Z20, Z16             \
	VPSLLD      $2, Z15, Z21              \
	VPTERNLOGD  $0xd8, Z30, Z14, Z21      \
	VPANDD      Z29, Z21, Z17             \
	VPSRLD      $4, Z13, Z20              \
	VPTERNLOGD  $0xe4, Z30, Z15, Z20      \
	VPANDD      Z29, Z20, Z18             \
	VPSRLD      $4, Z14, Z21              \
	VPSRLD      $2, Z15, Z22              \
	VPTERNLOGD  $0xe4, Z30, Z22, Z21      \
	VPANDD      Z29, Z21, Z19

// K6PAIR multiplies quarters 2jj (quants ZA) and 2jj+1 (ZB) with the column at R (TA, TB: scratch) and
// adds them, scaled by the pair of scales in SC, into ACC.
#define K6PAIR(jj, ZA, ZB, R, TA, TB, SC, ACC) \
	VPXORD         TA, TA, TA                \
	VPXORD         TB, TB, TB                \
	VPDPBUSD.BCST  4+64*jj(R)(R12*1), ZA, TA \
	VPDPBUSD.BCST  36+64*jj(R)(R12*1), ZB, TB \
	VPSLLD         $16, TB, TB               \
	VPTERNLOGD     $0xf8, Z31, TA, TB        \
	VPDPWSSD       SC, TB, ACC

// K6CORR loads the −32·scale words of groups 2m and 2m+1 into Z22 and Z23.
#define K6CORR \
	VPMOVSXBW  (BX)(AX*1), Z22     \
	VPMOVSXBW  128(BX)(AX*1), Z23  \
	VPMULLW    Z28, Z22, Z22       \
	VPMULLW    Z28, Z23, Z23

// K6CORR1 takes the offset terms of the column at R off ACC.
#define K6CORR1(R, ACC) \
	VPDPWSSD.BCST  260(R)(R13*1), Z22, ACC \
	VPDPWSSD.BCST  262(R)(R13*1), Z23, ACC

// K6F fuses the lane sum ZI of the column at R into ZF, with the rows' d in Z8.
#define K6F(R, ZI, ZF) \
	VCVTDQ2PS    ZI, ZI            \
	VMULPS.BCST  (R)(DX*1), Z8, Z9 \
	VFMADD231PS  Z9, ZI, ZF

// K6NEXT steps to the next super-block and loops to label.
#define K6NEXT(label) \
	ADDQ  $const_k6xLane, SI \
	ADDQ  $const_k6xSD, BX   \
	ADDQ  $292, DX           \
	ADDQ  $292, R12          \
	ADDQ  $292, R13          \
	DECQ  CX                 \
	JNZ   label

// K6P1 adds quarter pair jj (quants ZA, ZB) of the column at R8 into ACC.
#define K6P1(jj, ZA, ZB, TA, TB, SC, ACC) \
	VPMOVSXBW  32*jj(BX)(DI*1), SC \
	K6PAIR(jj, ZA, ZB, R8, TA, TB, SC, ACC)

// func gemv1Q6Kx(nb int, q, sd, a *byte, aStride, m int, acc *float32)
//
// Reference: lane m of DotQ6_KQ8_K for the 16 rows of one stored group (lane stream q, scales and d sd)
// against one Q8_K column a; acc gets the 16 rows' float accumulators. The quarter pairs alternate between
// two integer sums (Z0, Z1) to halve the dependency chain.
TEXT ·gemv1Q6Kx(SB), NOSPLIT, $0-56
	MOVQ   nb+0(FP), CX
	MOVQ   q+8(FP), SI
	MOVQ   sd+16(FP), BX
	MOVQ   a+24(FP), R8
	K6SETUP
	VPXORD Z4, Z4, Z4

k61loop:
	VPXORD   Z0, Z0, Z0
	VPXORD   Z1, Z1, Z1
	K6UNPACK(0)
	K6P1(0, Z16, Z17, Z24, Z25, Z26, Z0)
	K6P1(1, Z18, Z19, Z9, Z10, Z11, Z1)
	K6UNPACK(1)
	K6P1(2, Z16, Z17, Z24, Z25, Z26, Z0)
	K6P1(3, Z18, Z19, Z9, Z10, Z11, Z1)
	K6CORR
	K6CORR1(R8, Z0)
	VPADDD    Z1, Z0, Z0
	VCVTPH2PS const_k6xD(BX), Z8
	K6F(R8, Z0, Z4)
	K6NEXT(k61loop)

	MOVQ    acc+48(FP), DI
	VMOVUPS Z4, (DI)
	VZEROUPPER
	RET

// K6P4 adds quarter pair jj (quants ZA, ZB) of the four columns at R8…R11 into Z0…Z3.
#define K6P4(jj, ZA, ZB) \
	VPMOVSXBW  32*jj(BX)(DI*1), Z23               \
	K6PAIR(jj, ZA, ZB, R8, Z24, Z9, Z23, Z0)      \
	K6PAIR(jj, ZA, ZB, R9, Z25, Z10, Z23, Z1)     \
	K6PAIR(jj, ZA, ZB, R10, Z26, Z11, Z23, Z2)    \
	K6PAIR(jj, ZA, ZB, R11, Z27, Z12, Z23, Z3)

// func gemm4Q6Kx(nb int, q, sd, a *byte, aStride, m int, acc *float32)
//
// Reference: lane m of DotQ6_KQ8_K for each of the 16×4 (row, column) pairs of one stored group, the
// columns aStride bytes apart; acc gets each column's 16 float accumulators in turn. Each half's quants are
// unpacked once for the four columns.
TEXT ·gemm4Q6Kx(SB), NOSPLIT, $0-56
	MOVQ   nb+0(FP), CX
	MOVQ   q+8(FP), SI
	MOVQ   sd+16(FP), BX
	MOVQ   a+24(FP), R8
	MOVQ   aStride+32(FP), AX
	LEAQ   (R8)(AX*1), R9
	LEAQ   (R9)(AX*1), R10
	LEAQ   (R10)(AX*1), R11
	K6SETUP
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7

k64loop:
	VPXORD    Z0, Z0, Z0
	VPXORD    Z1, Z1, Z1
	VPXORD    Z2, Z2, Z2
	VPXORD    Z3, Z3, Z3
	K6UNPACK(0)
	K6P4(0, Z16, Z17)
	K6P4(1, Z18, Z19)
	K6UNPACK(1)
	K6P4(2, Z16, Z17)
	K6P4(3, Z18, Z19)
	K6CORR
	K6CORR1(R8, Z0)
	K6CORR1(R9, Z1)
	K6CORR1(R10, Z2)
	K6CORR1(R11, Z3)
	VCVTPH2PS const_k6xD(BX), Z8
	K6F(R8, Z0, Z4)
	K6F(R9, Z1, Z5)
	K6F(R10, Z2, Z6)
	K6F(R11, Z3, Z7)
	K6NEXT(k64loop)

	MOVQ    acc+48(FP), DI
	VMOVUPS Z4, (DI)
	VMOVUPS Z5, 64(DI)
	VMOVUPS Z6, 128(DI)
	VMOVUPS Z7, 192(DI)
	VZEROUPPER
	RET
