//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"
#include "prefetch_amd64.h"
#include "zero_amd64.h"

// Kernels on stored Q4_Kx16 groups (gemm_stored_k4.go), AVX-512 VNNI, with Q8_KW's quants in the permuted
// order (q8kwPermute): activation dword t of group 2i starts at quant 128·(i/2) + 32·(i%2) + 4t, and that of
// group 2i+1 64 bytes further. Lane r of every vector is row r; per super-block each lane sums its groups
// exactly (VPDPBUSD of the unpacked nibbles with the broadcast activation dwords), scales them (VPMULLD) and
// does DotQ4_KQ8_KRepacked's float operations: per pair of groups, acc = fma(float32(sum), d·yd, acc) and
// accMin = fma(float32(mins), dmin·yd, accMin), and acc − accMin at the end.

DATA k4xNib<>+0(SB)/4, $0x0f0f0f0f
GLOBL k4xNib<>(SB), RODATA|NOPTR, $4

// K4XPFD is the four-column kernel's prefetch distance: 3 stored super-blocks.
#define K4XPFD 7104

// X1PFD is the one-column kernel's: 2 stored super-blocks, every line (the header's five at the block
// start, each quant line as X1 reads it). BenchmarkStreamGemm q4_k, alternating: one goroutine 24.5–27.1
// GB/s against 18.6–21.0 unprefetched, two 31.1–48.5 against 26.6–38.1; one and three super-blocks ahead
// streamed as two. (An earlier measurement had found the unprefetched kernel faster: 19.2–20.9 against
// 13.4–15.9 GB/s with one goroutine. The host decides: on Zen 4 the kernel streams faster touching each line
// as it reaches it, on Zen 5 prefetching ahead; so the distance is STREAMAHEAD's, prefetch_amd64.go.)
#define X1PFD 4736

// X1 adds stored dword so (its offset in the quants) of the super-block at SI into the group sums ZL (low
// nibbles, activation dword at lo(DI)) and ZH (high nibbles, at hi(DI)).
#define X1(so, lo, hi, ZL, ZH) \
	PREFETCHT0    const_k4xQs+so(SI)(R12*1) \
	VMOVDQU32     const_k4xQs+so(SI), Z10   \
	VPANDD        Z31, Z10, Z11             \
	VPSRLD        $4, Z10, Z12              \
	VPANDD        Z31, Z12, Z12             \
	VPDPBUSD.BCST lo(DI), Z11, ZL           \
	VPDPBUSD.BCST hi(DI), Z12, ZH

// XP1 adds the eight stored dwords of chunk i (quant offset so = 512·i, activation dwords of its low group
// from lo) into ZL and ZH, in memory order: the odd dwords go through ZL2 and ZH2, which are then added in,
// so that four dependency chains run side by side (the integer sums are exact, so their order does not
// matter; with two chains the kernel ran half as fast in cache).
#define XP1(so, lo, ZL, ZH, ZL2, ZH2) \
	VPXORD ZL2, ZL2, ZL2                     \
	VPXORD ZH2, ZH2, ZH2                     \
	X1(so, lo, lo+64, ZL, ZH)                \
	X1(so+64, lo+4, lo+68, ZL2, ZH2)         \
	X1(so+128, lo+8, lo+72, ZL, ZH)          \
	X1(so+192, lo+12, lo+76, ZL2, ZH2)       \
	X1(so+256, lo+16, lo+80, ZL, ZH)         \
	X1(so+320, lo+20, lo+84, ZL2, ZH2)       \
	X1(so+384, lo+24, lo+88, ZL, ZH)         \
	X1(so+448, lo+28, lo+92, ZL2, ZH2)       \
	VPADDD ZL2, ZL, ZL                       \
	VPADDD ZH2, ZH, ZH

// XSCALE multiplies group sum Z by group j's scales.
#define XSCALE(j, Z) \
	VPMOVZXBD const_k4xScales+16*j(SI), Z13 \
	VPMULLD   Z13, Z, Z

// XMIN1 fuses pair i's minimum term (the minimums times the bsum pairs at DI) times dmin·yd (Z15) into Z9.
#define XMIN1(i) \
	VPMOVZXBW    const_k4xMins+32*i(SI), Z16 \
	VPBROADCASTD const_q8kwBP+4*i(DI), Z17   \
	VPMADDWD     Z17, Z16, Z16               \
	VCVTDQ2PS    Z16, Z16                    \
	VFMADD231PS  Z15, Z16, Z9

// func gemv1Q4Kx(nb int, p, a *byte, out *float32, mask int)
//
// Reference: DotQ4_KQ8_KRepacked for the 16 rows of one stored group against one Q8_KW column; the eight
// group sums of a super-block are eight dependency chains. Each super-block's d and dmin (its first line) are
// read before its quants: unprefetched, with them read after, as their products are needed, the kernel
// streamed 18–25% slower from memory (BenchmarkStreamGemm q4_k, alternating: 17.2–19.2 against 18.3–22.6
// GB/s with one goroutine, 26.6–33.6 against 31.7–42.4 with two); with every line prefetched (X1PFD) the
// order makes no difference.
TEXT ·gemv1Q4Kx(SB), NOSPLIT, $0-40
	MOVQ         nb+0(FP), CX
	MOVQ         p+8(FP), SI
	MOVQ         a+16(FP), DI
	VPBROADCASTD k4xNib<>(SB), Z31
	VPXORD       Z8, Z8, Z8
	VPXORD       Z9, Z9, Z9
	STREAMAHEAD(X1PFD, R12)

x1loop:
	PREFETCH5X(0, SI, R12)
	VCVTPH2PS   (SI), Z14
	VMULPS.BCST (DI), Z14, Z14
	VCVTPH2PS   const_k4xDmin(SI), Z15
	VMULPS.BCST (DI), Z15, Z15
	ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	XP1(0, 4, Z0, Z1, Z18, Z19)
	XP1(512, 36, Z2, Z3, Z20, Z21)
	XP1(1024, 132, Z4, Z5, Z22, Z23)
	XP1(1536, 164, Z6, Z7, Z24, Z25)
	XSCALE(0, Z0)
	XSCALE(1, Z1)
	XSCALE(2, Z2)
	XSCALE(3, Z3)
	XSCALE(4, Z4)
	XSCALE(5, Z5)
	XSCALE(6, Z6)
	XSCALE(7, Z7)
	VPADDD      Z1, Z0, Z0
	VPADDD      Z3, Z2, Z2
	VPADDD      Z5, Z4, Z4
	VPADDD      Z7, Z6, Z6
	VCVTDQ2PS   Z0, Z0
	VCVTDQ2PS   Z2, Z2
	VCVTDQ2PS   Z4, Z4
	VCVTDQ2PS   Z6, Z6
	VFMADD231PS Z14, Z0, Z8
	VFMADD231PS Z14, Z2, Z8
	VFMADD231PS Z14, Z4, Z8
	VFMADD231PS Z14, Z6, Z8
	XMIN1(0)
	XMIN1(1)
	XMIN1(2)
	XMIN1(3)
	ADDQ        $const_k4xBlock, SI
	ADDQ        $const_q8kwBlock, DI
	DECQ        CX
	JNZ         x1loop

	VSUBPS  Z9, Z8, Z8
	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Z8, K1, (DI)
	VZEROUPPER
	RET

// X4 adds stored dword so of the super-block at SI (prefetching K4XPFD ahead), for the four columns at R8…R11 (block offset DX), into
// their group sums Z0/Z1, Z2/Z3, Z4/Z5, Z6/Z7 (low/high nibbles; activation dwords at lo and hi).
#define X4(so, lo, hi) \
	PREFETCHT0    K4XPFD+const_k4xQs+so(SI) \
	VMOVDQU32     const_k4xQs+so(SI), Z16 \
	VPANDD        Z31, Z16, Z17           \
	VPSRLD        $4, Z16, Z18            \
	VPANDD        Z31, Z18, Z18           \
	VPDPBUSD.BCST lo(R8)(DX*1), Z17, Z0   \
	VPDPBUSD.BCST hi(R8)(DX*1), Z18, Z1   \
	VPDPBUSD.BCST lo(R9)(DX*1), Z17, Z2   \
	VPDPBUSD.BCST hi(R9)(DX*1), Z18, Z3   \
	VPDPBUSD.BCST lo(R10)(DX*1), Z17, Z4  \
	VPDPBUSD.BCST hi(R10)(DX*1), Z18, Z5  \
	VPDPBUSD.BCST lo(R11)(DX*1), Z17, Z6  \
	VPDPBUSD.BCST hi(R11)(DX*1), Z18, Z7

// XF4 finishes pair i for the column at R (group sums ZL, ZH; accumulators ACC, ACCMIN): scales from Z21,
// Z22, minimum pairs from Z23, d in Z19 and dmin in Z20.
#define XF4(i, R, ZL, ZH, ACC, ACCMIN) \
	VPMULLD      Z21, ZL, ZL                 \
	VPMULLD      Z22, ZH, ZH                 \
	VPADDD       ZH, ZL, ZL                  \
	VCVTDQ2PS    ZL, ZL                      \
	VMULPS.BCST  (R)(DX*1), Z19, Z24         \
	VFMADD231PS  Z24, ZL, ACC                \
	VPBROADCASTD const_q8kwBP+4*i(R)(DX*1), Z25 \
	VPMADDWD     Z25, Z23, Z25               \
	VCVTDQ2PS    Z25, Z25                    \
	VMULPS.BCST  (R)(DX*1), Z20, Z26         \
	VFMADD231PS  Z26, Z25, ACCMIN

// XP4 adds pair i (quant offset so = 512·i, low group's activation dwords from lo) of the four columns into
// their accumulators Z8…Z11 and Z12…Z15.
#define XP4(i, so, lo) \
	ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)               \
	X4(so, lo, lo+64)                             \
	X4(so+64, lo+4, lo+68)                        \
	X4(so+128, lo+8, lo+72)                       \
	X4(so+192, lo+12, lo+76)                      \
	X4(so+256, lo+16, lo+80)                      \
	X4(so+320, lo+20, lo+84)                      \
	X4(so+384, lo+24, lo+88)                      \
	X4(so+448, lo+28, lo+92)                      \
	VPMOVZXBD const_k4xScales+32*i(SI), Z21       \
	VPMOVZXBD const_k4xScales+32*i+16(SI), Z22    \
	VPMOVZXBW const_k4xMins+32*i(SI), Z23         \
	XF4(i, R8, Z0, Z1, Z8, Z12)                   \
	XF4(i, R9, Z2, Z3, Z9, Z13)                   \
	XF4(i, R10, Z4, Z5, Z10, Z14)                 \
	XF4(i, R11, Z6, Z7, Z11, Z15)

// func gemm4Q4Kx(nb int, p, a *byte, aStride int, out *float32, outStride, mask int)
//
// Reference: DotQ4_KQ8_KRepacked for each of the 16×4 (row, column) pairs of one stored group; each stored
// dword is unpacked once for the four columns.
TEXT ·gemm4Q4Kx(SB), NOSPLIT, $0-56
	MOVQ         nb+0(FP), CX
	MOVQ         p+8(FP), SI
	MOVQ         a+16(FP), R8
	MOVQ         aStride+24(FP), AX
	LEAQ         (R8)(AX*1), R9
	LEAQ         (R9)(AX*1), R10
	LEAQ         (R10)(AX*1), R11
	XORQ         DX, DX
	VPBROADCASTD k4xNib<>(SB), Z31
	ZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

x4loop:
	PREFETCH5(K4XPFD, SI)
	VCVTPH2PS (SI), Z19
	VCVTPH2PS const_k4xDmin(SI), Z20
	XP4(0, 0, 4)
	XP4(1, 512, 36)
	XP4(2, 1024, 132)
	XP4(3, 1536, 164)
	ADDQ      $const_k4xBlock, SI
	ADDQ      $const_q8kwBlock, DX
	DECQ      CX
	JNZ       x4loop

	MOVQ    mask+48(FP), AX
	KMOVW   AX, K1
	MOVQ    out+32(FP), DI
	MOVQ    outStride+40(FP), AX
	SHLQ    $2, AX
	VSUBPS  Z12, Z8, Z8
	VMOVUPS Z8, K1, (DI)
	ADDQ    AX, DI
	VSUBPS  Z13, Z9, Z9
	VMOVUPS Z9, K1, (DI)
	ADDQ    AX, DI
	VSUBPS  Z14, Z10, Z10
	VMOVUPS Z10, K1, (DI)
	ADDQ    AX, DI
	VSUBPS  Z15, Z11, Z11
	VMOVUPS Z11, K1, (DI)
	VZEROUPPER
	RET

// Byte permutation of k4xQuants: output dword 8c+t (chunk c of the vector, t = 0…7) takes bytes t, t+8,
// t+16 and t+24 of the chunk.
DATA k4xPerm<>+0(SB)/8, $0x1911090118100800
DATA k4xPerm<>+8(SB)/8, $0x1b130b031a120a02
DATA k4xPerm<>+16(SB)/8, $0x1d150d051c140c04
DATA k4xPerm<>+24(SB)/8, $0x1f170f071e160e06
DATA k4xPerm<>+32(SB)/8, $0x3931292138302820
DATA k4xPerm<>+40(SB)/8, $0x3b332b233a322a22
DATA k4xPerm<>+48(SB)/8, $0x3d352d253c342c24
DATA k4xPerm<>+56(SB)/8, $0x3f372f273e362e26
GLOBL k4xPerm<>(SB), RODATA|NOPTR, $64

// Scatter offsets: dword s of a vector goes to stored slot s, s·GemmRows·4 bytes on.
DATA k4xScat<>+0(SB)/8, $0x0000004000000000
DATA k4xScat<>+8(SB)/8, $0x000000c000000080
DATA k4xScat<>+16(SB)/8, $0x0000014000000100
DATA k4xScat<>+24(SB)/8, $0x000001c000000180
DATA k4xScat<>+32(SB)/8, $0x0000024000000200
DATA k4xScat<>+40(SB)/8, $0x000002c000000280
DATA k4xScat<>+48(SB)/8, $0x0000034000000300
DATA k4xScat<>+56(SB)/8, $0x000003c000000380
GLOBL k4xScat<>(SB), RODATA|NOPTR, $64

// func k4xQuants(dst, qs *byte)
//
// packQ4_Kx16Lane's quant loop in the permuted order: the 128 quant bytes of one Q4_K super-block at qs into
// the 32 slots of one lane (dst: the lane's first slot in a stored super-block).
TEXT ·k4xQuants(SB), NOSPLIT, $0-16
	MOVQ        dst+0(FP), DI
	MOVQ        qs+8(FP), SI
	VMOVDQU64   k4xPerm<>(SB), Z31
	VMOVDQU32   k4xScat<>(SB), Z30
	VMOVDQU64   0(SI), Z0
	VMOVDQU64   64(SI), Z1
	VPERMB      Z0, Z31, Z0
	VPERMB      Z1, Z31, Z1
	KXNORW      K1, K1, K1
	VPSCATTERDD Z0, K1, (DI)(Z30*1)
	KXNORW      K1, K1, K1
	VPSCATTERDD Z1, K1, 1024(DI)(Z30*1)
	VZEROUPPER
	RET
