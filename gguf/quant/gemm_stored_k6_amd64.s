//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"

// Kernels on stored Q6_Kx16 groups (gemm_k6.go), AVX-512 VNNI: one integer lane m of DotQ6_KQ8_K through
// all the super-blocks of a group per call. Lane r of every vector is row r; per super-block it sums its
// eight quarter dwords exactly (VPMADDUBSW of the unpacked unsigned quants with the broadcast activation
// dword, VPDPWSSD of those pairs with the quarter's scale as a pair of words), takes −32·scale·bsum of groups
// 2m and 2m+1 off (VPDPWSSD), and fuses the lane into its float32 accumulator: acc = fma(d·yd, lane, acc).
// The caller adds the eight accumulators as hsum_float_8.

DATA k6xNib<>+0(SB)/4, $0x0f0f0f0f
GLOBL k6xNib<>(SB), RODATA|NOPTR, $4
DATA k6x3F<>+0(SB)/4, $0x3f3f3f3f
GLOBL k6x3F<>(SB), RODATA|NOPTR, $4
DATA k6xM32<>+0(SB)/4, $0xffe0ffe0
GLOBL k6xM32<>(SB), RODATA|NOPTR, $4

// k6xDup picks word w of every dword into both its words (VPSHUFB): w = 0 at 0, w = 1 at 16.
DATA k6xDup<>+0(SB)/8, $0x0504050401000100
DATA k6xDup<>+8(SB)/8, $0x0d0c0d0c09080908
DATA k6xDup<>+16(SB)/8, $0x0706070603020302
DATA k6xDup<>+24(SB)/8, $0x0f0e0f0e0b0a0b0a
GLOBL k6xDup<>(SB), RODATA|NOPTR, $32

// K6XPFD is the kernels' prefetch distance in the lane stream: 4 super-blocks.
#define K6XPFD 1536

// K6SETUP loads the constants and the registers of lane m: R12 = 4m (quant dword offset in an activation
// block, and bsum pair m), R13 = 32m (scale pair m), Z31 = the pattern that duplicates scale word m/4.
#define K6SETUP \
	MOVQ             m+40(FP), AX        \
	LEAQ             (AX*4), R12         \
	MOVQ             AX, R13             \
	SHLQ             $5, R13             \
	SHRQ             $2, AX              \
	SHLQ             $4, AX              \
	LEAQ             k6xDup<>(SB), DI    \
	VBROADCASTI32X4  (DI)(AX*1), Z31     \
	VPBROADCASTD     k6xNib<>(SB), Z30   \
	VPBROADCASTD     k6x3F<>(SB), Z29    \
	VPBROADCASTD     k6xM32<>(SB), Z28   \
	XORQ             DX, DX

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

// K6SCALE puts quarter kk's scale (group 2kk + m/4 of the super-block's scales at BX) into both words of
// every dword of Z23.
#define K6SCALE(kk) \
	VPMOVSXBW  32*kk(BX), Z22 \
	VPSHUFB    Z31, Z22, Z23

// K6Q1 adds quarter kk (quants ZQ) of the column at R8 into ZA.
#define K6Q1(kk, ZQ, ZA) \
	K6SCALE(kk)                               \
	VPBROADCASTD  4+32*kk(R8)(R12*1), Z24     \
	VPMADDUBSW    Z24, ZQ, Z24                \
	VPDPWSSD      Z23, Z24, ZA

// K6F fuses the lane sum ZI of the column at R into ZF, with the rows' d in Z8.
#define K6F(R, ZI, ZF) \
	VCVTDQ2PS    ZI, ZI          \
	VMULPS.BCST  (R)(DX*1), Z8, Z9 \
	VFMADD231PS  Z9, ZI, ZF

// K6NEXT steps to the next super-block and loops to label.
#define K6NEXT(label) \
	ADDQ  $const_k6xLane, SI \
	ADDQ  $const_k6xSD, BX   \
	ADDQ  $292, DX           \
	ADDQ  $292, R12          \
	DECQ  CX                 \
	JNZ   label

// func gemv1Q6Kx(nb int, q, sd, a *byte, aStride, m int, acc *float32)
//
// Reference: lane m of DotQ6_KQ8_K for the 16 rows of one stored group (lane stream q, scales and d sd)
// against one Q8_K column a; acc gets the 16 rows' float accumulators. The quarters alternate between two
// integer sums (Z0, Z1) to halve the dependency chain.
TEXT ·gemv1Q6Kx(SB), NOSPLIT, $0-56
	MOVQ   nb+0(FP), CX
	MOVQ   q+8(FP), SI
	MOVQ   sd+16(FP), BX
	MOVQ   a+24(FP), R8
	K6SETUP
	VPXORD Z4, Z4, Z4

k61loop:
	VPXORD       Z0, Z0, Z0
	VPXORD       Z1, Z1, Z1
	K6UNPACK(0)
	K6Q1(0, Z16, Z0)
	K6Q1(1, Z17, Z1)
	K6Q1(2, Z18, Z0)
	K6Q1(3, Z19, Z1)
	K6UNPACK(1)
	K6Q1(4, Z16, Z0)
	K6Q1(5, Z17, Z1)
	K6Q1(6, Z18, Z0)
	K6Q1(7, Z19, Z1)
	VPMOVSXBW      (BX)(R13*1), Z22
	VPMULLW        Z28, Z22, Z22
	VPDPWSSD.BCST  260(R8)(R12*1), Z22, Z0
	VPADDD         Z1, Z0, Z0
	VCVTPH2PS      const_k6xD(BX), Z8
	K6F(R8, Z0, Z4)
	K6NEXT(k61loop)

	MOVQ    acc+48(FP), DI
	VMOVUPS Z4, (DI)
	VZEROUPPER
	RET

// K6Q4 adds quarter kk (quants ZQ) of the four columns at R8…R11 into Z0…Z3.
#define K6Q4(kk, ZQ) \
	K6SCALE(kk)                               \
	VPBROADCASTD  4+32*kk(R8)(R12*1), Z24     \
	VPBROADCASTD  4+32*kk(R9)(R12*1), Z25     \
	VPBROADCASTD  4+32*kk(R10)(R12*1), Z26    \
	VPBROADCASTD  4+32*kk(R11)(R12*1), Z27    \
	VPMADDUBSW    Z24, ZQ, Z24                \
	VPMADDUBSW    Z25, ZQ, Z25                \
	VPMADDUBSW    Z26, ZQ, Z26                \
	VPMADDUBSW    Z27, ZQ, Z27                \
	VPDPWSSD      Z23, Z24, Z0                \
	VPDPWSSD      Z23, Z25, Z1                \
	VPDPWSSD      Z23, Z26, Z2                \
	VPDPWSSD      Z23, Z27, Z3

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
	VPXORD         Z0, Z0, Z0
	VPXORD         Z1, Z1, Z1
	VPXORD         Z2, Z2, Z2
	VPXORD         Z3, Z3, Z3
	K6UNPACK(0)
	K6Q4(0, Z16)
	K6Q4(1, Z17)
	K6Q4(2, Z18)
	K6Q4(3, Z19)
	K6UNPACK(1)
	K6Q4(4, Z16)
	K6Q4(5, Z17)
	K6Q4(6, Z18)
	K6Q4(7, Z19)
	VPMOVSXBW      (BX)(R13*1), Z22
	VPMULLW        Z28, Z22, Z22
	VPDPWSSD.BCST  260(R8)(R12*1), Z22, Z0
	VPDPWSSD.BCST  260(R9)(R12*1), Z22, Z1
	VPDPWSSD.BCST  260(R10)(R12*1), Z22, Z2
	VPDPWSSD.BCST  260(R11)(R12*1), Z22, Z3
	VCVTPH2PS      const_k6xD(BX), Z8
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
