//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"
#include "mxfp4_amd64.h"

// Kernels on stored MXFP4x16 groups (gemm_stored_mx.go) for CPUs with AVX2 but without AVX-512 VNNI, against
// Q8_0S activation rows (d float32 at 0, −8·Σa at 4, the quants at 8). 256-bit registers hold 8 of the
// group's rows (lane r = row 8h+r of half h), so a plain load of a stored quant dword gives 8 rows. VPSHUFB
// looks the nibbles up as kvaluesMXFP4+12 (0…24, unsigned), VPMADDUBSW multiplies them with the broadcast
// signed activation bytes into int16 pairs, and VPADDW adds the four of two quant dwords (8 products,
// |8·24·128| = 24576 < 2¹⁵; all 32 would not fit); VPMADDWD with ones makes the exact int32 sums of each half
// of the block, and adding 12·Σa back out (Q8_0S's −8·Σa times 3/2) gives DotMXFP4Q8_0's block sum s. The
// float work is the reference's, lane by lane: d = yd·e8m0Half(e), then acc += d·float32(s), each rounded.

DATA kMXNib<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA kMXNib<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA kMXNib<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA kMXNib<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL kMXNib<>(SB), RODATA|NOPTR, $32

DATA kMXOnes16<>+0(SB)/8, $0x0001000100010001
DATA kMXOnes16<>+8(SB)/8, $0x0001000100010001
DATA kMXOnes16<>+16(SB)/8, $0x0001000100010001
DATA kMXOnes16<>+24(SB)/8, $0x0001000100010001
GLOBL kMXOnes16<>(SB), RODATA|NOPTR, $32

// MXLOOK looks up the quant dword of 8 rows at off(SI)(DX*1) with the table in Y10: the low nibbles into
// LO, the high ones into HI.
#define MXLOOK(off, LO, HI) \
	VMOVDQU off(SI)(DX*1), LO      \
	VPSRLW  $4, LO, HI             \
	VPAND   kMXNib<>(SB), LO, LO   \
	VPAND   kMXNib<>(SB), HI, HI   \
	VPSHUFB LO, Y10, LO            \
	VPSHUFB HI, Y10, HI

// MXHALF sets I to the int32 sums of the products of the looked-up quants Q0, Q1 (low and high nibbles of
// one dword) and Q2, Q3 (of the next) with the column at R's quant dwords at a0…a3. Clobbers Y11.
#define MXHALF(R, a0, a1, a2, a3, Q0, Q1, Q2, Q3, I) \
	VPBROADCASTD a0(R), Y11            \
	VPMADDUBSW   Y11, Q0, I            \
	VPBROADCASTD a1(R), Y11            \
	VPMADDUBSW   Y11, Q1, Y11          \
	VPADDW       Y11, I, I             \
	VPBROADCASTD a2(R), Y11            \
	VPMADDUBSW   Y11, Q2, Y11          \
	VPADDW       Y11, I, I             \
	VPBROADCASTD a3(R), Y11            \
	VPMADDUBSW   Y11, Q3, Y11          \
	VPADDW       Y11, I, I             \
	VPMADDWD     kMXOnes16<>(SB), I, I

// MXFIN: ACC += float32(yd·E)·float32(I − 12·Σa) for the column at R (I its int32 sums, E the rows'
// e8m0Half(e)), each step rounded. Clobbers Y11, Y12.
#define MXFIN(R, I, E, ACC) \
	VPBROADCASTD 4(R), Y11   \
	VPSRAD       $1, Y11, Y12 \
	VPADDD       Y12, Y11, Y11 \
	VPADDD       Y11, I, I    \
	VCVTDQ2PS    I, I         \
	VBROADCASTSS (R), Y11     \
	VMULPS       E, Y11, Y11  \
	VMULPS       Y11, I, I    \
	VADDPS       I, ACC, ACC

// MX4COL adds the products of quant dwords t and t+1 (looked up in Y8, Y9, Y14, Y15) with the column at R to
// its int32 sums I; MX4FIRST sets I to those of dwords 0 and 1. Clobbers Y11, Y12.
#define MX4COL(R, t, I) \
	MXHALF(R, 8+4*t, 24+4*t, 12+4*t, 28+4*t, Y8, Y9, Y14, Y15, Y12) \
	VPADDD Y12, I, I

#define MX4FIRST(R, I) \
	MXHALF(R, 8, 24, 12, 28, Y8, Y9, Y14, Y15, I)

// func gemm4MXxAVX2(nb int, p, a *byte, aStride, half int, out *float32)
//
// Reference: DotMXFP4Q8_0 for the 8 rows of half half (0 or 1) of one stored group (nb blocks at p) and the
// 4 Q8_0S columns at a, aStride bytes apart; out[16c+r] is column c, row r (of the half).
TEXT ·gemm4MXxAVX2(SB), NOSPLIT, $0-48
	MOVQ         nb+0(FP), CX
	MOVQ         p+8(FP), SI
	MOVQ         a+16(FP), R8
	MOVQ         aStride+24(FP), BX
	MOVQ         half+32(FP), R12
	MOVQ         out+40(FP), DI
	LEAQ         (R8)(BX*1), R9
	LEAQ         (R9)(BX*1), R10
	LEAQ         (R10)(BX*1), R11
	SHLQ         $3, R12           // the half's exponents
	MOVQ         R12, DX
	SHLQ         $2, DX            // and quant dwords
	VBROADCASTI128 kMXU<>(SB), Y10
	VPXOR        Y0, Y0, Y0
	VPXOR        Y1, Y1, Y1
	VPXOR        Y2, Y2, Y2
	VPXOR        Y3, Y3, Y3

mx4block:
	MXLOOK(const_mxxQs, Y8, Y9)
	MXLOOK(const_mxxQs+64, Y14, Y15)
	MX4FIRST(R8, Y4)
	MX4FIRST(R9, Y5)
	MX4FIRST(R10, Y6)
	MX4FIRST(R11, Y7)
	MXLOOK(const_mxxQs+128, Y8, Y9)
	MXLOOK(const_mxxQs+192, Y14, Y15)
	MX4COL(R8, 2, Y4)
	MX4COL(R9, 2, Y5)
	MX4COL(R10, 2, Y6)
	MX4COL(R11, 2, Y7)
	VPMOVZXBD    (SI)(R12*1), Y13
	MXSCALE(Y14, Y9, Y15, Y13)
	MXFIN(R8, Y4, Y9, Y0)
	MXFIN(R9, Y5, Y9, Y1)
	MXFIN(R10, Y6, Y9, Y2)
	MXFIN(R11, Y7, Y9, Y3)
	ADDQ         $const_mxxBlock, SI
	ADDQ         $40, R8
	ADDQ         $40, R9
	ADDQ         $40, R10
	ADDQ         $40, R11
	DECQ         CX
	JNZ          mx4block

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 64(DI)
	VMOVUPS Y2, 128(DI)
	VMOVUPS Y3, 192(DI)
	VZEROUPPER
	RET

// MX1HALF sets I (rows 0…7) and J (rows 8…15) to the int32 sums of the products of quant dwords t and t+1
// with the column at R8, whose quant dwords are broadcast once for both halves. Clobbers Y2, Y3, Y6…Y9,
// Y11, Y14, Y15.
#define MX1HALF(t, I, J) \
	MXLOOK(const_mxxQs+64*t, Y6, Y7)                                  \
	MXLOOK(const_mxxQs+64*t+32, Y8, Y9)                               \
	VPBROADCASTD 8+4*t(R8), Y2                                        \
	VPBROADCASTD 24+4*t(R8), Y3                                       \
	VPMADDUBSW   Y2, Y6, I                                            \
	VPMADDUBSW   Y3, Y7, Y7                                           \
	VPADDW       Y7, I, I                                             \
	VPMADDUBSW   Y2, Y8, J                                            \
	VPMADDUBSW   Y3, Y9, Y9                                           \
	VPADDW       Y9, J, J                                             \
	MXLOOK(const_mxxQs+64*t+64, Y6, Y7)                               \
	MXLOOK(const_mxxQs+64*t+96, Y8, Y9)                               \
	VPBROADCASTD 12+4*t(R8), Y2                                       \
	VPBROADCASTD 28+4*t(R8), Y3                                       \
	VPMADDUBSW   Y2, Y6, Y6                                           \
	VPADDW       Y6, I, I                                             \
	VPMADDUBSW   Y3, Y7, Y7                                           \
	VPADDW       Y7, I, I                                             \
	VPMADDUBSW   Y2, Y8, Y8                                           \
	VPADDW       Y8, J, J                                             \
	VPMADDUBSW   Y3, Y9, Y9                                           \
	VPADDW       Y9, J, J                                             \
	VPMADDWD     kMXOnes16<>(SB), I, I                                \
	VPMADDWD     kMXOnes16<>(SB), J, J

// func gemv16MXxAVX2(nb int, p, a *byte, out *float32)
//
// Reference: DotMXFP4Q8_0 for the 16 rows of one stored group (nb blocks at p) and the Q8_0S column at a;
// out[r] is row r.
TEXT ·gemv16MXxAVX2(SB), NOSPLIT, $0-32
	MOVQ           nb+0(FP), CX
	MOVQ           p+8(FP), SI
	MOVQ           a+16(FP), R8
	MOVQ           out+24(FP), DI
	XORQ           DX, DX
	VBROADCASTI128 kMXU<>(SB), Y10
	VPXOR          Y0, Y0, Y0
	VPXOR          Y1, Y1, Y1

mx1block:
	MX1HALF(0, Y4, Y5)
	MX1HALF(2, Y12, Y13)
	VPADDD       Y12, Y4, Y4
	VPADDD       Y13, Y5, Y5
	VPMOVZXBD    (SI), Y13
	MXSCALE(Y14, Y9, Y15, Y13)
	MXFIN(R8, Y4, Y9, Y0)
	VPMOVZXBD    8(SI), Y13
	MXSCALE(Y14, Y9, Y15, Y13)
	MXFIN(R8, Y5, Y9, Y1)
	ADDQ         $const_mxxBlock, SI
	ADDQ         $40, R8
	DECQ         CX
	JNZ          mx1block

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VZEROUPPER
	RET
