//go:build amd64 && !noasm

#include "textflag.h"
#include "zero_amd64.h"
#include "dot_amd64.h"

// The BF16 Gemm with AVX2 and FMA only, in DotBF16BF16's order (the reference build's VDPBF16PS, emulated as
// in dotbf_amd64.s: a lane takes the elements 2j+1 and 2j of its 32-element step, in that order, each exact
// product added with one rounding). Where no partial sum can come near the instruction's flushes (mulBF16
// checks the rows' and columns' smallest magnitudes first, bfMinMagAVX2) the fused multiply-adds give its bits.
// A tile of 2 weight rows × 4 activation rows holds one register of 8 lanes per (row, column): the kernel
// passes over the rows four times, pass p taking the 16 elements 16p…16p+15 of every 64 (set 1's lanes 0…7
// and 8…15, then set 2's), and the passes' lanes are reduced as _mm512_reduce_add_ps per set at the end.

DATA kBFHiG<>+0(SB)/4, $0xffff0000
GLOBL kBFHiG<>(SB), RODATA|NOPTR, $4
DATA kBFMag<>+0(SB)/4, $0x7fff7fff
GLOBL kBFMag<>(SB), RODATA|NOPTR, $4

// BFCOL adds the 16 elements at BX past column pointer R into the accumulators of rows 0 (A0) and 1 (A1):
// the odd elements' products (weights in Y8, Y10), then the even ones' (Y9, Y11).
#define BFCOL(R, A0, A1) \
	VMOVDQU     (R)(BX*1), Y13  \
	VPAND       Y15, Y13, Y12   \
	VPSLLD      $16, Y13, Y13   \
	VFMADD231PS Y12, Y8, A0     \
	VFMADD231PS Y12, Y10, A1    \
	VFMADD231PS Y13, Y9, A0     \
	VFMADD231PS Y13, Y11, A1

// BFCOLPTR sets R to column c0 + k's row (the last column for those past cols).
#define BFCOLPTR(k, R) \
	MOVQ   R12, AX             \
	ADDQ   $k, AX              \
	CMPQ   AX, cols+40(FP)     \
	JLT    3(PC)               \
	MOVQ   cols+40(FP), AX     \
	DECQ   AX                  \
	IMULQ  aStride+32(FP), AX  \
	ADDQ   a+24(FP), AX        \
	MOVQ   AX, R

// BFRED sets sums[4(c0+c) + 2·pair + r] (at 32c + 8r past DI) to the two sets' _mm512_reduce_add_ps added in
// float64, from the passes' lanes at DX (pass p's register of (r, c) at 256p + 128r + 32c), if c0 + c < cols
// (else it jumps over its 20 instructions).
#define BFRED(r, c) \
	MOVQ         R12, AX             \
	ADDQ         $c, AX              \
	CMPQ         AX, cols+40(FP)     \
	JGE          21(PC)              \
	VMOVUPS      128*r+32*c(DX), Y0  \
	VADDPS       256+128*r+32*c(DX), Y0, Y0 \
	HSUM8                            \
	VCVTSS2SD    X0, X0, X6          \
	VMOVUPS      512+128*r+32*c(DX), Y0 \
	VADDPS       768+128*r+32*c(DX), Y0, Y0 \
	HSUM8                            \
	VCVTSS2SD    X0, X0, X7          \
	VADDSD       X7, X6, X6          \
	VMOVSD       X6, 32*c+8*r(DI)

// func gemm4BF16AVX2(steps int, w *byte, wStride int, a *byte, aStride, cols int, sums *float64) (exact bool)
//
// gemm4BF16 with AVX2 and FMA: sums[4c + r] for r < 4, c < cols is DotBF16BF16's vector part over the first
// 64·steps elements of weight row r and activation row c, where mulBF16 has found no flush possible (exact is
// always true).
TEXT ·gemm4BF16AVX2(SB), $1024-57
	LEAQ         lanes-1024(SP), DX
	VPBROADCASTD kBFHiG<>(SB), Y15
	XORQ         R12, R12            // c0

bfcols:
	BFCOLPTR(0, R8)
	BFCOLPTR(1, R9)
	BFCOLPTR(2, R10)
	BFCOLPTR(3, R11)
	XORQ R13, R13                    // row pair

bfpair:
	MOVQ  R13, SI
	SHLQ  $1, SI
	IMULQ wStride+16(FP), SI
	ADDQ  w+8(FP), SI
	MOVQ  SI, DI
	ADDQ  wStride+16(FP), DI
	XORQ  R14, R14                   // pass p's byte offset, 32p

bfpass:
	ZERO8Y(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	MOVQ   steps+0(FP), CX
	MOVQ   R14, BX

bfstep:
	VMOVDQU (SI)(BX*1), Y9
	VPAND   Y15, Y9, Y8
	VPSLLD  $16, Y9, Y9
	VMOVDQU (DI)(BX*1), Y11
	VPAND   Y15, Y11, Y10
	VPSLLD  $16, Y11, Y11
	BFCOL(R8, Y0, Y4)
	BFCOL(R9, Y1, Y5)
	BFCOL(R10, Y2, Y6)
	BFCOL(R11, Y3, Y7)
	ADDQ    $128, BX
	DECQ    CX
	JNZ     bfstep

	MOVQ    R14, AX
	SHLQ    $3, AX                   // 256p
	VMOVUPS Y0, (DX)(AX*1)
	VMOVUPS Y1, 32(DX)(AX*1)
	VMOVUPS Y2, 64(DX)(AX*1)
	VMOVUPS Y3, 96(DX)(AX*1)
	VMOVUPS Y4, 128(DX)(AX*1)
	VMOVUPS Y5, 160(DX)(AX*1)
	VMOVUPS Y6, 192(DX)(AX*1)
	VMOVUPS Y7, 224(DX)(AX*1)
	ADDQ    $32, R14
	CMPQ    R14, $128
	JLT     bfpass

	MOVQ R12, DI
	SHLQ $5, DI                      // 32·c0
	MOVQ R13, AX
	SHLQ $4, AX                      // 16·pair
	ADDQ AX, DI
	ADDQ sums+48(FP), DI
	BFRED(0, 0)
	BFRED(1, 0)
	BFRED(0, 1)
	BFRED(1, 1)
	BFRED(0, 2)
	BFRED(1, 2)
	BFRED(0, 3)
	BFRED(1, 3)
	INCQ R13
	CMPQ R13, $2
	JLT  bfpair
	ADDQ $4, R12
	CMPQ R12, cols+40(FP)
	JLT  bfcols
	MOVB $1, exact+56(FP)
	VZEROUPPER
	RET

// func bfMinMagAVX2(n int, x *byte) uint16
//
// The smallest magnitude (the low 15 bits) of the nonzero BF16 elements of x (n a positive multiple of 16),
// 0xffff if all are zero.
TEXT ·bfMinMagAVX2(SB), NOSPLIT, $0-18
	MOVQ         n+0(FP), CX
	MOVQ         x+8(FP), SI
	SHRQ         $4, CX
	VPBROADCASTD kBFMag<>(SB), Y3
	VPCMPEQW     Y0, Y0, Y0          // running minimum, 0xffff
	VPXOR        Y4, Y4, Y4

bfmm:
	VPAND    (SI), Y3, Y1
	VPCMPEQW Y4, Y1, Y2
	VPOR     Y2, Y1, Y1              // zeros become 0xffff
	VPMINUW  Y1, Y0, Y0
	ADDQ     $32, SI
	DECQ     CX
	JNZ      bfmm
	VEXTRACTI128 $1, Y0, X1
	VPMINUW      X1, X0, X0
	VPHMINPOSUW  X0, X0
	VMOVD        X0, AX
	MOVW         AX, ret+16(FP)
	VZEROUPPER
	RET
