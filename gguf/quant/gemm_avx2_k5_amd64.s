//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"

// Kernels on Q5_Kx16 groups (gemm_k5.go) for CPUs with AVX2 but without AVX-512 VNNI: lane r of a 256-bit
// register is row h8+r. Per super-block and lane m, each group's quants (unpacked to unsigned 5-bit bytes)
// are multiplied with the broadcast activation dword by VPMADDUBSW (int16 pairs, |2·31·128| < 2¹⁵), and
// VPMADDWD with the group's scale in both words of each dword gives the exact int32 scale·Σq·y of the group;
// the eight groups' add up to the lane, fused into its float32 accumulator: acc = fma(d·yd, lane, acc). The
// minimum terms are VPMADDWD of each group's minimum, in both words, with the group's broadcast bsum pair,
// fused as summs = fma(−(dmin·yd), mins, summs).

// k5aShuf: VPSHUFB masks that put the scale byte of group j (0: low byte of row r's pair, 1: high byte, group
// j+4) in both words of dword r, from a broadcast 16-byte row of eight pairs.
DATA k5aShuf<>+0(SB)/8, $0x8002800280008000
DATA k5aShuf<>+8(SB)/8, $0x8006800680048004
DATA k5aShuf<>+16(SB)/8, $0x800a800a80088008
DATA k5aShuf<>+24(SB)/8, $0x800e800e800c800c
DATA k5aShuf<>+32(SB)/8, $0x8003800380018001
DATA k5aShuf<>+40(SB)/8, $0x8007800780058005
DATA k5aShuf<>+48(SB)/8, $0x800b800b80098009
DATA k5aShuf<>+56(SB)/8, $0x800f800f800d800d
GLOBL k5aShuf<>(SB), RODATA|NOPTR, $64

// K5ACONST: Y15 0x0f in every byte, Y14 0x10 in every byte.
#define K5ACONST \
	MOVL          $0x0f0f0f0f, AX \
	MOVD          AX, X15         \
	VPBROADCASTD  X15, Y15        \
	MOVL          $0x10101010, AX \
	MOVD          AX, X14         \
	VPBROADCASTD  X14, Y14

// K5ACOLS loads the four column pointers R8…R11 from a (at aoff(FP)) and aStride (at soff(FP)).
#define K5ACOLS(aoff, soff) \
	MOVQ  aoff(FP), R8     \
	MOVQ  soff(FP), AX     \
	LEAQ  (R8)(AX*1), R9   \
	LEAQ  (R9)(AX*1), R10  \
	LEAQ  (R10)(AX*1), R11

// K5AG unpacks into ZG one group's quants: the nibbles of the lane's qs dwords at qo (SHN: a shift to the
// high ones, or none) with the fifth bit of qh (Y13) moved to bit 4 by SH $k.
#define K5AG(qo, SHN, SH, k, ZG) \
	VMOVDQU  qo(SI)(DI*4), ZG  \
	SHN                        \
	VPAND    Y15, ZG, ZG       \
	SH       $k, Y13, Y10      \
	VPAND    Y14, Y10, Y10     \
	VPOR     Y10, ZG, ZG

#define K5ANONE
#define K5AHI8 VPSRLW $4, Y8, Y8
#define K5AHI9 VPSRLW $4, Y9, Y9

// K5AC adds group pair j (quants Y8, Y9, scales Y11, Y12) of the column at R into IACC.
#define K5AC(j, R, IACC) \
	VPBROADCASTD  4+32*j(R)(R12*1), Y10   \
	VPMADDUBSW    Y10, Y8, Y10            \
	VPMADDWD      Y11, Y10, Y10           \
	VPADDD        Y10, IACC, IACC         \
	VPBROADCASTD  132+32*j(R)(R12*1), Y10 \
	VPMADDUBSW    Y10, Y9, Y10            \
	VPMADDWD      Y12, Y10, Y10           \
	VPADDD        Y10, IACC, IACC

// K5AP adds group pair j (groups j and j+4: the nibbles of qs dwords qo and qo+128, SHN8/SHN9 to their high
// ones; qh shifted left by kl resp. right by kh) of the four columns into Y0…Y3.
#define K5AP(j, qo, SHN8, SHN9, kl, kh) \
	K5AG(qo, SHN8, VPSLLW, kl, Y8)               \
	K5AG(qo+128, SHN9, VPSRLW, kh, Y9)           \
	VBROADCASTI128  32*j(BX)(DI*2), Y12          \
	VPSHUFB         k5aShuf<>(SB), Y12, Y11      \
	VPSHUFB         k5aShuf<>+32(SB), Y12, Y12   \
	K5AC(j, R8, Y0)                              \
	K5AC(j, R9, Y1)                              \
	K5AC(j, R10, Y2)                             \
	K5AC(j, R11, Y3)

// K5AF fuses the integer sum ZI of the column at R into ZF, with the rows' d (or dmin, FMA: VFNMADD231PS)
// in Y8.
#define K5AF(FMA, R, ZI, ZF) \
	VBROADCASTSS  (R)(DX*1), Y9 \
	VMULPS        Y9, Y8, Y9    \
	VCVTDQ2PS     ZI, ZI        \
	FMA           Y9, ZI, ZF

#define K5AZERO4(a, b, c, d) \
	VPXOR  a, a, a \
	VPXOR  b, b, b \
	VPXOR  c, c, c \
	VPXOR  d, d, d

// K5ASTORE4 stores Y4…Y7 at acc (at off(FP)), 64 bytes apart.
#define K5ASTORE4(off) \
	MOVQ     off(FP), AX    \
	VMOVUPS  Y4, (AX)       \
	VMOVUPS  Y5, 64(AX)     \
	VMOVUPS  Y6, 128(AX)    \
	VMOVUPS  Y7, 192(AX)

// func gemm4Q5KxAVX2(nb int, q, sd, a *byte, aStride, m, h8 int, acc *float32)
//
// Reference: lane m of DotQ5_KQ8_K for each of the 8×4 (row, column) pairs of rows h8…h8+7 of one group
// (lane m's dwords from q, scales and d from sd, both a packed super-block apart), the columns aStride bytes
// apart; acc gets each column's 8 float accumulators, 64 bytes apart.
TEXT ·gemm4Q5KxAVX2(SB), NOSPLIT, $0-64
	MOVQ  nb+0(FP), CX
	MOVQ  q+8(FP), SI
	MOVQ  sd+16(FP), BX
	K5ACOLS(a+24, aStride+32)
	MOVQ  m+40(FP), R12
	SHLQ  $2, R12
	MOVQ  h8+48(FP), DI
	XORQ  DX, DX
	K5ACONST
	K5AZERO4(Y4, Y5, Y6, Y7)

k5a4loop:
	K5AZERO4(Y0, Y1, Y2, Y3)
	VMOVDQU  256(SI)(DI*4), Y13
	K5AP(0, 0, K5ANONE, K5ANONE, 4, 0)
	K5AP(1, 0, K5AHI8, K5AHI9, 3, 1)
	K5AP(2, 64, K5ANONE, K5ANONE, 2, 2)
	K5AP(3, 64, K5AHI8, K5AHI9, 1, 3)
	VCVTPH2PS  const_k5xD(BX)(DI*2), Y8
	K5AF(VFMADD231PS, R8, Y0, Y4)
	K5AF(VFMADD231PS, R9, Y1, Y5)
	K5AF(VFMADD231PS, R10, Y2, Y6)
	K5AF(VFMADD231PS, R11, Y3, Y7)
	ADDQ  $const_k5xBlock, SI
	ADDQ  $const_k5xBlock, BX
	ADDQ  $292, DX
	ADDQ  $292, R12
	DECQ  CX
	JNZ   k5a4loop

	K5ASTORE4(acc+56)
	VZEROUPPER
	RET

// K5AM adds the minimum terms of group j of the four columns into Y0…Y3.
#define K5AM(j) \
	VPMOVZXBD     const_k5xMins+16*j(BX)(DI*1), Y8 \
	VPSLLD        $16, Y8, Y9                      \
	VPOR          Y9, Y8, Y8                       \
	VPBROADCASTD  260+4*j(R8)(DX*1), Y10           \
	VPMADDWD      Y10, Y8, Y10                     \
	VPADDD        Y10, Y0, Y0                      \
	VPBROADCASTD  260+4*j(R9)(DX*1), Y10           \
	VPMADDWD      Y10, Y8, Y10                     \
	VPADDD        Y10, Y1, Y1                      \
	VPBROADCASTD  260+4*j(R10)(DX*1), Y10          \
	VPMADDWD      Y10, Y8, Y10                     \
	VPADDD        Y10, Y2, Y2                      \
	VPBROADCASTD  260+4*j(R11)(DX*1), Y10          \
	VPMADDWD      Y10, Y8, Y10                     \
	VPADDD        Y10, Y3, Y3

// func gemm4Q5KxMinsAVX2(nb int, sd, a *byte, aStride, h8 int, acc *float32)
//
// Reference: the minimum terms of DotQ5_KQ8_K (summs) for each of the 8×4 (row, column) pairs of rows
// h8…h8+7 of one group (minimums and dmin from sd, a packed super-block apart), the columns aStride bytes
// apart; acc gets each column's 8 float accumulators, 64 bytes apart.
TEXT ·gemm4Q5KxMinsAVX2(SB), NOSPLIT, $0-48
	MOVQ  nb+0(FP), CX
	MOVQ  sd+8(FP), BX
	K5ACOLS(a+16, aStride+24)
	MOVQ  h8+32(FP), DI
	XORQ  DX, DX
	K5AZERO4(Y4, Y5, Y6, Y7)

k5amloop:
	K5AZERO4(Y0, Y1, Y2, Y3)
	K5AM(0)
	K5AM(1)
	K5AM(2)
	K5AM(3)
	K5AM(4)
	K5AM(5)
	K5AM(6)
	K5AM(7)
	VCVTPH2PS  const_k5xDmin(BX)(DI*2), Y8
	K5AF(VFNMADD231PS, R8, Y0, Y4)
	K5AF(VFNMADD231PS, R9, Y1, Y5)
	K5AF(VFNMADD231PS, R10, Y2, Y6)
	K5AF(VFNMADD231PS, R11, Y3, Y7)
	ADDQ  $const_k5xBlock, BX
	ADDQ  $292, DX
	DECQ  CX
	JNZ   k5amloop

	K5ASTORE4(acc+40)
	VZEROUPPER
	RET
