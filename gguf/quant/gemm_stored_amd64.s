//go:build amd64 && !noasm

#include "textflag.h"
#include "zero_amd64.h"
#include "prefetch_amd64.h"
#include "q4row_amd64.h"

// Kernels on stored Q4_0x16 groups (gemm_stored.go), AVX-512 VNNI: the loads give lane r = row r directly,
// so nothing is gathered or packed per pass. Each lane does the float operations of
// DotQ4_0Q8_0Interleaved for its (row, column) pair, as the kernels of gemm_amd64.s.

DATA sNib<>+0(SB)/4, $0x0f0f0f0f
GLOBL sNib<>(SB), RODATA|NOPTR, $4

// SPFD is the 8-column kernel's prefetch distance: 24 stored blocks (~45 ns per block without prefetching, ~29
// with), each block's 288 bytes (five lines) prefetched. The one-column kernel leaves its single stream to the
// hardware prefetcher, which keeps up better: membw's BenchmarkStreamGemm, alternating, 16.7/16.0/14.8 GB/s
// prefetching, 21.6/18.3/20.6 without (one goroutine), 27.1/20.9/24.1 against 29.8/23.8/29.5 (two).
#define SPFD 6912

// SUNPACK loads the current stored block at SI: its scales as float32 in Z24, the low nibbles of quant
// dwords 0…3 in Z16…Z19 (elements 4k…4k+3) and the high ones in Z20…Z23 (elements 16+4k…); Z30 holds the
// nibble mask.
#define SUNPACK \
	VCVTPH2PS (SI), Z24      \
	VMOVDQU32 32(SI), Z26    \
	VMOVDQU32 96(SI), Z27    \
	VMOVDQU32 160(SI), Z28   \
	VMOVDQU32 224(SI), Z29   \
	VPANDD    Z30, Z26, Z16  \
	VPSRLD    $4, Z26, Z20   \
	VPANDD    Z30, Z20, Z20  \
	VPANDD    Z30, Z27, Z17  \
	VPSRLD    $4, Z27, Z21   \
	VPANDD    Z30, Z21, Z21  \
	VPANDD    Z30, Z28, Z18  \
	VPSRLD    $4, Z28, Z22   \
	VPANDD    Z30, Z22, Z22  \
	VPANDD    Z30, Z29, Z19  \
	VPSRLD    $4, Z29, Z23   \
	VPANDD    Z30, Z23, Z23

// SDP8 adds quant group OFF of the 8 columns (R8…R13, BX, DI) times the unsigned quants Q into their block
// sums Z8…Z15: one step of 8 independent chains, so that the VPDPBUSD latency is hidden (the integer sums are
// exact, so the order of the steps does not matter).
#define SDP8(OFF, Q) \
	VPDPBUSD.BCST OFF(R8)(DX*1), Q, Z8   \
	VPDPBUSD.BCST OFF(R9)(DX*1), Q, Z9   \
	VPDPBUSD.BCST OFF(R10)(DX*1), Q, Z10 \
	VPDPBUSD.BCST OFF(R11)(DX*1), Q, Z11 \
	VPDPBUSD.BCST OFF(R12)(DX*1), Q, Z12 \
	VPDPBUSD.BCST OFF(R13)(DX*1), Q, Z13 \
	VPDPBUSD.BCST OFF(BX)(DX*1), Q, Z14  \
	VPDPBUSD.BCST OFF(DI)(DX*1), Q, Z15

// SFIN: ACC = fma(float(T), dw·da, ACC), the reference's step for the column at R; Z24 holds dw.
#define SFIN(R, T, ACC) \
	VCVTDQ2PS   T, T                \
	VMULPS.BCST (R)(DX*1), Z24, Z25 \
	VFMADD231PS Z25, T, ACC

// func gemm8Q4x(nb int, p, a *byte, aStride int, out *float32, outStride, mask int)
//
// Reference: DotQ4_0Q8_0Interleaved for each of the 16×8 (row, column) pairs of one stored group; the
// nibbles are unpacked once per block for the 8 columns.
TEXT ·gemm8Q4x(SB), NOSPLIT, $0-56
	MOVQ         nb+0(FP), CX
	MOVQ         p+8(FP), SI
	MOVQ         a+16(FP), R8
	MOVQ         aStride+24(FP), AX
	LEAQ         (R8)(AX*1), R9
	LEAQ         (R9)(AX*1), R10
	LEAQ         (R10)(AX*1), R11
	LEAQ         (R11)(AX*1), R12
	LEAQ         (R12)(AX*1), R13
	LEAQ         (R13)(AX*1), BX
	LEAQ         (BX)(AX*1), DI
	XORQ         DX, DX
	VPBROADCASTD sNib<>(SB), Z30
	ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)

s8loop:
	PREFETCH5(SPFD, SI) // the stored block SPFD bytes ahead
	SUNPACK
	VPBROADCASTD 4(R8)(DX*1), Z8
	VPBROADCASTD 4(R9)(DX*1), Z9
	VPBROADCASTD 4(R10)(DX*1), Z10
	VPBROADCASTD 4(R11)(DX*1), Z11
	VPBROADCASTD 4(R12)(DX*1), Z12
	VPBROADCASTD 4(R13)(DX*1), Z13
	VPBROADCASTD 4(BX)(DX*1), Z14
	VPBROADCASTD 4(DI)(DX*1), Z15
	SDP8(8, Z16)
	SDP8(12, Z17)
	SDP8(16, Z18)
	SDP8(20, Z19)
	SDP8(24, Z20)
	SDP8(28, Z21)
	SDP8(32, Z22)
	SDP8(36, Z23)
	SFIN(R8, Z8, Z0)
	SFIN(R9, Z9, Z1)
	SFIN(R10, Z10, Z2)
	SFIN(R11, Z11, Z3)
	SFIN(R12, Z12, Z4)
	SFIN(R13, Z13, Z5)
	SFIN(BX, Z14, Z6)
	SFIN(DI, Z15, Z7)
	ADDQ $288, SI
	ADDQ $40, DX
	DECQ CX
	JNZ  s8loop

	MOVQ    mask+48(FP), AX
	KMOVW   AX, K1
	MOVQ    out+32(FP), DI
	MOVQ    outStride+40(FP), AX
	SHLQ    $2, AX
	VMOVUPS Z0, K1, (DI)
	ADDQ    AX, DI
	VMOVUPS Z1, K1, (DI)
	ADDQ    AX, DI
	VMOVUPS Z2, K1, (DI)
	ADDQ    AX, DI
	VMOVUPS Z3, K1, (DI)
	ADDQ    AX, DI
	VMOVUPS Z4, K1, (DI)
	ADDQ    AX, DI
	VMOVUPS Z5, K1, (DI)
	ADDQ    AX, DI
	VMOVUPS Z6, K1, (DI)
	ADDQ    AX, DI
	VMOVUPS Z7, K1, (DI)
	VZEROUPPER
	RET

// func gemv1Q4x(nb int, p, a *byte, out *float32, mask int)
//
// Reference: DotQ4_0Q8_0Interleaved for the 16 rows of one stored group against one column, unprefetched (see
// SPFD); the block sum runs in two dependency chains (low and
// high nibbles; the integer sums are exact, so their order does not matter).
TEXT ·gemv1Q4x(SB), NOSPLIT, $0-40
	MOVQ         nb+0(FP), CX
	MOVQ         p+8(FP), SI
	MOVQ         a+16(FP), DI
	VPBROADCASTD sNib<>(SB), Z30
	VPXORD       Z0, Z0, Z0

s1loop:
	VCVTPH2PS     (SI), Z1
	VMOVDQU32     32(SI), Z2
	VMOVDQU32     96(SI), Z3
	VMOVDQU32     160(SI), Z4
	VMOVDQU32     224(SI), Z5
	Q4ROW16
	ADDQ          $288, SI
	ADDQ          $40, DI
	DECQ          CX
	JNZ           s1loop

	MOVQ    mask+32(FP), AX
	KMOVW   AX, K1
	MOVQ    out+24(FP), DI
	VMOVUPS Z0, K1, (DI)
	VZEROUPPER
	RET
