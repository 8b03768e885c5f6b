//go:build amd64 && !noasm

#include "textflag.h"

// AVX2 + FMA + F16C kernels for rows of halves (hand-written). References: dotF16RowsRef,
// addWeightedF16RowsRef in f16rows.go.

// func dotF16Rows4AVX2(n int, q *float32, k *byte, strideBytes, rows int, out *float32)
//
// Four rows at a time: 8 float32 lanes per row, reduced together with VHADDPS.
TEXT ·dotF16Rows4AVX2(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), R8
	MOVQ q+8(FP), SI
	MOVQ k+16(FP), DI
	MOVQ strideBytes+24(FP), R9
	MOVQ rows+32(FP), R10
	MOVQ out+40(FP), R11
	SHRQ $2, R10
	LEAQ (R9)(R9*2), R12          // 3·stride
	SHLQ $1, R8                   // bytes of a row

fr4rows:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ   AX, AX                 // byte offset in the rows (halves)
	MOVQ   SI, BX                 // q
	LEAQ   (DI)(R9*1), DX         // row 1
	LEAQ   (DI)(R9*2), CX         // row 2
	LEAQ   (DI)(R12*1), R13       // row 3

fr4d:
	VMOVUPS     (BX), Y4
	VCVTPH2PS   (DI)(AX*1), Y5
	VCVTPH2PS   (DX)(AX*1), Y6
	VCVTPH2PS   (CX)(AX*1), Y7
	VCVTPH2PS   (R13)(AX*1), Y8
	VFMADD231PS Y5, Y4, Y0
	VFMADD231PS Y6, Y4, Y1
	VFMADD231PS Y7, Y4, Y2
	VFMADD231PS Y8, Y4, Y3
	ADDQ        $32, BX
	ADDQ        $16, AX
	CMPQ        AX, R8
	JLT         fr4d

	VHADDPS      Y1, Y0, Y0       // [r0 r0 r1 r1 | r0 r0 r1 r1]
	VHADDPS      Y3, Y2, Y2
	VHADDPS      Y2, Y0, Y0       // [r0 r1 r2 r3 | r0 r1 r2 r3]
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVUPS      X0, (R11)
	ADDQ         $16, R11
	LEAQ         (DI)(R9*4), DI
	DECQ         R10
	JNZ          fr4rows
	VZEROUPPER
	RET

// func dotF16Rows4AVX2Tail(n int, q *float32, k *byte, out *float32)
TEXT ·dotF16Rows4AVX2Tail(SB), NOSPLIT, $0-32
	MOVQ   n+0(FP), CX
	MOVQ   q+8(FP), SI
	MOVQ   k+16(FP), DI
	MOVQ   out+24(FP), R11
	SHRQ   $3, CX
	VXORPS Y0, Y0, Y0

fr1d:
	VCVTPH2PS   (DI), Y5
	VFMADD231PS (SI), Y5, Y0
	ADDQ        $32, SI
	ADDQ        $16, DI
	DECQ        CX
	JNZ         fr1d

	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, (R11)
	VZEROUPPER
	RET

// func addWeightedF16RowsAVX2(n int, out *float32, rows int, p *float32, v *byte, strideBytes int)
//
// out is processed 32 elements at a time (8 at a time at the end), each chunk accumulated over all rows in
// registers, with two sets of accumulators (even and odd rows) to hide the FMA latency.
TEXT ·addWeightedF16RowsAVX2(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), R8
	MOVQ out+8(FP), DI
	MOVQ rows+16(FP), R9
	MOVQ p+24(FP), R10
	MOVQ v+32(FP), R11
	MOVQ strideBytes+40(FP), R12

aw32:
	CMPQ    R8, $32
	JLT     aw8
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VXORPS  Y4, Y4, Y4
	VXORPS  Y5, Y5, Y5
	VXORPS  Y6, Y6, Y6
	VXORPS  Y7, Y7, Y7
	MOVQ    R9, CX
	MOVQ    R10, SI
	MOVQ    R11, BX

aw32pair:
	CMPQ         CX, $2
	JLT          aw32one
	VBROADCASTSS (SI), Y8
	VBROADCASTSS 4(SI), Y9
	LEAQ         (BX)(R12*1), DX
	VCVTPH2PS    (BX), Y10
	VFMADD231PS  Y10, Y8, Y0
	VCVTPH2PS    16(BX), Y11
	VFMADD231PS  Y11, Y8, Y1
	VCVTPH2PS    32(BX), Y12
	VFMADD231PS  Y12, Y8, Y2
	VCVTPH2PS    48(BX), Y13
	VFMADD231PS  Y13, Y8, Y3
	VCVTPH2PS    (DX), Y10
	VFMADD231PS  Y10, Y9, Y4
	VCVTPH2PS    16(DX), Y11
	VFMADD231PS  Y11, Y9, Y5
	VCVTPH2PS    32(DX), Y12
	VFMADD231PS  Y12, Y9, Y6
	VCVTPH2PS    48(DX), Y13
	VFMADD231PS  Y13, Y9, Y7
	ADDQ         $8, SI
	LEAQ         (BX)(R12*2), BX
	SUBQ         $2, CX
	JMP          aw32pair

aw32one:
	TESTQ        CX, CX
	JZ           aw32store
	VBROADCASTSS (SI), Y8
	VCVTPH2PS    (BX), Y10
	VFMADD231PS  Y10, Y8, Y0
	VCVTPH2PS    16(BX), Y11
	VFMADD231PS  Y11, Y8, Y1
	VCVTPH2PS    32(BX), Y12
	VFMADD231PS  Y12, Y8, Y2
	VCVTPH2PS    48(BX), Y13
	VFMADD231PS  Y13, Y8, Y3

aw32store:
	VADDPS  Y4, Y0, Y0
	VADDPS  Y5, Y1, Y1
	VADDPS  Y6, Y2, Y2
	VADDPS  Y7, Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $64, R11
	SUBQ    $32, R8
	JMP     aw32

aw8:
	TESTQ   R8, R8
	JZ      awdone
	VMOVUPS (DI), Y0
	MOVQ    R9, CX
	MOVQ    R10, SI
	MOVQ    R11, BX

aw8row:
	VBROADCASTSS (SI), Y8
	VCVTPH2PS    (BX), Y10
	VFMADD231PS  Y10, Y8, Y0
	ADDQ         $4, SI
	ADDQ         R12, BX
	DECQ         CX
	JNZ          aw8row
	VMOVUPS      Y0, (DI)
	ADDQ         $32, DI
	ADDQ         $16, R11
	SUBQ         $8, R8
	JMP          aw8

awdone:
	VZEROUPPER
	RET
