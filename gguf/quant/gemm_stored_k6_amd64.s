//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"
#include "zero_amd64.h"
#include "prefetch_amd64.h"
#include "kpair_amd64.h"

// Kernels on stored Q6_Kx16 groups (gemm_k6.go), AVX-512 VNNI: for four columns, one integer lane m of
// DotQ6_KQ8_K through all the super-blocks of a group per call; for one, all eight lanes in one pass. Lane r
// of every vector is row r. Per super-block and lane m the kernels sum each quarter's dword exactly
// (VPDPBUSD of the unpacked unsigned quants with the broadcast activation dword), put two quarters' sums into
// the words of a dword and multiply-add them with the quarters' scales (VPDPWSSD), take −32·scale·bsum of
// groups 2m and 2m+1 off (VPDPWSSD), and fuse the lane into its float32 accumulator: acc = fma(d·yd, lane,
// acc). The caller adds the eight accumulators as hsum_float_8.

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

// K6XPFD is the kernels' prefetch distance: 2 stored super-blocks. Both kernels prefetch every line of the
// super-block that far ahead: the four-column kernel lane m's six lines (a stride the hardware prefetcher
// serves worse: 10.5 against 14 ms per 8 columns of BenchmarkGemmStored), the one-column kernel the scales
// and d at the block start and each lane's lines as it reaches the lane. BenchmarkStreamGemm q6_k,
// alternating: one goroutine 26–34 GB/s against 15–18 with only the scales and d prefetched, two 33–59
// against 17–30; one super-block ahead streamed ~20% slower, three and four as two, and putting the scales
// and d first in the layout (they are read first) made no difference once every line was prefetched. (On
// Zen 5. On Zen 4 the one-column kernel streamed slower prefetching into L1 than not at all, and faster
// prefetching into L2: gemv1Q6KxL2, prefetch_amd64.go.)
#define K6XPFD 6720

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

// K6UNPACK unpacks the half at o(SI) of a lane (dwords ql[l], ql[l+32], qh[l]) into the quarters' unsigned
// quants Z16…Z19.
#define K6UNPACK(o) \
	VMOVDQU32   o(SI), Z13            \
	VMOVDQU32   o+64(SI), Z14         \
	VMOVDQU32   o+128(SI), Z15        \
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
	ADDQ  $const_k6xBlock, SI \
	ADDQ  $const_k6xBlock, BX \
	ADDQ  $292, DX           \
	ADDQ  $292, R12          \
	ADDQ  $292, R13          \
	DECQ  CX                 \
	JNZ   label

// K6P4 adds quarter pair jj (quants ZA, ZB) of the four columns at R8…R11 into Z0…Z3.
#define K6P4(jj, ZA, ZB) \
	VPMOVSXBW  32*jj(BX)(DI*1), Z23                                                   \
	KPAIR(4+64*jj(R8)(R12*1), 36+64*jj(R8)(R12*1), ZA, ZB, Z24, Z9, Z23, Z0)          \
	KPAIR(4+64*jj(R9)(R12*1), 36+64*jj(R9)(R12*1), ZA, ZB, Z25, Z10, Z23, Z1)         \
	KPAIR(4+64*jj(R10)(R12*1), 36+64*jj(R10)(R12*1), ZA, ZB, Z26, Z11, Z23, Z2)       \
	KPAIR(4+64*jj(R11)(R12*1), 36+64*jj(R11)(R12*1), ZA, ZB, Z27, Z12, Z23, Z3)

// func gemm4Q6Kx(nb int, q, sd, a *byte, aStride, m int, acc *float32)
//
// Reference: lane m of DotQ6_KQ8_K for each of the 16×4 (row, column) pairs of one stored group (lane m's
// dwords from q, scales and d from sd, both a stored super-block apart), the columns aStride bytes apart;
// acc gets each column's 16 float accumulators in turn. Each half's quants are
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
	PREFETCH5(K6XPFD, BX)
	PREFETCH6(K6XPFD, SI)
	K6UNPACK(0)
	K6P4(0, Z16, Z17)
	K6P4(1, Z18, Z19)
	K6UNPACK(192)
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

// K6L1 adds lane m (t = m%2) of the super-block at SI and the column at R8 into its accumulator F, with the
// quarter scale pairs of its half of the lanes in Z8…Z11 (one of them, IN, the pair that holds one offset
// group in word t; the other such pair at OUT(SI)), −32 in word t in CT, d·yd in Z12. The offset terms'
// bsums are word t of the activation dwords at INB and OUTB.
#define K6L1(PF, m, CT, IN, INB, OUT, OUTB, F)                                 \
	PREFETCH6I(PF, K6XPFD+384*m, SI)                                              \
	K6UNPACK(384*m)                                                               \
	VPXORD         Z23, Z23, Z23                                                  \
	VPXORD         Z24, Z24, Z24                                                  \
	KPAIR(4+4*m(R8), 36+4*m(R8), Z16, Z17, Z25, Z26, Z8, Z23)                     \
	KPAIR(68+4*m(R8), 100+4*m(R8), Z18, Z19, Z20, Z21, Z9, Z24)                   \
	K6UNPACK(384*m+192)                                                           \
	KPAIR(132+4*m(R8), 164+4*m(R8), Z16, Z17, Z25, Z26, Z10, Z23)                 \
	KPAIR(196+4*m(R8), 228+4*m(R8), Z18, Z19, Z20, Z21, Z11, Z24)                 \
	VPMULLW        CT, IN, Z22                                                    \
	VPDPWSSD.BCST  INB(R8), Z22, Z23                                              \
	VPMOVSXBW      OUT(SI), Z22                                                   \
	VPMULLW        CT, Z22, Z22                                                   \
	VPDPWSSD.BCST  OUTB(R8), Z22, Z24                                             \
	VPADDD         Z24, Z23, Z23                                                  \
	VCVTDQ2PS      Z23, Z23                                                       \
	VFMADD231PS    Z12, Z23, F

// K6PAIRS loads the quarter scale pairs of lanes m with m/4 = w into Z8…Z11.
#define K6PAIRS(w) \
	VPMOVSXBW  const_k6xBlock-const_k6xSD+128*w(SI), Z8     \
	VPMOVSXBW  const_k6xBlock-const_k6xSD+128*w+32(SI), Z9  \
	VPMOVSXBW  const_k6xBlock-const_k6xSD+128*w+64(SI), Z10 \
	VPMOVSXBW  const_k6xBlock-const_k6xSD+128*w+96(SI), Z11

// GEMV1Q6KX is gemv1Q6Kx's body after its arguments (nb in CX, p in SI, a in R8, acc in DI), prefetching
// with PF (loop: its loop's label).
#define GEMV1Q6KX(PF, loop) \
	VPBROADCASTD k6xNib<>(SB), Z30               \
	VPBROADCASTD k6x3F<>(SB), Z29                \
	VPBROADCASTD k6xLo<>(SB), Z31                \
	VPBROADCASTD k6xM32<>+0(SB), Z28             \
	VPBROADCASTD k6xM32<>+4(SB), Z27             \
	ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)        \
loop:                                                \
	PREFETCH5I(PF, K6XPFD+3072, SI)              \
	VCVTPH2PS   const_k6xBlock-const_k6xSD+const_k6xD(SI), Z12 \
	VMULPS.BCST (R8), Z12, Z12                   \
	K6PAIRS(0)                                   \
	K6L1(PF, 0, Z28, Z8, 260, 3200, 262, Z0)     \
	K6L1(PF, 1, Z27, Z8, 262, 3200, 264, Z1)     \
	K6L1(PF, 2, Z28, Z9, 268, 3232, 270, Z2)     \
	K6L1(PF, 3, Z27, Z9, 270, 3232, 272, Z3)     \
	K6PAIRS(1)                                   \
	K6L1(PF, 4, Z28, Z10, 278, 3136, 276, Z4)    \
	K6L1(PF, 5, Z27, Z10, 280, 3136, 278, Z5)    \
	K6L1(PF, 6, Z28, Z11, 286, 3168, 284, Z6)    \
	K6L1(PF, 7, Z27, Z11, 288, 3168, 286, Z7)    \
	ADDQ        $const_k6xBlock, SI              \
	ADDQ        $292, R8                         \
	DECQ        CX                               \
	JNZ         loop                             \
	VMOVUPS Z0, (DI)                             \
	VMOVUPS Z1, 256(DI)                          \
	VMOVUPS Z2, 512(DI)                          \
	VMOVUPS Z3, 768(DI)                          \
	VMOVUPS Z4, 1024(DI)                         \
	VMOVUPS Z5, 1280(DI)                         \
	VMOVUPS Z6, 1536(DI)                         \
	VMOVUPS Z7, 1792(DI)                         \
	VZEROUPPER                                   \
	RET

// func gemv1Q6Kx(nb int, p, a *byte, acc *[8][4 * GemmRows]float32)
//
// Reference: DotQ6_KQ8_K's eight lanes for the 16 rows of one stored group at p against one Q8_K column a,
// in one pass through the stored super-blocks (one stream, like the rows' own); acc[m] gets lane m's 16
// float accumulators. Every line is prefetched K6XPFD ahead into L1 (PREFETCHT0).
TEXT ·gemv1Q6Kx(SB), NOSPLIT, $0-32
	MOVQ nb+0(FP), CX
	MOVQ p+8(FP), SI
	MOVQ a+16(FP), R8
	MOVQ acc+24(FP), DI
	GEMV1Q6KX(PREFETCHT0, k61loop)

// func gemv1Q6KxL2(nb int, p, a *byte, acc *[8][4 * GemmRows]float32)
//
// gemv1Q6Kx prefetching into L2 (PREFETCHT2), for Zen 4 (streamL2, prefetch_amd64.go).
TEXT ·gemv1Q6KxL2(SB), NOSPLIT, $0-32
	MOVQ nb+0(FP), CX
	MOVQ p+8(FP), SI
	MOVQ a+16(FP), R8
	MOVQ acc+24(FP), DI
	GEMV1Q6KX(PREFETCHT2, k61l2loop)
