//go:build amd64 && !noasm

#include "textflag.h"

// Decoding streams every weight from memory once; with the work between loads these loops issue, the
// hardware prefetchers alone keep too few cache lines in flight (a thread streamed ~6 GB/s of Q8_0 weights
// against ~11 GB/s for a plain read). Each loop therefore prefetches the weights 4 KiB ahead, one
// PREFETCHT0 per 64 bytes it consumes (prefetches never fault, so reaching past a row is harmless); this
// brings every type to the plain read's speed (BenchmarkStreamDot in internal/membw).
#define PFD 4096
#define PFD1 4160
#define PFD2 4224
#define PFD3 4288

// AVX2 + FMA + F16C dot products of the 32-element block formats, hand-written Plan 9 assembly, in the
// reference's arithmetic (dot_blocks32.go). Integer parts are exact for every input byte: quants are used as
// unsigned bytes (0…15, 0…31) in VPMADDUBSW against the signed activation, and the offsets (8, 16) are
// subtracted as a second VPMADDUBSW of the offset against the activation, so no int16 pair can saturate;
// Q8_0·Q8_0 sign-extends both sides to int16 (VPMADDWD), or with VNNI offsets the weights by 128. A block's
// int32 lane i holds elements 4i…4i+3; the lanes are converted to float32 and fused into one 8-lane
// accumulator by the block's scale product dw·da (a float32 product), and added at the end in
// hsum_float_8's order. The repacked Q4_0 kernel instead adds up the whole block in integers and fuses
// that sum into a scalar.

DATA b0F<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA b0F<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA b0F<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA b0F<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL b0F<>(SB), RODATA|NOPTR, $32

DATA b08<>+0(SB)/8, $0x0808080808080808
DATA b08<>+8(SB)/8, $0x0808080808080808
DATA b08<>+16(SB)/8, $0x0808080808080808
DATA b08<>+24(SB)/8, $0x0808080808080808
GLOBL b08<>(SB), RODATA|NOPTR, $32

DATA b10<>+0(SB)/8, $0x1010101010101010
DATA b10<>+8(SB)/8, $0x1010101010101010
DATA b10<>+16(SB)/8, $0x1010101010101010
DATA b10<>+24(SB)/8, $0x1010101010101010
GLOBL b10<>(SB), RODATA|NOPTR, $32

DATA b20<>+0(SB)/8, $0x2020202020202020
DATA b20<>+8(SB)/8, $0x2020202020202020
DATA b20<>+16(SB)/8, $0x2020202020202020
DATA b20<>+24(SB)/8, $0x2020202020202020
GLOBL b20<>(SB), RODATA|NOPTR, $32

DATA b01<>+0(SB)/8, $0x0101010101010101
DATA b01<>+8(SB)/8, $0x0101010101010101
DATA b01<>+16(SB)/8, $0x0101010101010101
DATA b01<>+24(SB)/8, $0x0101010101010101
GLOBL b01<>(SB), RODATA|NOPTR, $32

DATA b03<>+0(SB)/8, $0x0303030303030303
DATA b03<>+8(SB)/8, $0x0303030303030303
DATA b03<>+16(SB)/8, $0x0303030303030303
DATA b03<>+24(SB)/8, $0x0303030303030303
GLOBL b03<>(SB), RODATA|NOPTR, $32

DATA b0C<>+0(SB)/8, $0x0c0c0c0c0c0c0c0c
DATA b0C<>+8(SB)/8, $0x0c0c0c0c0c0c0c0c
DATA b0C<>+16(SB)/8, $0x0c0c0c0c0c0c0c0c
DATA b0C<>+24(SB)/8, $0x0c0c0c0c0c0c0c0c
GLOBL b0C<>(SB), RODATA|NOPTR, $32

DATA b30<>+0(SB)/8, $0x3030303030303030
DATA b30<>+8(SB)/8, $0x3030303030303030
DATA b30<>+16(SB)/8, $0x3030303030303030
DATA b30<>+24(SB)/8, $0x3030303030303030
GLOBL b30<>(SB), RODATA|NOPTR, $32

DATA bC0<>+0(SB)/8, $0xc0c0c0c0c0c0c0c0
DATA bC0<>+8(SB)/8, $0xc0c0c0c0c0c0c0c0
DATA bC0<>+16(SB)/8, $0xc0c0c0c0c0c0c0c0
DATA bC0<>+24(SB)/8, $0xc0c0c0c0c0c0c0c0
GLOBL bC0<>(SB), RODATA|NOPTR, $32

DATA w1<>+0(SB)/8, $0x0001000100010001
DATA w1<>+8(SB)/8, $0x0001000100010001
DATA w1<>+16(SB)/8, $0x0001000100010001
DATA w1<>+24(SB)/8, $0x0001000100010001
GLOBL w1<>(SB), RODATA|NOPTR, $32

// shufQH spreads the 32 bits of a Q5 block's qh (broadcast to every dword) so that byte i holds qh byte i/8;
// bitQH then sets every bit but bit i%8, and a compare with all-ones leaves 0xFF where bit i of qh is set.
DATA shufQH<>+0(SB)/8, $0x0000000000000000
DATA shufQH<>+8(SB)/8, $0x0101010101010101
DATA shufQH<>+16(SB)/8, $0x0202020202020202
DATA shufQH<>+24(SB)/8, $0x0303030303030303
GLOBL shufQH<>(SB), RODATA|NOPTR, $32

DATA bitQH<>+0(SB)/8, $0x7fbfdfeff7fbfdfe
DATA bitQH<>+8(SB)/8, $0x7fbfdfeff7fbfdfe
DATA bitQH<>+16(SB)/8, $0x7fbfdfeff7fbfdfe
DATA bitQH<>+24(SB)/8, $0x7fbfdfeff7fbfdfe
GLOBL bitQH<>(SB), RODATA|NOPTR, $32

// shufK4 entry k (32 bytes) broadcasts int16 word k of a register holding 8 words in both lanes.
DATA shufK4<>+0(SB)/8, $0x0100010001000100
DATA shufK4<>+8(SB)/8, $0x0100010001000100
DATA shufK4<>+16(SB)/8, $0x0100010001000100
DATA shufK4<>+24(SB)/8, $0x0100010001000100
DATA shufK4<>+32(SB)/8, $0x0302030203020302
DATA shufK4<>+40(SB)/8, $0x0302030203020302
DATA shufK4<>+48(SB)/8, $0x0302030203020302
DATA shufK4<>+56(SB)/8, $0x0302030203020302
DATA shufK4<>+64(SB)/8, $0x0504050405040504
DATA shufK4<>+72(SB)/8, $0x0504050405040504
DATA shufK4<>+80(SB)/8, $0x0504050405040504
DATA shufK4<>+88(SB)/8, $0x0504050405040504
DATA shufK4<>+96(SB)/8, $0x0706070607060706
DATA shufK4<>+104(SB)/8, $0x0706070607060706
DATA shufK4<>+112(SB)/8, $0x0706070607060706
DATA shufK4<>+120(SB)/8, $0x0706070607060706
DATA shufK4<>+128(SB)/8, $0x0908090809080908
DATA shufK4<>+136(SB)/8, $0x0908090809080908
DATA shufK4<>+144(SB)/8, $0x0908090809080908
DATA shufK4<>+152(SB)/8, $0x0908090809080908
DATA shufK4<>+160(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA shufK4<>+168(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA shufK4<>+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA shufK4<>+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA shufK4<>+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA shufK4<>+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA shufK4<>+208(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA shufK4<>+216(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA shufK4<>+224(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA shufK4<>+232(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA shufK4<>+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA shufK4<>+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL shufK4<>(SB), RODATA|NOPTR, $256

// shufK6 entry k (32 bytes): the low lane broadcasts word 2k, the high lane word 2k+1 (Q6_K: one scale per
// 16 elements, so the 32 elements of a quarter take two scales).
DATA shufK6<>+0(SB)/8, $0x0100010001000100
DATA shufK6<>+8(SB)/8, $0x0100010001000100
DATA shufK6<>+16(SB)/8, $0x0302030203020302
DATA shufK6<>+24(SB)/8, $0x0302030203020302
DATA shufK6<>+32(SB)/8, $0x0504050405040504
DATA shufK6<>+40(SB)/8, $0x0504050405040504
DATA shufK6<>+48(SB)/8, $0x0706070607060706
DATA shufK6<>+56(SB)/8, $0x0706070607060706
DATA shufK6<>+64(SB)/8, $0x0908090809080908
DATA shufK6<>+72(SB)/8, $0x0908090809080908
DATA shufK6<>+80(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA shufK6<>+88(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA shufK6<>+96(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA shufK6<>+104(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA shufK6<>+112(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA shufK6<>+120(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL shufK6<>(SB), RODATA|NOPTR, $128

// HSUMPS adds the 8 float32 lanes of Y into lane 0 of X (the low half of Y); T is clobbered.
#define HSUMPS(Y, X, T) \
	VEXTRACTF128 $1, Y, T \
	VADDPS       T, X, X  \
	VMOVHLPS     X, X, T  \
	VADDPS       T, X, X  \
	VMOVSHDUP    X, T     \
	VADDSS       T, X, X

// F16PAIR broadcasts f16(woff(SI))·f16(aoff(DI)) into Y (X is its low half); clobbers AX and X12.
#define F16PAIR(woff, aoff, X, Y) \
	MOVWLZX      woff(SI), AX    \
	VMOVD        AX, X           \
	VPINSRW      $1, aoff(DI), X, X \
	VCVTPH2PS    X, X            \
	VMOVSHDUP    X, X12          \
	VMULSS       X12, X, X       \
	VBROADCASTSS X, Y

// NIBBLES expands the 16 bytes at off(SI) into 32 quants in Y: low nibbles in the low lane (elements 0…15),
// high nibbles in the high lane (elements 16…31). Needs Y14 = 0x0F bytes; clobbers X4.
#define NIBBLES(off, X, Y) \
	VMOVDQU     off(SI), X       \
	VPSRLW      $4, X, X4        \
	VINSERTI128 $1, X4, Y, Y     \
	VPAND       Y14, Y, Y

// QHBITS sets Y to 0x10 in byte i where bit i of the 32-bit word at off(SI) is set, else 0.
// Needs Y9 = shufQH, Y10 = bitQH, Y11 = all ones, Y8 = 0x10 bytes.
#define QHBITS(off, Y) \
	VPBROADCASTD off(SI), Y  \
	VPSHUFB      Y9, Y, Y    \
	VPOR         Y10, Y, Y   \
	VPCMPEQB     Y11, Y, Y   \
	VPAND        Y8, Y, Y

// Q4_0 block: Σ (q−8)·y = maddubs(q, y) − maddubs(8, y), pairwise in int16 (|pair| ≤ 2·8·128), then to int32.
#define Q40BLOCK(wd, wq, ad, aq, ACC) \
	F16PAIR(wd, ad, X2, Y2)       \
	NIBBLES(wq, X3, Y3)           \
	VMOVDQU     aq(DI), Y5        \
	VPMADDUBSW  Y5, Y3, Y6        \
	VPMADDUBSW  Y5, Y13, Y7       \
	VPSUBW      Y7, Y6, Y6        \
	VPMADDWD    Y15, Y6, Y6       \
	VCVTDQ2PS   Y6, Y6            \
	VFMADD231PS Y6, Y2, ACC

// func dotQ4_0Q8_0AVX2(nb int, w, a *byte) float32
//
// Reference: DotQ4_0Q8_0 (per block s = Σ (q−8)·y exactly; sum += s·dw·da).
TEXT ·dotQ4_0Q8_0AVX2(SB), NOSPLIT, $0-28
	MOVQ    nb+0(FP), CX
	MOVQ    w+8(FP), SI
	MOVQ    a+16(FP), DI
	VMOVDQU b0F<>(SB), Y14
	VMOVDQU b08<>(SB), Y13
	VMOVDQU w1<>(SB), Y15
	VXORPS  Y0, Y0, Y0

q40pair:
	CMPQ CX, $2
	JLT  q40tail
	PREFETCHT0 PFD(SI)
	Q40BLOCK(0, 2, 0, 2, Y0)
	Q40BLOCK(18, 20, 34, 36, Y0)
	ADDQ $36, SI
	ADDQ $68, DI
	SUBQ $2, CX
	JMP  q40pair

q40tail:
	TESTQ CX, CX
	JZ    q40done
	Q40BLOCK(0, 2, 0, 2, Y0)

q40done:
	HSUMPS(Y0, X0, X1)
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// Q8_0 block: both sides sign-extended to int16, VPMADDWD (exact for every int8 pair, −128·−128 included)
// gives the sums of element pairs; VPHADDD adds neighbouring pairs, so that after VPERMQ lane i holds
// elements 4i…4i+3 as in the reference.
#define Q80BLOCK(wd, wq, wq2, ad, aq, aq2, ACC) \
	F16PAIR(wd, ad, X2, Y2)    \
	VPMOVSXBW   wq(SI), Y3     \
	VPMOVSXBW   wq2(SI), Y4    \
	VPMOVSXBW   aq(DI), Y5     \
	VPMOVSXBW   aq2(DI), Y6    \
	VPMADDWD    Y5, Y3, Y3     \
	VPMADDWD    Y6, Y4, Y4     \
	VPHADDD     Y4, Y3, Y3     \
	VPERMQ      $0xd8, Y3, Y3  \
	VCVTDQ2PS   Y3, Y3         \
	VFMADD231PS Y3, Y2, ACC

// func dotQ8_0Q8_0AVX2(nb int, w, a *byte) float32
//
// Reference: DotQ8_0Q8_0 (per block s = Σ x·y exactly; sum += s·(dw·da)).
TEXT ·dotQ8_0Q8_0AVX2(SB), NOSPLIT, $0-28
	MOVQ   nb+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

q80pair:
	CMPQ CX, $2
	JLT  q80tail
	PREFETCHT0 PFD(SI)
	Q80BLOCK(0, 2, 18, 0, 2, 18, Y0)
	Q80BLOCK(34, 36, 52, 34, 36, 52, Y0)
	ADDQ $68, SI
	ADDQ $68, DI
	SUBQ $2, CX
	JMP  q80pair

q80tail:
	TESTQ CX, CX
	JZ    q80done
	Q80BLOCK(0, 2, 18, 0, 2, 18, Y0)

q80done:
	HSUMPS(Y0, X0, X1)
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// Q1SCALES loads [dw, mw] at woff(SI) and [da, sa] at aoff(DI) (all f16), broadcasts dw·da into Y2 and adds
// mw·sa to lane 0 of S. Clobbers X3, X4.
#define Q1SCALES(woff, aoff, S) \
	VMOVD        woff(SI), X2         \
	VPINSRD      $1, aoff(DI), X2, X2 \
	VCVTPH2PS    X2, X2               \
	VMOVHLPS     X2, X2, X3           \
	VMULPS       X3, X2, X3           \
	VMOVSHDUP    X3, X4               \
	VADDSS       X4, S, S             \
	VBROADCASTSS X3, Y2

// Q4_1 block: Σ q·y with q in 0…15 unsigned, one VPMADDUBSW.
#define Q41BLOCK(wo, wq, ao, aq, ACC) \
	Q1SCALES(wo, ao, X11)     \
	NIBBLES(wq, X3, Y3)       \
	VPMADDUBSW  aq(DI), Y3, Y6 \
	VPMADDWD    Y15, Y6, Y6   \
	VCVTDQ2PS   Y6, Y6        \
	VFMADD231PS Y6, Y2, ACC

// func dotQ4_1Q8_1AVX2(nb int, w, a *byte) float32
//
// Reference: DotQ4_1Q8_1 (per block s = Σ q·y exactly; sum += s·dw·da + mw·sa).
TEXT ·dotQ4_1Q8_1AVX2(SB), NOSPLIT, $0-28
	MOVQ    nb+0(FP), CX
	MOVQ    w+8(FP), SI
	MOVQ    a+16(FP), DI
	VMOVDQU b0F<>(SB), Y14
	VMOVDQU w1<>(SB), Y15
	VXORPS  Y0, Y0, Y0
	VXORPS  X11, X11, X11

q41pair:
	CMPQ CX, $2
	JLT  q41tail
	PREFETCHT0 PFD(SI)
	Q41BLOCK(0, 4, 0, 4, Y0)
	Q41BLOCK(20, 24, 36, 40, Y0)
	ADDQ $40, SI
	ADDQ $72, DI
	SUBQ $2, CX
	JMP  q41pair

q41tail:
	TESTQ CX, CX
	JZ    q41done
	Q41BLOCK(0, 4, 0, 4, Y0)

q41done:
	HSUMPS(Y0, X0, X1)
	VADDSS X11, X0, X0
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// Q5_0 block: q = nibble | 16·bit in 0…31; Σ (q−16)·y = maddubs(q, y) − maddubs(16, y).
#define Q50BLOCK(wd, wh, wq, ad, aq, ACC) \
	F16PAIR(wd, ad, X2, Y2)   \
	QHBITS(wh, Y7)            \
	NIBBLES(wq, X3, Y3)       \
	VPOR        Y7, Y3, Y3    \
	VMOVDQU     aq(DI), Y5    \
	VPMADDUBSW  Y5, Y3, Y6    \
	VPMADDUBSW  Y5, Y8, Y7    \
	VPSUBW      Y7, Y6, Y6    \
	VPMADDWD    Y15, Y6, Y6   \
	VCVTDQ2PS   Y6, Y6        \
	VFMADD231PS Y6, Y2, ACC

// func dotQ5_0Q8_0AVX2(nb int, w, a *byte) float32
//
// Reference: DotQ5_0Q8_0 (per block s = Σ (q−16)·y exactly; sum += (dw·da)·s).
TEXT ·dotQ5_0Q8_0AVX2(SB), NOSPLIT, $0-28
	MOVQ     nb+0(FP), CX
	MOVQ     w+8(FP), SI
	MOVQ     a+16(FP), DI
	VMOVDQU  b0F<>(SB), Y14
	VMOVDQU  w1<>(SB), Y15
	VMOVDQU  b10<>(SB), Y8
	VMOVDQU  shufQH<>(SB), Y9
	VMOVDQU  bitQH<>(SB), Y10
	VPCMPEQB Y11, Y11, Y11
	VXORPS   Y0, Y0, Y0

q50pair:
	CMPQ CX, $2
	JLT  q50tail
	PREFETCHT0 PFD(SI)
	Q50BLOCK(0, 2, 6, 0, 2, Y0)
	Q50BLOCK(22, 24, 28, 34, 36, Y0)
	ADDQ $44, SI
	ADDQ $68, DI
	SUBQ $2, CX
	JMP  q50pair

q50tail:
	TESTQ CX, CX
	JZ    q50done
	Q50BLOCK(0, 2, 6, 0, 2, Y0)

q50done:
	HSUMPS(Y0, X0, X1)
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// Q5_1 block: q = nibble | 16·bit in 0…31, unsigned; one VPMADDUBSW.
#define Q51BLOCK(wo, wh, wq, ao, aq, ACC) \
	Q1SCALES(wo, ao, X13)     \
	QHBITS(wh, Y7)            \
	NIBBLES(wq, X3, Y3)       \
	VPOR        Y7, Y3, Y3    \
	VPMADDUBSW  aq(DI), Y3, Y6 \
	VPMADDWD    Y15, Y6, Y6   \
	VCVTDQ2PS   Y6, Y6        \
	VFMADD231PS Y6, Y2, ACC

// func dotQ5_1Q8_1AVX2(nb int, w, a *byte) float32
//
// Reference: DotQ5_1Q8_1 (per block s = Σ q·y exactly; sum += s·dw·da + mw·sa).
TEXT ·dotQ5_1Q8_1AVX2(SB), NOSPLIT, $0-28
	MOVQ     nb+0(FP), CX
	MOVQ     w+8(FP), SI
	MOVQ     a+16(FP), DI
	VMOVDQU  b0F<>(SB), Y14
	VMOVDQU  w1<>(SB), Y15
	VMOVDQU  b10<>(SB), Y8
	VMOVDQU  shufQH<>(SB), Y9
	VMOVDQU  bitQH<>(SB), Y10
	VPCMPEQB Y11, Y11, Y11
	VXORPS   Y0, Y0, Y0
	VXORPS   X13, X13, X13

q51pair:
	CMPQ CX, $2
	JLT  q51tail
	PREFETCHT0 PFD(SI)
	Q51BLOCK(0, 4, 8, 0, 4, Y0)
	Q51BLOCK(24, 28, 32, 36, 40, Y0)
	ADDQ $48, SI
	ADDQ $72, DI
	SUBQ $2, CX
	JMP  q51pair

q51tail:
	TESTQ CX, CX
	JZ    q51done
	Q51BLOCK(0, 4, 8, 0, 4, Y0)

q51done:
	HSUMPS(Y0, X0, X1)
	VADDSS X13, X0, X0
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET


// func dotQ4_0Q8_0RepackedAVX2(nb int, w, a *byte) float32
//
// Reference: DotQ4_0Q8_0Interleaved (per block the exact sum s = Σ (q−8)·y; acc = fma(s, dw·da, acc)).
TEXT ·dotQ4_0Q8_0RepackedAVX2(SB), NOSPLIT, $0-28
	MOVQ    nb+0(FP), CX
	MOVQ    w+8(FP), SI
	MOVQ    a+16(FP), DI
	VMOVDQU b0F<>(SB), Y14
	VMOVDQU b08<>(SB), Y13
	VMOVDQU w1<>(SB), Y15
	VXORPS  X0, X0, X0

q40rloop:
	PREFETCHT0   PFD(SI)
	MOVWLZX      0(SI), AX
	VMOVD        AX, X2
	VPINSRW      $1, 0(DI), X2, X2
	VCVTPH2PS    X2, X2
	VMOVSHDUP    X2, X12
	VMULSS       X12, X2, X2
	NIBBLES(2, X3, Y3)
	VMOVDQU      2(DI), Y5
	VPMADDUBSW   Y5, Y3, Y6
	VPMADDUBSW   Y5, Y13, Y7
	VPSUBW       Y7, Y6, Y6
	VPMADDWD     Y15, Y6, Y6
	VEXTRACTI128 $1, Y6, X7
	VPADDD       X7, X6, X6
	VPSHUFD      $0x4e, X6, X7
	VPADDD       X7, X6, X6
	VPSHUFD      $0xb1, X6, X7
	VPADDD       X7, X6, X6
	VCVTDQ2PS    X6, X6
	VFMADD231SS  X2, X6, X0
	ADDQ         $18, SI
	ADDQ         $34, DI
	DECQ         CX
	JNZ          q40rloop
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

DATA b80<>+0(SB)/8, $0x8080808080808080
DATA b80<>+8(SB)/8, $0x8080808080808080
DATA b80<>+16(SB)/8, $0x8080808080808080
DATA b80<>+24(SB)/8, $0x8080808080808080
GLOBL b80<>(SB), RODATA|NOPTR, $32

// Q8_0 block with VNNI: Σ x·y = Σ (x+128)·y − 128·Σ y per group of four (x+128 = x XOR 0x80 as an unsigned
// byte), both VPDPBUSD sums exact. Needs Y13 = 0x80 bytes.
#define Q80VBLOCK(wd, wq, ad, aq, ACC) \
	F16PAIR(wd, ad, X2, Y2)    \
	VPXOR       wq(SI), Y13, Y3 \
	VMOVDQU     aq(DI), Y5     \
	VPXOR       Y4, Y4, Y4     \
	VPDPBUSD    Y5, Y3, Y4     \
	VPXOR       Y6, Y6, Y6     \
	VPDPBUSD    Y5, Y13, Y6    \
	VPSUBD      Y6, Y4, Y4     \
	VCVTDQ2PS   Y4, Y4         \
	VFMADD231PS Y4, Y2, ACC

// func dotQ8_0Q8_0VNNI(nb int, w, a *byte) float32
//
// Reference: DotQ8_0Q8_0. Needs AVX512VL and AVX512_VNNI (VPDPBUSD on 256-bit registers).
TEXT ·dotQ8_0Q8_0VNNI(SB), NOSPLIT, $0-28
	MOVQ    nb+0(FP), CX
	MOVQ    w+8(FP), SI
	MOVQ    a+16(FP), DI
	VMOVDQU b80<>(SB), Y13
	VXORPS  Y0, Y0, Y0

q80vloop:
	PREFETCHT0 PFD(SI)
	Q80VBLOCK(0, 2, 0, 2, Y0)
	ADDQ $34, SI
	ADDQ $34, DI
	DECQ CX
	JNZ  q80vloop
	HSUMPS(Y0, X0, X1)
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// func dotQ8_0Q8_0RowsVNNI(nb int, w *byte, wStride, rows int, a *byte, out *float32)
//
// dotQ8_0Q8_0VNNI of rows weight rows, wStride bytes apart, with one activation row: out[r] for r < rows.
TEXT ·dotQ8_0Q8_0RowsVNNI(SB), NOSPLIT, $0-48
	MOVQ    w+8(FP), R8
	MOVQ    rows+24(FP), R9
	MOVQ    out+40(FP), R10
	VMOVDQU b80<>(SB), Y13

q80rrow:
	MOVQ    nb+0(FP), CX
	MOVQ    R8, SI
	MOVQ    a+32(FP), DI
	VXORPS  Y0, Y0, Y0

q80rloop:
	Q80VBLOCK(0, 2, 0, 2, Y0)
	ADDQ $34, SI
	ADDQ $34, DI
	DECQ CX
	JNZ  q80rloop
	HSUMPS(Y0, X0, X1)
	MOVSS X0, (R10)
	ADDQ  $4, R10
	ADDQ  wStride+16(FP), R8
	DECQ  R9
	JNZ   q80rrow
	VZEROUPPER
	RET
