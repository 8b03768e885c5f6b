//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"

// Kernels on stored IQ4_XSx16 groups (gemm_stored_iq4.go) for CPUs with AVX2 but without AVX-512 VNNI:
// lane r of a 256-bit register is row 8h+r of half h. Per stored quant dword vector, the nibbles become
// table values (VPSHUFB on kvaluesIQ4), each broadcast activation dword y signs them (VPSIGNB: kvalue·sign(y))
// and VPMADDUBSW multiplies them with |y| (Q8_KXA's, see gemm_avx2_iq4_amd64.go) into exact int16 pairs;
// VPMADDWD with the row's sub-block scale in both words of its dword gives the exact int32 ls·Σkvalue·y,
// added into the super-block's sum, which is fused with d·d_y as DotIQ4_XSQ8_KPanel does, lane by lane.

// ixAVXTab is kvaluesIQ4 (iq4.go) in both 128-bit lanes.
DATA ixAVXTab<>+0(SB)/8, $0xf6eaddcfbfad9881
DATA ixAVXTab<>+8(SB)/8, $0x7159453526190d01
DATA ixAVXTab<>+16(SB)/8, $0xf6eaddcfbfad9881
DATA ixAVXTab<>+24(SB)/8, $0x7159453526190d01
GLOBL ixAVXTab<>(SB), RODATA|NOPTR, $32

// ixAVXDup: the VPSHUFB mask that puts word 0 of every dword in both its words.
DATA ixAVXDup<>+0(SB)/8, $0x0504050401000100
DATA ixAVXDup<>+8(SB)/8, $0x0d0c0d0c09080908
DATA ixAVXDup<>+16(SB)/8, $0x0504050401000100
DATA ixAVXDup<>+24(SB)/8, $0x0d0c0d0c09080908
GLOBL ixAVXDup<>(SB), RODATA|NOPTR, $32

// IXSETUP: Y15 the table, Y14 the nibble mask.
#define IXSETUP \
	VMOVDQU      ixAVXTab<>(SB), Y15 \
	MOVL         $0x0f0f0f0f, R12    \
	MOVD         R12, X14            \
	VPBROADCASTD X14, Y14

// IXSCALE loads the sub-block scales of 8 rows at o(BX) into both words of each row's dword in ZS.
#define IXSCALE(o, ZS) \
	VPMOVSXBD o(BX), ZS                \
	VPSHUFB   ixAVXDup<>(SB), ZS, ZS

// IXNIB turns the stored quant dwords at o(R13) into table values: low nibbles ZL, high nibbles ZH.
#define IXNIB(o, ZL, ZH) \
	VMOVDQU o(R13), ZL      \
	VPSRLW  $4, ZL, ZH      \
	VPAND   Y14, ZL, ZL     \
	VPAND   Y14, ZH, ZH     \
	VPSHUFB ZL, Y15, ZL     \
	VPSHUFB ZH, Y15, ZH

// IXC adds the dword t of sub-block k (elements 32k+4t… with Y8, 32k+16+4t… with Y9; yo = 4+4t) of the
// column at R into ACC, with the scales in Y13.
#define IXC(R, yo, ACC) \
	VPBROADCASTD yo(R)(DX*1), Y10      \
	VPSIGNB      Y10, Y8, Y10          \
	VPBROADCASTD yo-4(R)(R12*1), Y11   \
	VPMADDUBSW   Y10, Y11, Y10         \
	VPMADDWD     Y13, Y10, Y10         \
	VPADDD       Y10, ACC, ACC         \
	VPBROADCASTD yo+16(R)(DX*1), Y12   \
	VPSIGNB      Y12, Y9, Y12          \
	VPBROADCASTD yo+12(R)(R12*1), Y11  \
	VPMADDUBSW   Y12, Y11, Y12         \
	VPMADDWD     Y13, Y12, Y12         \
	VPADDD       Y12, ACC, ACC

#define IXT4(t) \
	IXNIB(64*t, Y8, Y9)     \
	IXC(R8, 4+4*t, Y0)      \
	IXC(R9, 4+4*t, Y1)      \
	IXC(R10, 4+4*t, Y2)     \
	IXC(R11, 4+4*t, Y3)

// IXF fuses the super-block sum ZI of the column at R into ZF, with the rows' d in Y12.
#define IXF(R, ZI, ZF) \
	VBROADCASTSS (R), Y10       \
	VMULPS       Y10, Y12, Y10  \
	VCVTDQ2PS    ZI, ZI         \
	VFMADD231PS  Y10, ZI, ZF

// func gemm4IQ4xAVX2(nb int, q, ls, a *byte, aStride int, out *float32)
//
// Reference: DotIQ4_XSQ8_KPanel for 8 rows of one stored group (d at q, quant dwords at ix4Qs from q, the
// sub-block scales at ls; a stored super-block apart) and the 4 Q8_KXA columns at a, aStride bytes apart;
// out[16c+r] is column c, row r.
TEXT ·gemm4IQ4xAVX2(SB), NOSPLIT, $0-48
	MOVQ  nb+0(FP), CX
	MOVQ  q+8(FP), SI
	MOVQ  ls+16(FP), BX
	MOVQ  a+24(FP), R8
	MOVQ  aStride+32(FP), AX
	LEAQ  (R8)(AX*1), R9
	LEAQ  (R9)(AX*1), R10
	LEAQ  (R10)(AX*1), R11
	IMUL3Q $const_q8kxBlock, CX, AX
	IXSETUP
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7

ix4block:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	LEAQ  const_ix4Qs(SI), R13
	XORQ  DX, DX
	MOVQ  $8, DI

ix4sub:
	LEAQ    (AX)(DX*1), R12
	IXSCALE(0, Y13)
	IXT4(0)
	IXT4(1)
	IXT4(2)
	IXT4(3)
	ADDQ    $256, R13
	ADDQ    $16, BX
	ADDQ    $32, DX
	DECQ    DI
	JNZ     ix4sub

	VMOVUPS (SI), Y12
	IXF(R8, Y0, Y4)
	IXF(R9, Y1, Y5)
	IXF(R10, Y2, Y6)
	IXF(R11, Y3, Y7)
	ADDQ    $const_ix4Block, SI
	ADDQ    $const_ix4Block-128, BX
	ADDQ    $const_q8kxBlock, R8
	ADDQ    $const_q8kxBlock, R9
	ADDQ    $const_q8kxBlock, R10
	ADDQ    $const_q8kxBlock, R11
	SUBQ    $const_q8kxBlock-256, AX
	DECQ    CX
	JNZ     ix4block

	MOVQ    out+40(FP), DI
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 64(DI)
	VMOVUPS Y6, 128(DI)
	VMOVUPS Y7, 192(DI)
	VZEROUPPER
	RET

// IXH adds the table values ZL (with the activation dword Y10, |y| Y11) and ZH (Y12, Y13) of one half into
// ACC, with the half's scales in ZS.
#define IXH(ZL, ZH, ZS, ACC) \
	VPSIGNB    Y10, ZL, Y2  \
	VPMADDUBSW Y2, Y11, Y2  \
	VPMADDWD   ZS, Y2, Y2   \
	VPADDD     Y2, ACC, ACC \
	VPSIGNB    Y12, ZH, Y3  \
	VPMADDUBSW Y3, Y13, Y3  \
	VPMADDWD   ZS, Y3, Y3   \
	VPADDD     Y3, ACC, ACC

// IXT16 adds dword t of sub-block k of both halves: the activation dwords are broadcast once for the 16 rows.
#define IXT16(t) \
	PREFETCHT0   IX16PFD+64*t(R13)          \
	IXNIB(64*t, Y6, Y7)                     \
	IXNIB(64*t+32, Y8, Y9)                  \
	VPBROADCASTD 4+4*t(R8)(DX*1), Y10       \
	VPBROADCASTD 4*t(R8)(R12*1), Y11        \
	VPBROADCASTD 20+4*t(R8)(DX*1), Y12      \
	VPBROADCASTD 16+4*t(R8)(R12*1), Y13     \
	IXH(Y6, Y7, Y4, Y0)                     \
	IXH(Y8, Y9, Y5, Y1)

// IX16PFD is gemv16IQ4xAVX2's prefetch distance: 2 stored super-blocks.
#define IX16PFD 4480

// func gemv16IQ4xAVX2(nb int, p, a *byte, out *float32)
//
// Reference: DotIQ4_XSQ8_KPanel for the 16 rows of one stored group (nb super-blocks at p) and the Q8_KXA
// column at a; out[r] is row r. Both halves of each stored dword line are read in one pass; the float
// accumulators live in out.
TEXT ·gemv16IQ4xAVX2(SB), NOSPLIT, $0-32
	MOVQ    nb+0(FP), CX
	MOVQ    p+8(FP), SI
	MOVQ    a+16(FP), R8
	MOVQ    out+24(FP), DI
	IMUL3Q  $const_q8kxBlock, CX, AX
	IXSETUP
	VPXOR   Y0, Y0, Y0
	VMOVUPS Y0, (DI)
	VMOVUPS Y0, 32(DI)

ix16block:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	LEAQ  const_ix4Qs(SI), R13
	LEAQ  const_ix4Ls(SI), BX
	XORQ  DX, DX
	MOVQ  $8, R9

ix16sub:
	LEAQ    (AX)(DX*1), R12
	IXSCALE(0, Y4)
	IXSCALE(8, Y5)
	IXT16(0)
	IXT16(1)
	IXT16(2)
	IXT16(3)
	ADDQ    $256, R13
	ADDQ    $16, BX
	ADDQ    $32, DX
	DECQ    R9
	JNZ     ix16sub

	VBROADCASTSS (R8), Y10
	VMULPS       (SI), Y10, Y11
	VCVTDQ2PS    Y0, Y0
	VMOVUPS      (DI), Y12
	VFMADD231PS  Y11, Y0, Y12
	VMOVUPS      Y12, (DI)
	VMULPS       32(SI), Y10, Y11
	VCVTDQ2PS    Y1, Y1
	VMOVUPS      32(DI), Y12
	VFMADD231PS  Y11, Y1, Y12
	VMOVUPS      Y12, 32(DI)
	ADDQ         $const_ix4Block, SI
	ADDQ         $const_q8kxBlock, R8
	SUBQ         $const_q8kxBlock-256, AX
	DECQ         CX
	JNZ          ix16block
	VZEROUPPER
	RET

// func absQKK(dst, src *byte)
TEXT ·absQKK(SB), NOSPLIT, $0-16
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	VPABSB  (SI), Y0
	VPABSB  32(SI), Y1
	VPABSB  64(SI), Y2
	VPABSB  96(SI), Y3
	VPABSB  128(SI), Y4
	VPABSB  160(SI), Y5
	VPABSB  192(SI), Y6
	VPABSB  224(SI), Y7
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VMOVDQU Y4, 128(DI)
	VMOVDQU Y5, 160(DI)
	VMOVDQU Y6, 192(DI)
	VMOVDQU Y7, 224(DI)
	VZEROUPPER
	RET
