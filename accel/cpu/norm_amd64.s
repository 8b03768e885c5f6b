//go:build amd64 && !noasm

#include "textflag.h"

// SQADD4 adds to the four sums in Y0, in order, the elements of the four rows in X1…X4 (element j of row r in
// lane r of Xj), each widened to float64.
#define SQADD4               \
	VCVTPS2PD X1, Y5     \
	VADDPD    Y5, Y0, Y0 \
	VCVTPS2PD X2, Y6     \
	VADDPD    Y6, Y0, Y0 \
	VCVTPS2PD X3, Y7     \
	VADDPD    Y7, Y0, Y0 \
	VCVTPS2PD X4, Y8     \
	VADDPD    Y8, Y0, Y0

// func sumSquares4AVX2(n8 int, x *float32, stride int, sums *[4]float64)
//
// Continues the four float64 sums of rmsNorm4 over the first 8·n8 elements of the rows at x + r·stride
// (stride in bytes): each square is rounded to float32 (VMULPS) and added in float64 in element order, the
// four rows' sums in the lanes of Y0. Eight elements of the four rows are squared, transposed so that vector
// j holds element j of each row, and added one element at a time.
TEXT ·sumSquares4AVX2(SB), NOSPLIT, $0-32
	MOVQ    n8+0(FP), CX
	MOVQ    x+8(FP), SI
	MOVQ    stride+16(FP), DX
	MOVQ    sums+24(FP), DI
	VMOVUPD (DI), Y0
	LEAQ    (DX)(DX*2), R8
	TESTQ   CX, CX
	JZ      ssdone

ssloop:
	VMOVUPS     (SI), Y1
	VMOVUPS     (SI)(DX*1), Y2
	VMOVUPS     (SI)(DX*2), Y3
	VMOVUPS     (SI)(R8*1), Y4
	VMULPS      Y1, Y1, Y1
	VMULPS      Y2, Y2, Y2
	VMULPS      Y3, Y3, Y3
	VMULPS      Y4, Y4, Y4
	VUNPCKLPS   Y2, Y1, Y5        // r0[0] r1[0] r0[1] r1[1] | r0[4] r1[4] r0[5] r1[5]
	VUNPCKHPS   Y2, Y1, Y6        // elements 2, 3 | 6, 7 of rows 0, 1
	VUNPCKLPS   Y4, Y3, Y7        // elements 0, 1 | 4, 5 of rows 2, 3
	VUNPCKHPS   Y4, Y3, Y8        // elements 2, 3 | 6, 7 of rows 2, 3
	VSHUFPS     $0x44, Y7, Y5, Y1 // element 0 of rows 0…3 | element 4
	VSHUFPS     $0xee, Y7, Y5, Y2 // element 1 | 5
	VSHUFPS     $0x44, Y8, Y6, Y3 // element 2 | 6
	VSHUFPS     $0xee, Y8, Y6, Y4 // element 3 | 7
	SQADD4
	VEXTRACTF128 $1, Y1, X1
	VEXTRACTF128 $1, Y2, X2
	VEXTRACTF128 $1, Y3, X3
	VEXTRACTF128 $1, Y4, X4
	SQADD4
	ADDQ        $32, SI
	DECQ        CX
	JNZ         ssloop

ssdone:
	VMOVUPD Y0, (DI)
	VZEROUPPER
	RET

// func scaleAVX2(n8 int, x, y *float32, s float32)
//
// y[i] = x[i]·s for i < 8·n8.
TEXT ·scaleAVX2(SB), NOSPLIT, $0-28
	MOVQ         n8+0(FP), CX
	MOVQ         x+8(FP), SI
	MOVQ         y+16(FP), DI
	VBROADCASTSS s+24(FP), Y1
	TESTQ        CX, CX
	JZ           scdone

scloop:
	VMULPS  (SI), Y1, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     scloop

scdone:
	VZEROUPPER
	RET
