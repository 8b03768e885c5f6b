//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"

DATA ix4lNibbles<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA ix4lNibbles<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA ix4lNibbles<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA ix4lNibbles<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL ix4lNibbles<>(SB), RODATA|NOPTR, $32

// IX4LSUB expands sub-block k of the super-block at SI (one row) into 32 int16 (scale−32)·kvalue, elements 0…7
// and 16…23 to k·512(DI), 8…15 and 24…31 to k·512+32(DI): the sub-block's 6-bit scale (low nibble from
// scales_l, high two bits from scales_h) selects its row of the table at R8, whose low and high bytes
// VPSHUFB looks up by the nibbles (low nibbles: elements 0…15, high: 16…31).
#define IX4LSUB(k, shl, shh) \
	MOVBLZX        4+k/2(SI), AX             \
	SHRL           $shl, AX                  \
	ANDL           $15, AX                   \
	MOVWLZX        2(SI), DX                 \
	SHRL           $shh, DX                  \
	ANDL           $3, DX                    \
	SHLL           $4, DX                    \
	ORL            DX, AX                    \
	SHLL           $5, AX                    \
	VBROADCASTI128 (R8)(AX*1), Y2            \
	VBROADCASTI128 16(R8)(AX*1), Y3          \
	VMOVDQU        8+16*k(SI), X0            \
	VPSRLW         $4, X0, X1                \
	VINSERTI128    $1, X1, Y0, Y0            \
	VPAND          Y15, Y0, Y0               \
	VPSHUFB        Y0, Y2, Y2                \
	VPSHUFB        Y0, Y3, Y3                \
	VPUNPCKLBW     Y3, Y2, Y4                \
	VPUNPCKHBW     Y3, Y2, Y5                \
	VMOVDQU        Y4, 512*k(DI)             \
	VMOVDQU        Y5, 512*k+32(DI)

// IX4LT8 transposes the eight rows' 32-byte vectors at off(DI) + 64·r (dwords p0…p7 of each) and stores
// position p's eight dwords (rows 0…7) at the address of mode Ap.
#define IX4LT8(off, A0, A1, A2, A3, A4, A5, A6, A7) \
	VMOVDQU    off(DI), Y0            \
	VMOVDQU    off+128(DI), Y1        \
	VMOVDQU    off+256(DI), Y2        \
	VMOVDQU    off+384(DI), Y3        \
	VPUNPCKLDQ off+64(DI), Y0, Y4     \
	VPUNPCKHDQ off+64(DI), Y0, Y5     \
	VPUNPCKLDQ off+192(DI), Y1, Y6    \
	VPUNPCKHDQ off+192(DI), Y1, Y7    \
	VPUNPCKLDQ off+320(DI), Y2, Y8    \
	VPUNPCKHDQ off+320(DI), Y2, Y9    \
	VPUNPCKLDQ off+448(DI), Y3, Y10   \
	VPUNPCKHDQ off+448(DI), Y3, Y11   \
	VPUNPCKLQDQ Y6, Y4, Y0            \
	VPUNPCKHQDQ Y6, Y4, Y1            \
	VPUNPCKLQDQ Y7, Y5, Y2            \
	VPUNPCKHQDQ Y7, Y5, Y3            \
	VPUNPCKLQDQ Y10, Y8, Y4           \
	VPUNPCKHQDQ Y10, Y8, Y5           \
	VPUNPCKLQDQ Y11, Y9, Y6           \
	VPUNPCKHQDQ Y11, Y9, Y7           \
	VPERM2I128 $0x20, Y4, Y0, Y8      \
	VMOVDQU    Y8, A0                 \
	VPERM2I128 $0x20, Y5, Y1, Y8      \
	VMOVDQU    Y8, A1                 \
	VPERM2I128 $0x20, Y6, Y2, Y8      \
	VMOVDQU    Y8, A2                 \
	VPERM2I128 $0x20, Y7, Y3, Y8      \
	VMOVDQU    Y8, A3                 \
	VPERM2I128 $0x31, Y4, Y0, Y8      \
	VMOVDQU    Y8, A4                 \
	VPERM2I128 $0x31, Y5, Y1, Y8      \
	VMOVDQU    Y8, A5                 \
	VPERM2I128 $0x31, Y6, Y2, Y8      \
	VMOVDQU    Y8, A6                 \
	VPERM2I128 $0x31, Y7, Y3, Y8      \
	VMOVDQU    Y8, A7

// IX4LSTORE transposes sub-block k's eight rows (scratch at DI) into the packed lanes: dword d (elements 2d,
// 2d+1) goes to lane d/2, pair 2k + d%2, at (d/2)·R9 + (d%2)·64 + k·128 past R10 (R9 = nb·ix4lLane, R11 =
// 3·R9, R12 = 5·R9, R13 = 7·R9). The first vector of each row holds d = 0…3, 8…11, the second 4…7, 12…15.
#define IX4LSTORE(k) \
	IX4LT8(512*k, 128*k(R10), 128*k+64(R10), 128*k(R10)(R9*1), 128*k+64(R10)(R9*1), 128*k(R10)(R9*4), 128*k+64(R10)(R9*4), 128*k(R10)(R12*1), 128*k+64(R10)(R12*1)) \
	IX4LT8(512*k+32, 128*k(R10)(R9*2), 128*k+64(R10)(R9*2), 128*k(R10)(R11*1), 128*k+64(R10)(R11*1), 128*k(R10)(R11*2), 128*k+64(R10)(R11*2), 128*k(R10)(R13*1), 128*k+64(R10)(R13*1))

// func ix4lPack8(nb int, w *byte, wStride int, tab, scratch, dst *byte)
//
// packIQ4_XSL's lanes for eight rows (w, wStride bytes apart) of nb super-blocks: dst is the group's first
// lane line plus 32 bytes for rows 8…15; tab is ix4lTab; scratch holds 4096 bytes (one super-block's rows,
// sub-block k of row r at 512k + 64r).
TEXT ·ix4lPack8(SB), NOSPLIT, $8-48
	MOVQ    nb+0(FP), CX
	MOVQ    w+8(FP), BX
	MOVQ    wStride+16(FP), R14
	MOVQ    tab+24(FP), R8
	MOVQ    scratch+32(FP), DI
	MOVQ    dst+40(FP), R10
	MOVQ    CX, R9
	SHLQ    $10, R9            // nb·ix4lLane
	LEAQ    (R9)(R9*2), R11
	LEAQ    (R9)(R9*4), R12
	LEAQ    (R11)(R9*4), R13
	VMOVDQU ix4lNibbles<>(SB), Y15

ix4lblock:
	MOVQ BX, SI
	MOVQ $8, rows-8(SP)

ix4lrow:
	IX4LSUB(0, 0, 0)
	IX4LSUB(1, 4, 2)
	IX4LSUB(2, 0, 4)
	IX4LSUB(3, 4, 6)
	IX4LSUB(4, 0, 8)
	IX4LSUB(5, 4, 10)
	IX4LSUB(6, 0, 12)
	IX4LSUB(7, 4, 14)
	ADDQ R14, SI
	ADDQ $64, DI
	DECQ rows-8(SP)
	JNZ  ix4lrow

	SUBQ $512, DI
	IX4LSTORE(0)
	IX4LSTORE(1)
	IX4LSTORE(2)
	IX4LSTORE(3)
	IX4LSTORE(4)
	IX4LSTORE(5)
	IX4LSTORE(6)
	IX4LSTORE(7)
	ADDQ $136, BX
	ADDQ $const_ix4lLane, R10
	DECQ CX
	JNZ  ix4lblock
	VZEROUPPER
	RET
