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

// func ropeNeoXAVX2(rows, dims, size int, x, y, cache *float32)
//
// ropeStep.rotate for rows rows of size floats (dims a positive multiple of 16) in the NeoX mode, pairs
// (i, i + dims/2), eight pairs a step: x0 and x1 the pairs' elements, c and s the table's cos and sin taken
// apart from its (cos, sin) pairs; y0 = x0·c − x1·s and y1 = x0·s + x1·c, each one fused multiply-add with
// the second product rounded first, as rotate. Only the first dims elements of each row are written.
TEXT ·ropeNeoXAVX2(SB), NOSPLIT, $0-48
	MOVQ         rows+0(FP), BX
	MOVQ         dims+8(FP), R8
	MOVQ         size+16(FP), R9
	MOVQ         x+24(FP), SI
	MOVQ         y+32(FP), DI
	MOVQ         cache+40(FP), R10
	SHLQ         $1, R8 // dims/2 floats: the offset of x1 in bytes
	SHLQ         $2, R9
	VBROADCASTSS ropeSign<>+0(SB), Y7

neoxrow:
	XORQ AX, AX
	MOVQ R10, CX

neoxstep:
	VMOVUPS     (CX), Y0
	VMOVUPS     32(CX), Y1
	VSHUFPS     $0x88, Y1, Y0, Y2 // c0 c1 c4 c5 | c2 c3 c6 c7
	VSHUFPS     $0xdd, Y1, Y0, Y3 // the sines likewise
	VPERMPD     $0xd8, Y2, Y2     // c0 … c7
	VPERMPD     $0xd8, Y3, Y3     // s0 … s7
	VMOVUPS     (SI)(AX*1), Y4    // x0
	LEAQ        (SI)(R8*1), DX
	VMOVUPS     (DX)(AX*1), Y5    // x1
	VMULPS      Y3, Y5, Y6        // x1·s
	VXORPS      Y7, Y6, Y6
	VFMADD231PS Y2, Y4, Y6        // x0·c − x1·s
	VMULPS      Y2, Y5, Y5        // x1·c
	VFMADD231PS Y3, Y4, Y5        // x0·s + x1·c
	VMOVUPS     Y6, (DI)(AX*1)
	LEAQ        (DI)(R8*1), DX
	VMOVUPS     Y5, (DX)(AX*1)
	ADDQ        $64, CX
	ADDQ        $32, AX
	CMPQ        AX, R8
	JLT         neoxstep
	ADDQ        R9, SI
	ADDQ        R9, DI
	DECQ        BX
	JNZ         neoxrow
	VZEROUPPER
	RET
