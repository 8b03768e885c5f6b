//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"

// IQ4LSUM8Y sets 32·k(DI) to hsum_float_8 of the eight lanes' 8 floats at m·256 + 32·k(SI), m = 0…7.
#define IQ4LSUM8Y(k) \
	VMOVUPS 32*k(SI), Y0          \
	VADDPS  1024+32*k(SI), Y0, Y0 \
	VMOVUPS 256+32*k(SI), Y1      \
	VADDPS  1280+32*k(SI), Y1, Y1 \
	VMOVUPS 512+32*k(SI), Y2      \
	VADDPS  1536+32*k(SI), Y2, Y2 \
	VMOVUPS 768+32*k(SI), Y3      \
	VADDPS  1792+32*k(SI), Y3, Y3 \
	VADDPS  Y2, Y0, Y0            \
	VADDPS  Y3, Y1, Y1            \
	VADDPS  Y1, Y0, Y0            \
	VMOVUPS Y0, 32*k(DI)

// IQ4LPAIR adds pair j of the lane (16 rows' int16 pairs at j·64(SI)) times each column's broadcast pair
// (j·4 past R8…R11 plus BX) into the columns' integer sums Z0…Z3.
#define IQ4LPAIR(j) \
	VMOVDQU32       64*j(SI), Z8            \
	VPDPWSSD.BCST   4*j(R8)(BX*1), Z8, Z0   \
	VPDPWSSD.BCST   4*j(R9)(BX*1), Z8, Z1   \
	VPDPWSSD.BCST   4*j(R10)(BX*1), Z8, Z2  \
	VPDPWSSD.BCST   4*j(R11)(BX*1), Z8, Z3

// IQ4LFIN: ACC = fma(d·yd, float32(S), ACC) for the column at R (yd at (R)), Z9 the rows' d.
#define IQ4LFIN(R, S, ACC) \
	VCVTDQ2PS      S, S          \
	VMULPS.BCST    (R), Z9, Z10  \
	VFMADD231PS    Z10, S, ACC

// func iq4lLanes4(nb int, p *byte, stride int, d *byte, a0, a1, a2, a3 *byte, acc, sums *float32)
//
// DotIQ4_XSQ8_K for the 16 rows of one packed IQ4_XSL group and four Q8_KL columns, lane by lane: lane m's
// first super-block is at p + m·stride (1024 bytes each), d the rows' d (64 bytes a super-block), a0…a3 each
// column's first lane section (292 bytes into its first Q8_KL block, q8klBlock bytes a super-block, d_y
// first), the lane's pairs 4 + 64m into it; acc[64m + 16c + r] is lane m's float32 accumulator of column c,
// row r, after the nb super-blocks, and then sums[16c + r] their hsum_float_8. One call for the eight lanes
// and the sums (as the AVX2 kernel).
TEXT ·iq4lLanes4(SB), NOSPLIT, $0-80
	MOVQ p+8(FP), R12
	MOVQ stride+16(FP), R13
	MOVQ acc+64(FP), AX
	MOVQ $4, BX
	MOVQ $8, DX

iq4llane:
	MOVQ   nb+0(FP), CX
	MOVQ   R12, SI
	MOVQ   d+24(FP), DI
	MOVQ   a0+32(FP), R8
	MOVQ   a1+40(FP), R9
	MOVQ   a2+48(FP), R10
	MOVQ   a3+56(FP), R11
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19

iq4lblock:
	VPXORD    Z0, Z0, Z0
	VPXORD    Z1, Z1, Z1
	VPXORD    Z2, Z2, Z2
	VPXORD    Z3, Z3, Z3
	IQ4LPAIR(0)
	IQ4LPAIR(1)
	IQ4LPAIR(2)
	IQ4LPAIR(3)
	IQ4LPAIR(4)
	IQ4LPAIR(5)
	IQ4LPAIR(6)
	IQ4LPAIR(7)
	IQ4LPAIR(8)
	IQ4LPAIR(9)
	IQ4LPAIR(10)
	IQ4LPAIR(11)
	IQ4LPAIR(12)
	IQ4LPAIR(13)
	IQ4LPAIR(14)
	IQ4LPAIR(15)
	VMOVUPS   (DI), Z9
	IQ4LFIN(R8, Z0, Z16)
	IQ4LFIN(R9, Z1, Z17)
	IQ4LFIN(R10, Z2, Z18)
	IQ4LFIN(R11, Z3, Z19)
	ADDQ      $const_ix4lLane, SI
	ADDQ      $64, DI
	ADDQ      $const_q8klBlock, R8
	ADDQ      $const_q8klBlock, R9
	ADDQ      $const_q8klBlock, R10
	ADDQ      $const_q8klBlock, R11
	DECQ      CX
	JNZ       iq4lblock

	VMOVUPS Z16, (AX)
	VMOVUPS Z17, 64(AX)
	VMOVUPS Z18, 128(AX)
	VMOVUPS Z19, 192(AX)
	ADDQ    R13, R12
	ADDQ    $64, BX
	ADDQ    $256, AX
	DECQ    DX
	JNZ     iq4llane

	MOVQ acc+64(FP), SI
	MOVQ sums+72(FP), DI
	IQ4LSUM8Y(0)
	IQ4LSUM8Y(1)
	IQ4LSUM8Y(2)
	IQ4LSUM8Y(3)
	IQ4LSUM8Y(4)
	IQ4LSUM8Y(5)
	IQ4LSUM8Y(6)
	IQ4LSUM8Y(7)
	VZEROUPPER
	RET

// IQ4LPAIRY adds pair j of the lane (rows 0…7 in Y12, 8…15 in Y13) times column c's broadcast pair (j·4 past
// R plus BX) into the column's integer sums LO (rows 0…7) and HI (rows 8…15): VPMADDWD and VPADDD, the AVX2
// form of VPDPWSSD (the same integers: a pair's two products are at most 2·32·127·127 in magnitude).
#define IQ4LPAIRY(j, R, LO, HI) \
	VPBROADCASTD 4*j(R)(BX*1), Y14 \
	VPMADDWD     Y14, Y12, Y15     \
	VPADDD       Y15, LO, LO       \
	VPMADDWD     Y14, Y13, Y14     \
	VPADDD       Y14, HI, HI

#define IQ4LPAIRY3(j) \
	VMOVDQU 64*j(SI), Y12          \
	VMOVDQU 64*j+32(SI), Y13       \
	IQ4LPAIRY(j, R8, Y0, Y1)       \
	IQ4LPAIRY(j, R9, Y2, Y3)       \
	IQ4LPAIRY(j, R10, Y4, Y5)

// IQ4LFIRSTY is IQ4LPAIRY for pair 0, which sets the sums instead of adding to them.
#define IQ4LFIRSTY(R, LO, HI) \
	VPBROADCASTD (R)(BX*1), Y14 \
	VPMADDWD     Y14, Y12, LO   \
	VPMADDWD     Y14, Y13, HI

// IQ4LFINY: ACC = fma(d·yd, float32(S), ACC) for one column, rows 0…7 (S = LO, ACC = ALO, d·yd at DY(DI))
// and 8…15 (HI, AHI, DY+32(DI)).
#define IQ4LFINY(DY, LO, HI, ALO, AHI) \
	VCVTDQ2PS    LO, LO              \
	VFMADD231PS  DY(DI), LO, ALO     \
	VCVTDQ2PS    HI, HI              \
	VFMADD231PS  DY+32(DI), HI, AHI

// IQ4LDY stores d·yd of the column at R (yd at (R)) for rows 0…7 (d in Y0) and 8…15 (Y1) at DY(DX).
#define IQ4LDY(R, DY) \
	VBROADCASTSS (R), Y2        \
	VMULPS       Y2, Y0, Y3     \
	VMULPS       Y2, Y1, Y4     \
	VMOVUPS      Y3, DY(DX)     \
	VMOVUPS      Y4, DY+32(DX)

// func iq4lLanes3AVX2(nb int, p *byte, stride int, d *byte, dy *float32, a0, a1, a2 *byte, acc *float32, add int, sums *float32)
//
// iq4lLanes4 with AVX2 only and three columns, for the eight lanes in turn (lane m's super-blocks from p +
// m·stride, its pairs at 4 + 64m into the columns' lane sections, its accumulators acc[64m + 16c + r] for
// c < 3): per lane the integer sums (two registers of eight rows a column) and float32 accumulators fill the
// 16 registers with the lane's pair and a broadcast activation pair. First the products d·yd of the rows' d
// (at d, 64 bytes a super-block) and each column's yd, which the eight lanes share, are written to dy
// (dy[48i + 16c + r], one multiply each). The accumulators are added to, or start from zero where add is 0
// (the first call of a row group: zeroing them in Go before cost 5% of an IQ4_XS prefill, the 32-byte loads
// waiting on the 16-byte stores); where sums is not nil (the last call) each (column, row)'s eight lanes are
// then added as hsum_float_8 into sums[16c + r]. One call for the eight lanes, the products and the sums: a
// call a lane cost ~10% of a 1024-column product (four super-blocks a lane). (Four columns with the float32
// accumulators in memory ran 57 GMAC/s in L1, this 64; six, 61 against 63.)
TEXT ·iq4lLanes3AVX2(SB), NOSPLIT, $0-88
	MOVQ nb+0(FP), CX
	MOVQ d+24(FP), DI
	MOVQ a0+40(FP), R8
	MOVQ a1+48(FP), R9
	MOVQ a2+56(FP), R10
	MOVQ dy+32(FP), DX

iq4ldy:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	IQ4LDY(R8, 0)
	IQ4LDY(R9, 64)
	IQ4LDY(R10, 128)
	ADDQ    $64, DI
	ADDQ    $const_q8klBlock, R8
	ADDQ    $const_q8klBlock, R9
	ADDQ    $const_q8klBlock, R10
	ADDQ    $192, DX
	DECQ    CX
	JNZ     iq4ldy

	MOVQ p+8(FP), R12
	MOVQ stride+16(FP), R13
	MOVQ acc+64(FP), AX
	MOVQ add+72(FP), DX
	MOVQ $4, BX
	MOVQ $8, R11

iq4lylane:
	MOVQ    nb+0(FP), CX
	MOVQ    R12, SI
	MOVQ    dy+32(FP), DI
	MOVQ    a0+40(FP), R8
	MOVQ    a1+48(FP), R9
	MOVQ    a2+56(FP), R10
	TESTQ   DX, DX
	JZ      iq4lyzero
	VMOVUPS (AX), Y6
	VMOVUPS 32(AX), Y7
	VMOVUPS 64(AX), Y8
	VMOVUPS 96(AX), Y9
	VMOVUPS 128(AX), Y10
	VMOVUPS 160(AX), Y11
	JMP     iq4lyblock

iq4lyzero:
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	VPXOR Y8, Y8, Y8
	VPXOR Y9, Y9, Y9
	VPXOR Y10, Y10, Y10
	VPXOR Y11, Y11, Y11

iq4lyblock:
	VMOVDQU     (SI), Y12
	VMOVDQU     32(SI), Y13
	IQ4LFIRSTY(R8, Y0, Y1)
	IQ4LFIRSTY(R9, Y2, Y3)
	IQ4LFIRSTY(R10, Y4, Y5)
	IQ4LPAIRY3(1)
	IQ4LPAIRY3(2)
	IQ4LPAIRY3(3)
	IQ4LPAIRY3(4)
	IQ4LPAIRY3(5)
	IQ4LPAIRY3(6)
	IQ4LPAIRY3(7)
	IQ4LPAIRY3(8)
	IQ4LPAIRY3(9)
	IQ4LPAIRY3(10)
	IQ4LPAIRY3(11)
	IQ4LPAIRY3(12)
	IQ4LPAIRY3(13)
	IQ4LPAIRY3(14)
	IQ4LPAIRY3(15)
	IQ4LFINY(0, Y0, Y1, Y6, Y7)
	IQ4LFINY(64, Y2, Y3, Y8, Y9)
	IQ4LFINY(128, Y4, Y5, Y10, Y11)
	ADDQ        $const_ix4lLane, SI
	ADDQ        $192, DI
	ADDQ        $const_q8klBlock, R8
	ADDQ        $const_q8klBlock, R9
	ADDQ        $const_q8klBlock, R10
	DECQ        CX
	JNZ         iq4lyblock

	VMOVUPS Y6, (AX)
	VMOVUPS Y7, 32(AX)
	VMOVUPS Y8, 64(AX)
	VMOVUPS Y9, 96(AX)
	VMOVUPS Y10, 128(AX)
	VMOVUPS Y11, 160(AX)
	ADDQ    R13, R12
	ADDQ    $64, BX
	ADDQ    $256, AX
	DECQ    R11
	JNZ     iq4lylane

	MOVQ  sums+80(FP), DI
	TESTQ DI, DI
	JZ    iq4lydone
	MOVQ  acc+64(FP), SI
	IQ4LSUM8Y(0)
	IQ4LSUM8Y(1)
	IQ4LSUM8Y(2)
	IQ4LSUM8Y(3)
	IQ4LSUM8Y(4)
	IQ4LSUM8Y(5)

iq4lydone:
	VZEROUPPER
	RET

