//go:build amd64 && !noasm

#include "textflag.h"

DATA ropeSign<>+0(SB)/8, $0x0000000080000000
GLOBL ropeSign<>(SB), RODATA|NOPTR, $8

// func ropeNormalAVX2(rows, dims, size int, x, y, cache *float32)
//
// ropeStep.rotate for rows rows of size floats (dims a positive multiple of 8) in the normal mode, pairs
// (2i, 2i+1), eight elements a step: with xe = (x0, x0, …) and xo = (x1, x1, …) the pairs' elements
// duplicated, the table's (cos, sin) pairs as they lie and swapped, y = xe·(c, s) + (−(x1·s), x1·c) in one
// fused multiply-add per element: x0·c − x1·s and x0·s + x1·c with the second product rounded first. Only
// the first dims elements of each row are written.
TEXT ·ropeNormalAVX2(SB), NOSPLIT, $0-48
	MOVQ         rows+0(FP), BX
	MOVQ         dims+8(FP), R8
	MOVQ         size+16(FP), R9
	MOVQ         x+24(FP), SI
	MOVQ         y+32(FP), DI
	MOVQ         cache+40(FP), R10
	SHLQ         $2, R8
	SHLQ         $2, R9
	VBROADCASTSD ropeSign<>(SB), Y7

roperow:
	XORQ AX, AX

ropestep:
	VMOVUPS     (SI)(AX*1), Y0
	VMOVUPS     (R10)(AX*1), Y1
	VMOVSLDUP   Y0, Y2
	VMOVSHDUP   Y0, Y3
	VPERMILPS   $0xb1, Y1, Y4
	VMULPS      Y4, Y3, Y3
	VXORPS      Y7, Y3, Y3
	VFMADD231PS Y1, Y2, Y3
	VMOVUPS     Y3, (DI)(AX*1)
	ADDQ        $32, AX
	CMPQ        AX, R8
	JLT         ropestep
	ADDQ        R9, SI
	ADDQ        R9, DI
	DECQ        BX
	JNZ         roperow
	VZEROUPPER
	RET
