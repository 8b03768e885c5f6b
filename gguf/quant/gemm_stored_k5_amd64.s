//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"
#include "prefetch_amd64.h"
#include "kpair_amd64.h"

// Kernels on stored Q5_Kx16 groups (gemm_k5.go), AVX-512 VNNI: for four columns, one integer lane m of
// DotQ5_KQ8_K through all the super-blocks of a group per call (and the minimum terms in a call of their
// own); for one, all eight lanes and the minimum terms in one pass. Lane r of every vector is row r. Per
// super-block and lane m the kernels sum each group's dword exactly (VPDPBUSD of the unpacked unsigned quants
// with the broadcast activation dword), put the sums of groups j and j+4 into the words of a dword and
// multiply-add them with the groups' scales (VPDPWSSD), and fuse the lane into its float32 accumulator:
// acc = fma(d·yd, lane, acc); the minimum terms, Σ min_j·(bsum 2j + bsum 2j+1) (VPDPWSSD of each minimum
// in both words of a dword with the group's broadcast bsum pair), go into their own: summs = fma(−(dmin·yd),
// mins, summs). The caller adds the eight as hsum_float_8, then summs.

DATA k5xNib<>+0(SB)/4, $0x0f0f0f0f
GLOBL k5xNib<>(SB), RODATA|NOPTR, $4
DATA k5x11<>+0(SB)/4, $0x11111111
GLOBL k5x11<>(SB), RODATA|NOPTR, $4
DATA k5xLo<>+0(SB)/4, $0x0000ffff
GLOBL k5xLo<>(SB), RODATA|NOPTR, $4
DATA k5xTwice<>+0(SB)/4, $0x00010001
GLOBL k5xTwice<>(SB), RODATA|NOPTR, $4

// K5XPFD is the kernels' prefetch distance: 2 stored super-blocks. The one-column kernel prefetches every
// line that far ahead (the scales, minimums and d at the block start, each lane's lines as it reaches the
// lane): BenchmarkStreamGemm q5_k, alternating, one goroutine 24.0–29.4 GB/s against 12.7–17.4 without, two
// 25.2–48.5 against 20.8–27.0, on Zen 5. On Zen 4 prefetching into L1 that far ahead streamed slower than not
// prefetching at all, and into L2 (PREFETCHT2, gemv1Q5KxL2) faster: prefetch_amd64.go.
#define K5XPFD 5760

// K5UNPACK unpacks the lane at o(SI) (dwords qs[l], qs[l+32], qs[l+64], qs[l+96], qh[l]) into the groups'
// unsigned quants Z16…Z23 (group j in Z16+j), with the nibble mask in Z28 and 0x11 in every byte in Z29.
// Groups j and j+4 take their fifth bits from y = (qh >> j) & 0x11: group j+4 its bit 4 as it is, group j
// its bit 0 shifted to 4 (the bit shifted into the next byte lands among the nibble's bits, which the bit
// select replaces); the bit select (Z28 ? nibbles : y) leaves bits 5…7 clear.
#define K5UNPACK(o) \
	VMOVDQU32   o+256(SI), Z15            \
	VPANDD      Z29, Z15, Z20             \
	VPSLLD      $4, Z20, Z16              \
	VPTERNLOGD  $0xb8, o+128(SI), Z28, Z20 \
	VPTERNLOGD  $0xb8, o(SI), Z28, Z16    \
	VPSRLD      $1, Z15, Z21              \
	VPANDD      Z29, Z21, Z21             \
	VPSLLD      $4, Z21, Z17              \
	VPSRLD      $4, o+128(SI), Z14        \
	VPTERNLOGD  $0xb8, Z14, Z28, Z21      \
	VPSRLD      $4, o(SI), Z14            \
	VPTERNLOGD  $0xb8, Z14, Z28, Z17      \
	VPSRLD      $2, Z15, Z22              \
	VPANDD      Z29, Z22, Z22             \
	VPSLLD      $4, Z22, Z18              \
	VPTERNLOGD  $0xb8, o+192(SI), Z28, Z22 \
	VPTERNLOGD  $0xb8, o+64(SI), Z28, Z18 \
	VPSRLD      $3, Z15, Z23              \
	VPANDD      Z29, Z23, Z23             \
	VPSLLD      $4, Z23, Z19              \
	VPSRLD      $4, o+192(SI), Z14        \
	VPTERNLOGD  $0xb8, Z14, Z28, Z23      \
	VPSRLD      $4, o+64(SI), Z14         \
	VPTERNLOGD  $0xb8, Z14, Z28, Z19

// K5CONST loads the constants of K5UNPACK and KPAIR.
#define K5CONST \
	VPBROADCASTD  k5xNib<>(SB), Z28 \
	VPBROADCASTD  k5x11<>(SB), Z29  \
	VPBROADCASTD  k5xLo<>(SB), Z31

// K5F fuses the integer sum ZI of the column at R into ZF, with the rows' d (or dmin, FMA: VFNMADD231PS)
// in Z8.
#define K5F(FMA, R, ZI, ZF) \
	VCVTDQ2PS    ZI, ZI            \
	VMULPS.BCST  (R)(DX*1), Z8, Z9 \
	FMA          Z9, ZI, ZF

// K5P4 adds group pair j (quants ZA, ZB, scales SC) of the four columns at R8…R11 into Z0…Z3.
#define K5P4(j, ZA, ZB, SC) \
	KPAIR(4+32*j(R8)(R12*1), 132+32*j(R8)(R12*1), ZA, ZB, Z9, Z10, SC, Z0)    \
	KPAIR(4+32*j(R9)(R12*1), 132+32*j(R9)(R12*1), ZA, ZB, Z11, Z12, SC, Z1)   \
	KPAIR(4+32*j(R10)(R12*1), 132+32*j(R10)(R12*1), ZA, ZB, Z13, Z14, SC, Z2) \
	KPAIR(4+32*j(R11)(R12*1), 132+32*j(R11)(R12*1), ZA, ZB, Z15, Z30, SC, Z3)

// K5COLS loads the four column pointers R8…R11 from a+24(FP), aStride+32(FP).
#define K5COLS \
	MOVQ  a+24(FP), R8        \
	MOVQ  aStride+32(FP), AX  \
	LEAQ  (R8)(AX*1), R9      \
	LEAQ  (R9)(AX*1), R10     \
	LEAQ  (R10)(AX*1), R11

// K5ZERO4 clears Z0…Z3.
#define K5ZERO4(a, b, c, d) \
	VPXORD  a, a, a \
	VPXORD  b, b, b \
	VPXORD  c, c, c \
	VPXORD  d, d, d

// K5STORE4 stores Z4…Z7 at acc (the four columns' accumulators).
#define K5STORE4(off) \
	MOVQ     acc+off(FP), DI \
	VMOVUPS  Z4, (DI)        \
	VMOVUPS  Z5, 64(DI)      \
	VMOVUPS  Z6, 128(DI)     \
	VMOVUPS  Z7, 192(DI)

// func gemm4Q5Kx(nb int, q, sd, a *byte, aStride, m int, acc *float32)
//
// Reference: lane m of DotQ5_KQ8_K for each of the 16×4 (row, column) pairs of one stored group (lane m's
// dwords from q, scales and d from sd, both a stored super-block apart), the columns aStride bytes apart;
// acc gets each column's 16 float accumulators in turn. The lane's quants are unpacked once for the four
// columns.
TEXT ·gemm4Q5Kx(SB), NOSPLIT, $0-56
	MOVQ    nb+0(FP), CX
	MOVQ    q+8(FP), SI
	MOVQ    sd+16(FP), BX
	K5COLS
	MOVQ    m+40(FP), R12
	SHLQ    $2, R12
	XORQ    DX, DX
	K5CONST
	K5ZERO4(Z4, Z5, Z6, Z7)

k54loop:
	K5ZERO4(Z0, Z1, Z2, Z3)
	PREFETCHT0 K5XPFD(BX)
	PREFETCHT0 K5XPFD+64(BX)
	PREFETCHT0 K5XPFD+256(BX)
	PREFETCH5(K5XPFD, SI)
	K5UNPACK(0)
	VPMOVZXBW  (BX), Z24
	VPMOVZXBW  32(BX), Z25
	VPMOVZXBW  64(BX), Z26
	VPMOVZXBW  96(BX), Z27
	K5P4(0, Z16, Z20, Z24)
	K5P4(1, Z17, Z21, Z25)
	K5P4(2, Z18, Z22, Z26)
	K5P4(3, Z19, Z23, Z27)
	VCVTPH2PS const_k5xD(BX), Z8
	K5F(VFMADD231PS, R8, Z0, Z4)
	K5F(VFMADD231PS, R9, Z1, Z5)
	K5F(VFMADD231PS, R10, Z2, Z6)
	K5F(VFMADD231PS, R11, Z3, Z7)
	ADDQ  $const_k5xBlock, SI
	ADDQ  $const_k5xBlock, BX
	ADDQ  $292, DX
	ADDQ  $292, R12
	DECQ  CX
	JNZ   k54loop

	K5STORE4(48)
	VZEROUPPER
	RET

// K5MINS loads group j's minimums, in both words of every dword, into Z.
#define K5MINS(j, Z) \
	VPMOVZXBD  const_k5xMins+16*j(BX), Z \
	VPMULLD    Z30, Z, Z

// K5M4 adds the minimum terms of group j (minimums in Z) of the four columns into Z0…Z3.
#define K5M4(j, Z) \
	VPDPWSSD.BCST  260+4*j(R8)(DX*1), Z, Z0  \
	VPDPWSSD.BCST  260+4*j(R9)(DX*1), Z, Z1  \
	VPDPWSSD.BCST  260+4*j(R10)(DX*1), Z, Z2 \
	VPDPWSSD.BCST  260+4*j(R11)(DX*1), Z, Z3

// func gemm4Q5KxMins(nb int, sd, a *byte, aStride int, acc *float32)
//
// Reference: the minimum terms of DotQ5_KQ8_K (summs) for each of the 16×4 (row, column) pairs of one stored
// group (minimums and dmin from sd, a stored super-block apart), the columns aStride bytes apart; acc gets
// each column's 16 float accumulators in turn.
TEXT ·gemm4Q5KxMins(SB), NOSPLIT, $0-40
	MOVQ          nb+0(FP), CX
	MOVQ          sd+8(FP), BX
	MOVQ          a+16(FP), R8
	MOVQ          aStride+24(FP), AX
	LEAQ          (R8)(AX*1), R9
	LEAQ          (R9)(AX*1), R10
	LEAQ          (R10)(AX*1), R11
	VPBROADCASTD  k5xTwice<>(SB), Z30
	XORQ          DX, DX
	K5ZERO4(Z4, Z5, Z6, Z7)

k5mloop:
	K5ZERO4(Z0, Z1, Z2, Z3)
	PREFETCHT0 K5XPFD+const_k5xMins(BX)
	PREFETCHT0 K5XPFD+const_k5xMins+64(BX)
	K5MINS(0, Z16)
	K5MINS(1, Z17)
	K5MINS(2, Z18)
	K5MINS(3, Z19)
	K5MINS(4, Z20)
	K5MINS(5, Z21)
	K5MINS(6, Z22)
	K5MINS(7, Z23)
	K5M4(0, Z16)
	K5M4(1, Z17)
	K5M4(2, Z18)
	K5M4(3, Z19)
	K5M4(4, Z20)
	K5M4(5, Z21)
	K5M4(6, Z22)
	K5M4(7, Z23)
	VCVTPH2PS const_k5xDmin(BX), Z8
	K5F(VFNMADD231PS, R8, Z0, Z4)
	K5F(VFNMADD231PS, R9, Z1, Z5)
	K5F(VFNMADD231PS, R10, Z2, Z6)
	K5F(VFNMADD231PS, R11, Z3, Z7)
	ADDQ  $const_k5xBlock, BX
	ADDQ  $292, DX
	DECQ  CX
	JNZ   k5mloop

	K5STORE4(32)
	VZEROUPPER
	RET

// K5L1 adds lane m of the super-block at SI and the column at R8 into its accumulator F, with the scale
// pairs in Z24…Z27 and d·yd in Z12.
#define K5L1(PF, m, F)                                                 \
	PREFETCH5I(PF, K5XPFD+const_k5xSD+320*m, SI)                         \
	K5UNPACK(const_k5xSD+320*m)                                           \
	VPXORD   Z9, Z9, Z9                                                   \
	VPXORD   Z10, Z10, Z10                                                \
	KPAIR(4+4*m(R8), 132+4*m(R8), Z16, Z20, Z11, Z13, Z24, Z9)            \
	KPAIR(36+4*m(R8), 164+4*m(R8), Z17, Z21, Z14, Z15, Z25, Z10)          \
	KPAIR(68+4*m(R8), 196+4*m(R8), Z18, Z22, Z11, Z13, Z26, Z9)           \
	KPAIR(100+4*m(R8), 228+4*m(R8), Z19, Z23, Z14, Z15, Z27, Z10)         \
	VPADDD       Z10, Z9, Z9                                              \
	VCVTDQ2PS    Z9, Z9                                                   \
	VFMADD231PS  Z12, Z9, F

// K5MIN1 adds the minimum terms of groups j and j+1 of the column at R8 into Z9 and Z10.
#define K5MIN1(j) \
	VPMOVZXBD      const_k5xMins+16*j(SI), Z16 \
	VPMOVZXBD      const_k5xMins+16+16*j(SI), Z17 \
	VPMULLD        Z30, Z16, Z16                                  \
	VPMULLD        Z30, Z17, Z17                                  \
	VPDPWSSD.BCST  260+4*j(R8), Z16, Z9                           \
	VPDPWSSD.BCST  264+4*j(R8), Z17, Z10

// GEMV1Q5KX is gemv1Q5Kx's body after its arguments (nb in CX, p in SI, a in R8, acc in DI), prefetching
// with PF (loop: its loop's label).
#define GEMV1Q5KX(PF, loop) \
	K5CONST                                      \
	VPBROADCASTD  k5xTwice<>(SB), Z30            \
	K5ZERO4(Z0, Z1, Z2, Z3)                      \
	K5ZERO4(Z4, Z5, Z6, Z7)                      \
	VPXORD        Z8, Z8, Z8                     \
loop:                                                \
	PREFETCH5I(PF, K5XPFD, SI)                   \
	VCVTPH2PS    const_k5xD(SI), Z12             \
	VMULPS.BCST  (R8), Z12, Z12                  \
	VPMOVZXBW    (SI), Z24                       \
	VPMOVZXBW    32(SI), Z25                     \
	VPMOVZXBW    64(SI), Z26                     \
	VPMOVZXBW    96(SI), Z27                     \
	K5L1(PF, 0, Z0)                              \
	K5L1(PF, 1, Z1)                              \
	K5L1(PF, 2, Z2)                              \
	K5L1(PF, 3, Z3)                              \
	K5L1(PF, 4, Z4)                              \
	K5L1(PF, 5, Z5)                              \
	K5L1(PF, 6, Z6)                              \
	K5L1(PF, 7, Z7)                              \
	VPXORD       Z9, Z9, Z9                      \
	VPXORD       Z10, Z10, Z10                   \
	K5MIN1(0)                                    \
	K5MIN1(2)                                    \
	K5MIN1(4)                                    \
	K5MIN1(6)                                    \
	VPADDD       Z10, Z9, Z9                     \
	VCVTDQ2PS    Z9, Z9                          \
	VCVTPH2PS    const_k5xDmin(SI), Z11          \
	VMULPS.BCST  (R8), Z11, Z11                  \
	VFNMADD231PS Z11, Z9, Z8                     \
	ADDQ         $const_k5xBlock, SI             \
	ADDQ         $292, R8                        \
	DECQ         CX                              \
	JNZ          loop                            \
	VMOVUPS Z0, (DI)                             \
	VMOVUPS Z1, 256(DI)                          \
	VMOVUPS Z2, 512(DI)                          \
	VMOVUPS Z3, 768(DI)                          \
	VMOVUPS Z4, 1024(DI)                         \
	VMOVUPS Z5, 1280(DI)                         \
	VMOVUPS Z6, 1536(DI)                         \
	VMOVUPS Z7, 1792(DI)                         \
	VMOVUPS Z8, 2048(DI)                         \
	VZEROUPPER                                   \
	RET

// func gemv1Q5Kx(nb int, p, a *byte, acc *[9][4 * GemmRows]float32)
//
// Reference: DotQ5_KQ8_K's eight lanes and minimum terms for the 16 rows of one stored group at p against one
// Q8_K column a, in one pass through the stored super-blocks (one stream, like the rows' own); acc[m] gets
// lane m's 16 float accumulators, acc[8] the minimum terms'. Every line is prefetched K5XPFD ahead into L1
// (PREFETCHT0).
TEXT ·gemv1Q5Kx(SB), NOSPLIT, $0-32
	MOVQ nb+0(FP), CX
	MOVQ p+8(FP), SI
	MOVQ a+16(FP), R8
	MOVQ acc+24(FP), DI
	GEMV1Q5KX(PREFETCHT0, k51loop)

// func gemv1Q5KxL2(nb int, p, a *byte, acc *[9][4 * GemmRows]float32)
//
// gemv1Q5Kx prefetching into L2 (PREFETCHT2), for Zen 4 (streamL2, prefetch_amd64.go).
TEXT ·gemv1Q5KxL2(SB), NOSPLIT, $0-32
	MOVQ nb+0(FP), CX
	MOVQ p+8(FP), SI
	MOVQ a+16(FP), R8
	MOVQ acc+24(FP), DI
	GEMV1Q5KX(PREFETCHT2, k51l2loop)
