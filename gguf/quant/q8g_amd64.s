//go:build amd64 && !noasm

#include "textflag.h"

// func q8gCorrAVX2(nb int, b *byte, off int)
//
// Reference: q8gCorrRef. For each of nb Q8_0G blocks (68 bytes) from b: corr[i] = −off·Σ qs[4i…4i+3], the
// sums of four quants per dword as VPMADDUBSW of ones and the quants, then VPMADDWD of ones.
TEXT ·q8gCorrAVX2(SB), NOSPLIT, $0-24
	MOVQ         nb+0(FP), CX
	MOVQ         b+8(FP), SI
	MOVQ         off+16(FP), AX
	NEGQ         AX
	VMOVD        AX, X2
	VPBROADCASTD X2, Y2        // −off
	MOVL         $0x01010101, DX
	VMOVD        DX, X3
	VPBROADCASTD X3, Y3        // unsigned ones
	MOVL         $0x00010001, DX
	VMOVD        DX, X4
	VPBROADCASTD X4, Y4        // int16 ones
	TESTQ        CX, CX
	JZ           done

loop:
	VMOVDQU    36(SI), Y0
	VPMADDUBSW Y0, Y3, Y0
	VPMADDWD   Y4, Y0, Y0
	VPMULLD    Y2, Y0, Y0
	VMOVDQU    Y0, 4(SI)
	ADDQ       $68, SI
	DECQ       CX
	JNZ        loop

done:
	VZEROUPPER
	RET
