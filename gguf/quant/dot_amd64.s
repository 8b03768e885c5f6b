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

// AVX2 + FMA + F16C dot products, hand-written Plan 9 assembly. Integer parts are exact for every input byte:
// quants are used as unsigned bytes (0…15, 0…31, 0…63) in VPMADDUBSW against the signed activation, and the
// offsets (8, 16, 32) are subtracted as a second VPMADDUBSW of the offset against the activation, so no
// int16 pair can saturate; Q8_0·Q8_0 sign-extends both sides to int16 (VPMADDWD). Each block's int32 lanes
// are converted to float32 and accumulated with FMA by the block's scale product, as ggml's AVX2 code does.

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
	VXORPS  Y1, Y1, Y1

q40pair:
	CMPQ CX, $2
	JLT  q40tail
	PREFETCHT0 PFD(SI)
	Q40BLOCK(0, 2, 0, 2, Y0)
	Q40BLOCK(18, 20, 34, 36, Y1)
	ADDQ $36, SI
	ADDQ $68, DI
	SUBQ $2, CX
	JMP  q40pair

q40tail:
	TESTQ CX, CX
	JZ    q40done
	Q40BLOCK(0, 2, 0, 2, Y0)

q40done:
	VADDPS Y1, Y0, Y0
	HSUMPS(Y0, X0, X1)
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// Q8_0 block: both sides sign-extended to int16, VPMADDWD: exact for every int8 pair (including −128·−128).
#define Q80BLOCK(wd, wq, wq2, ad, aq, aq2, ACC) \
	F16PAIR(wd, ad, X2, Y2)    \
	VPMOVSXBW   wq(SI), Y3     \
	VPMOVSXBW   wq2(SI), Y4    \
	VPMOVSXBW   aq(DI), Y5     \
	VPMOVSXBW   aq2(DI), Y6    \
	VPMADDWD    Y5, Y3, Y3     \
	VPMADDWD    Y6, Y4, Y4     \
	VPADDD      Y4, Y3, Y3     \
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
	Q80BLOCK(34, 36, 52, 34, 36, 52, Y1)
	ADDQ $68, SI
	ADDQ $68, DI
	SUBQ $2, CX
	JMP  q80pair

q80tail:
	TESTQ CX, CX
	JZ    q80done
	Q80BLOCK(0, 2, 18, 0, 2, 18, Y0)

q80done:
	VADDPS Y1, Y0, Y0
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
	VXORPS  Y1, Y1, Y1
	VXORPS  X11, X11, X11

q41pair:
	CMPQ CX, $2
	JLT  q41tail
	PREFETCHT0 PFD(SI)
	Q41BLOCK(0, 4, 0, 4, Y0)
	Q41BLOCK(20, 24, 36, 40, Y1)
	ADDQ $40, SI
	ADDQ $72, DI
	SUBQ $2, CX
	JMP  q41pair

q41tail:
	TESTQ CX, CX
	JZ    q41done
	Q41BLOCK(0, 4, 0, 4, Y0)

q41done:
	VADDPS Y1, Y0, Y0
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
	VXORPS   Y1, Y1, Y1

q50pair:
	CMPQ CX, $2
	JLT  q50tail
	PREFETCHT0 PFD(SI)
	Q50BLOCK(0, 2, 6, 0, 2, Y0)
	Q50BLOCK(22, 24, 28, 34, 36, Y1)
	ADDQ $44, SI
	ADDQ $68, DI
	SUBQ $2, CX
	JMP  q50pair

q50tail:
	TESTQ CX, CX
	JZ    q50done
	Q50BLOCK(0, 2, 6, 0, 2, Y0)

q50done:
	VADDPS Y1, Y0, Y0
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
	VXORPS   Y1, Y1, Y1
	VXORPS   X13, X13, X13

q51pair:
	CMPQ CX, $2
	JLT  q51tail
	PREFETCHT0 PFD(SI)
	Q51BLOCK(0, 4, 8, 0, 4, Y0)
	Q51BLOCK(24, 28, 32, 36, 40, Y1)
	ADDQ $48, SI
	ADDQ $72, DI
	SUBQ $2, CX
	JMP  q51pair

q51tail:
	TESTQ CX, CX
	JZ    q51done
	Q51BLOCK(0, 4, 8, 0, 4, Y0)

q51done:
	VADDPS Y1, Y0, Y0
	HSUMPS(Y0, X0, X1)
	VADDSS X13, X0, X0
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// KSCALES is the per-super-block prologue of Q4_K and Q5_K: it broadcasts d·yd into Y1, adds
// dmin·yd·Σ bsums·mins (4 lanes) into X11, and leaves the eight 6-bit scales as int16 words in both lanes of
// Y10. The scale/min unpacking is ggml's utmp shuffle of the 12 packed bytes (see scaleMinK4).
#define KSCALES \
	VMOVD        0(SI), X2            \
	VCVTPH2PS    X2, X2               \
	VBROADCASTSS 0(DI), X3            \
	VMULPS       X3, X2, X2           \
	VBROADCASTSS X2, Y1               \
	VMOVSHDUP    X2, X2               \
	VBROADCASTSS X2, X2               \
	MOVL         4(SI), R8            \
	MOVL         8(SI), R9            \
	MOVL         12(SI), R10          \
	MOVL         R10, AX              \
	SHRL         $4, AX               \
	ANDL         $0x0f0f0f0f, AX      \
	MOVL         R9, BX               \
	SHRL         $6, BX               \
	ANDL         $0x03030303, BX      \
	SHLL         $4, BX               \
	ORL          BX, AX               \
	MOVL         R9, DX               \
	ANDL         $0x3f3f3f3f, DX      \
	ANDL         $0x0f0f0f0f, R10     \
	MOVL         R8, BX               \
	SHRL         $6, BX               \
	ANDL         $0x03030303, BX      \
	SHLL         $4, BX               \
	ORL          BX, R10              \
	ANDL         $0x3f3f3f3f, R8      \
	SHLQ         $32, AX              \
	ORQ          DX, AX               \
	SHLQ         $32, R10             \
	ORQ          R8, R10              \
	VMOVQ        AX, X4               \
	VPMOVZXBW    X4, X4               \
	VMOVDQU      260(DI), X5          \
	VPHADDW      276(DI), X5, X5      \
	VPMADDWD     X4, X5, X5           \
	VCVTDQ2PS    X5, X5               \
	VFMADD231PS  X5, X2, X11          \
	VMOVQ        R10, X4              \
	VPMOVZXBW    X4, X4               \
	VINSERTI128  $1, X4, Y4, Y10

// KCHUNK adds the two 32-element groups held as quants in Y3 (group 2c, against y at y0) and Y4 (group
// 2c+1, y at y1), each weighted by its scale word (shufK4 entries s0, s1 at R12), into the int32 lanes of Y9.
// Quants are 0…31, so VPMADDUBSW pairs stay below 2·31·128.
#define KCHUNK(y0, y1, s0, s1) \
	VPMADDUBSW y0(DI), Y3, Y3    \
	VPMADDUBSW y1(DI), Y4, Y4    \
	VPSHUFB    s0(R12), Y10, Y5  \
	VPSHUFB    s1(R12), Y10, Y6  \
	VPMADDWD   Y5, Y3, Y3        \
	VPMADDWD   Y6, Y4, Y4        \
	VPADDD     Y3, Y9, Y9        \
	VPADDD     Y4, Y9, Y9

#define Q4KCHUNK(qo, y0, y1, s0, s1) \
	VMOVDQU qo(SI), Y3    \
	VPSRLW  $4, Y3, Y4    \
	VPAND   Y14, Y3, Y3   \
	VPAND   Y14, Y4, Y4   \
	KCHUNK(y0, y1, s0, s1)

// KFINISH converts the super-block's int32 lanes and accumulates them scaled by d·yd.
#define KFINISH \
	VCVTDQ2PS   Y9, Y9     \
	VFMADD231PS Y9, Y1, Y0

// KDONE leaves Σ lanes(Y0) − Σ lanes(X11) in X0.
#define KDONE \
	HSUMPS(Y0, X0, X1)      \
	VMOVHLPS  X11, X11, X1  \
	VADDPS    X1, X11, X11  \
	VMOVSHDUP X11, X1       \
	VADDSS    X1, X11, X11  \
	VSUBSS    X11, X0, X0   \
	VZEROUPPER

// func dotQ4_KQ8_KAVX2(nb int, w, a *byte) float32
//
// Reference: DotQ4_KQ8_K (per super-block: d·yd·Σ_j scale_j·Σ q·y − dmin·yd·Σ_k bsums_k·min_{k/2},
// both integer sums exact).
TEXT ·dotQ4_KQ8_KAVX2(SB), NOSPLIT, $0-28
	MOVQ    nb+0(FP), CX
	MOVQ    w+8(FP), SI
	MOVQ    a+16(FP), DI
	LEAQ    shufK4<>(SB), R12
	VMOVDQU b0F<>(SB), Y14
	VXORPS  Y0, Y0, Y0
	VXORPS  X11, X11, X11

q4kloop:
	TESTQ CX, CX
	JZ    q4kdone
	PREFETCHT0 PFD(SI)
	PREFETCHT0 PFD1(SI)
	PREFETCHT0 PFD2(SI)
	KSCALES
	VPXOR Y9, Y9, Y9
	Q4KCHUNK(16, 4, 36, 0, 32)
	Q4KCHUNK(48, 68, 100, 64, 96)
	Q4KCHUNK(80, 132, 164, 128, 160)
	Q4KCHUNK(112, 196, 228, 192, 224)
	KFINISH
	ADDQ  $144, SI
	ADDQ  $292, DI
	DECQ  CX
	JMP   q4kloop

q4kdone:
	KDONE
	MOVSS X0, ret+24(FP)
	RET

// Q5KCHUNK: as Q4KCHUNK, with the fifth bit of group 2c and 2c+1 taken from bit 0 of Y7 (qh shifted right
// once per group; a VPSRLW carries bits in from the neighbouring byte only at the top, never into bit 0
// within the 8 shifts of a super-block). Needs Y13 = 0x01 bytes.
#define Q5KCHUNK(qo, y0, y1, s0, s1) \
	VMOVDQU qo(SI), Y3    \
	VPSRLW  $4, Y3, Y4    \
	VPAND   Y14, Y3, Y3   \
	VPAND   Y14, Y4, Y4   \
	VPAND   Y13, Y7, Y5   \
	VPSLLW  $4, Y5, Y5    \
	VPOR    Y5, Y3, Y3    \
	VPSRLW  $1, Y7, Y7    \
	VPAND   Y13, Y7, Y5   \
	VPSLLW  $4, Y5, Y5    \
	VPOR    Y5, Y4, Y4    \
	VPSRLW  $1, Y7, Y7    \
	KCHUNK(y0, y1, s0, s1)

// func dotQ5_KQ8_KAVX2(nb int, w, a *byte) float32
//
// Reference: DotQ5_KQ8_K (as Q4_K with 5-bit quants).
TEXT ·dotQ5_KQ8_KAVX2(SB), NOSPLIT, $0-28
	MOVQ    nb+0(FP), CX
	MOVQ    w+8(FP), SI
	MOVQ    a+16(FP), DI
	LEAQ    shufK4<>(SB), R12
	VMOVDQU b0F<>(SB), Y14
	VMOVDQU b01<>(SB), Y13
	VXORPS  Y0, Y0, Y0
	VXORPS  X11, X11, X11

q5kloop:
	TESTQ   CX, CX
	JZ      q5kdone
	PREFETCHT0 PFD(SI)
	PREFETCHT0 PFD1(SI)
	PREFETCHT0 PFD2(SI)
	KSCALES
	VPXOR   Y9, Y9, Y9
	VMOVDQU 16(SI), Y7
	Q5KCHUNK(48, 4, 36, 0, 32)
	Q5KCHUNK(80, 68, 100, 64, 96)
	Q5KCHUNK(112, 132, 164, 128, 160)
	Q5KCHUNK(144, 196, 228, 192, 224)
	KFINISH
	ADDQ    $176, SI
	ADDQ    $292, DI
	DECQ    CX
	JMP     q5kloop

q5kdone:
	KDONE
	MOVSS X0, ret+24(FP)
	RET

// Q6DOT adds scale·Σ (q−32)·y for the 32 quants (0…63) in Q against y at yo into Y9: maddubs(q, y) −
// maddubs(32, y) in int16 (|pair| ≤ 2·32·128), weighted by the two scales of shufK6 entry so (R12).
// Needs Y13 = 0x20 bytes, Y10 = the half's 8 scales as int16 in both lanes.
#define Q6DOT(Q, yo, so) \
	VMOVDQU    yo(DI), Y7     \
	VPMADDUBSW Y7, Q, Q       \
	VPMADDUBSW Y7, Y13, Y7    \
	VPSUBW     Y7, Q, Q       \
	VPSHUFB    so(R12), Y10, Y7 \
	VPMADDWD   Y7, Q, Q       \
	VPADDD     Q, Y9, Y9

// Q6HALF handles 128 elements: ql at ql0 and ql1 (= ql0+32), qh at qh0, scales at sc, y at y0…y3.
// Quarter k takes the low (k<2) or high nibbles of ql0 / ql1 and bits 2k, 2k+1 of qh (see DotQ6_KQ8_K).
// Needs Y14 = 0x0F, Y12 = 0x03, Y11 = 0x0C, Y8 = 0x30, Y15 = 0xC0 bytes.
#define Q6HALF(ql0, ql1, qh0, sc, y0, y1, y2, y3) \
	VPMOVSXBW   sc(SI), X10      \
	VINSERTI128 $1, X10, Y10, Y10 \
	VMOVDQU     ql0(SI), Y3      \
	VMOVDQU     ql1(SI), Y4      \
	VMOVDQU     qh0(SI), Y5      \
	VPAND       Y14, Y3, Y6      \
	VPAND       Y12, Y5, Y2      \
	VPSLLW      $4, Y2, Y2       \
	VPOR        Y2, Y6, Y6       \
	Q6DOT(Y6, y0, 0)             \
	VPAND       Y14, Y4, Y6      \
	VPAND       Y11, Y5, Y2      \
	VPSLLW      $2, Y2, Y2       \
	VPOR        Y2, Y6, Y6       \
	Q6DOT(Y6, y1, 32)            \
	VPSRLW      $4, Y3, Y6       \
	VPAND       Y14, Y6, Y6      \
	VPAND       Y8, Y5, Y2       \
	VPOR        Y2, Y6, Y6       \
	Q6DOT(Y6, y2, 64)            \
	VPSRLW      $4, Y4, Y6       \
	VPAND       Y14, Y6, Y6      \
	VPAND       Y15, Y5, Y2      \
	VPSRLW      $2, Y2, Y2       \
	VPOR        Y2, Y6, Y6       \
	Q6DOT(Y6, y3, 96)

// func dotQ6_KQ8_KAVX2(nb int, w, a *byte) float32
//
// Reference: DotQ6_KQ8_K (per super-block: d·yd·Σ_g scale_g·Σ (q−32)·y, the integer sum exact).
TEXT ·dotQ6_KQ8_KAVX2(SB), NOSPLIT, $0-28
	MOVQ    nb+0(FP), CX
	MOVQ    w+8(FP), SI
	MOVQ    a+16(FP), DI
	LEAQ    shufK6<>(SB), R12
	VMOVDQU b0F<>(SB), Y14
	VMOVDQU b20<>(SB), Y13
	VMOVDQU b03<>(SB), Y12
	VMOVDQU b0C<>(SB), Y11
	VMOVDQU b30<>(SB), Y8
	VMOVDQU bC0<>(SB), Y15
	VXORPS  Y0, Y0, Y0

q6kloop:
	TESTQ        CX, CX
	JZ           q6kdone
	PREFETCHT0   PFD(SI)
	PREFETCHT0   PFD1(SI)
	PREFETCHT0   PFD2(SI)
	PREFETCHT0   PFD3(SI)
	MOVWLZX      208(SI), AX
	VMOVD        AX, X1
	VCVTPH2PS    X1, X1
	VMULSS       0(DI), X1, X1
	VBROADCASTSS X1, Y1
	VPXOR        Y9, Y9, Y9
	Q6HALF(0, 32, 128, 192, 4, 36, 68, 100)
	Q6HALF(64, 96, 160, 200, 132, 164, 196, 228)
	KFINISH
	ADDQ         $210, SI
	ADDQ         $292, DI
	DECQ         CX
	JMP          q6kloop

q6kdone:
	HSUMPS(Y0, X0, X1)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotF32AVX2(n int, w, a *byte) float32
//
// Reference: DotF32F32, with n a multiple of 32 and float32 accumulation in 32 lanes (as ggml's SIMD).
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-28
	MOVQ   n+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	SHRQ   $5, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

f32loop:
	PREFETCHT0  PFD(SI)
	PREFETCHT0  PFD1(SI)
	VMOVUPS     0(SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS 0(DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	DECQ        CX
	JNZ         f32loop

	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUMPS(Y0, X0, X1)
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// func dotF16AVX2(n int, w, a *byte) float32
//
// Reference: DotF16F16, with n a multiple of 32 and float32 accumulation in 32 lanes (as ggml's SIMD).
TEXT ·dotF16AVX2(SB), NOSPLIT, $0-28
	MOVQ   n+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	SHRQ   $5, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

f16loop:
	PREFETCHT0  PFD(SI)
	VCVTPH2PS   0(SI), Y4
	VCVTPH2PS   16(SI), Y5
	VCVTPH2PS   32(SI), Y6
	VCVTPH2PS   48(SI), Y7
	VCVTPH2PS   0(DI), Y8
	VCVTPH2PS   16(DI), Y9
	VCVTPH2PS   32(DI), Y10
	VCVTPH2PS   48(DI), Y11
	VFMADD231PS Y8, Y4, Y0
	VFMADD231PS Y9, Y5, Y1
	VFMADD231PS Y10, Y6, Y2
	VFMADD231PS Y11, Y7, Y3
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        CX
	JNZ         f16loop

	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUMPS(Y0, X0, X1)
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// func dotBF16AVX2(n int, w, a *byte) float32
//
// Reference: DotBF16BF16, with n a multiple of 32 and float32 accumulation in 32 lanes.
TEXT ·dotBF16AVX2(SB), NOSPLIT, $0-28
	MOVQ   n+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	SHRQ   $5, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

bf16loop:
	PREFETCHT0  PFD(SI)
	VPMOVZXWD   0(SI), Y4
	VPMOVZXWD   16(SI), Y5
	VPMOVZXWD   32(SI), Y6
	VPMOVZXWD   48(SI), Y7
	VPMOVZXWD   0(DI), Y8
	VPMOVZXWD   16(DI), Y9
	VPMOVZXWD   32(DI), Y10
	VPMOVZXWD   48(DI), Y11
	VPSLLD      $16, Y4, Y4
	VPSLLD      $16, Y5, Y5
	VPSLLD      $16, Y6, Y6
	VPSLLD      $16, Y7, Y7
	VPSLLD      $16, Y8, Y8
	VPSLLD      $16, Y9, Y9
	VPSLLD      $16, Y10, Y10
	VPSLLD      $16, Y11, Y11
	VFMADD231PS Y8, Y4, Y0
	VFMADD231PS Y9, Y5, Y1
	VFMADD231PS Y10, Y6, Y2
	VFMADD231PS Y11, Y7, Y3
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        CX
	JNZ         bf16loop

	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUMPS(Y0, X0, X1)
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// Q80Z: one Q8_0 block with AVX-512BW: both sides widened to 32 int16 in one VPMOVSXBW each, one
// VPMADDWD (exact for every int8 pair), 16 float lanes; the scale product through f16Table (R8).
#define Q80Z(wo, wq, ao, aq, ACC) \
	MOVWLZX      wo(SI), AX        \
	MOVWLZX      ao(DI), BX        \
	VMOVSS       (R8)(AX*4), X2    \
	VMULSS       (R8)(BX*4), X2, X2 \
	VBROADCASTSS X2, Z2            \
	VPMOVSXBW    wq(SI), Z3        \
	VPMOVSXBW    aq(DI), Z4        \
	VPMADDWD     Z4, Z3, Z3        \
	VCVTDQ2PS    Z3, Z3            \
	VFMADD231PS  Z3, Z2, ACC

// func dotQ8_0Q8_0AVX512(nb int, w, a *byte) float32
//
// Reference: DotQ8_0Q8_0 (per block s = Σ x·y exactly; sum += s·(dw·da)), 16 float lanes.
TEXT ·dotQ8_0Q8_0AVX512(SB), NOSPLIT, $0-28
	MOVQ    nb+0(FP), CX
	MOVQ    w+8(FP), SI
	MOVQ    a+16(FP), DI
	MOVQ    ·f16Table(SB), R8
	VPXORD  Z0, Z0, Z0
	VPXORD  Z1, Z1, Z1

q80zpair:
	CMPQ       CX, $2
	JLT        q80ztail
	PREFETCHT0 PFD(SI)
	Q80Z(0, 2, 0, 2, Z0)
	Q80Z(34, 36, 34, 36, Z1)
	ADDQ       $68, SI
	ADDQ       $68, DI
	SUBQ       $2, CX
	JMP        q80zpair

q80ztail:
	TESTQ CX, CX
	JZ    q80zdone
	Q80Z(0, 2, 0, 2, Z0)

q80zdone:
	VADDPS        Z1, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	HSUMPS(Y0, X0, X1)
	VZEROUPPER
	MOVSS         X0, ret+24(FP)
	RET

DATA w8<>+0(SB)/2, $8
GLOBL w8<>(SB), RODATA|NOPTR, $2

// Q40Z: one Q4_0 block with AVX-512BW: nibbles to 32 bytes in element order, widened to int16 and offset
// by −8 (exact), activations widened to int16, one VPMADDWD; the scale product through f16Table (R8).
// Needs Y14 = 0x0F bytes, Z13 = int16 8s.
#define Q40Z(wo, wq, ao, aq, ACC) \
	MOVWLZX      wo(SI), AX        \
	MOVWLZX      ao(DI), BX        \
	VMOVSS       (R8)(AX*4), X2    \
	VMULSS       (R8)(BX*4), X2, X2 \
	VBROADCASTSS X2, Z2            \
	VMOVDQU      wq(SI), X3        \
	VPSRLW       $4, X3, X4        \
	VINSERTI128  $1, X4, Y3, Y3    \
	VPAND        Y14, Y3, Y3       \
	VPMOVZXBW    Y3, Z3            \
	VPSUBW       Z13, Z3, Z3       \
	VPMOVSXBW    aq(DI), Z4        \
	VPMADDWD     Z4, Z3, Z3        \
	VCVTDQ2PS    Z3, Z3            \
	VFMADD231PS  Z3, Z2, ACC

// func dotQ4_0Q8_0AVX512(nb int, w, a *byte) float32
//
// Reference: DotQ4_0Q8_0 (per block s = Σ (q−8)·y exactly; sum += s·dw·da), 16 float lanes.
TEXT ·dotQ4_0Q8_0AVX512(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	MOVQ         ·f16Table(SB), R8
	VMOVDQU      b0F<>(SB), Y14
	VPBROADCASTW w8<>(SB), Z13
	VPXORD       Z0, Z0, Z0
	VPXORD       Z1, Z1, Z1

q40zpair:
	CMPQ       CX, $2
	JLT        q40ztail
	PREFETCHT0 PFD(SI)
	Q40Z(0, 2, 0, 2, Z0)
	Q40Z(18, 20, 34, 36, Z1)
	ADDQ       $36, SI
	ADDQ       $68, DI
	SUBQ       $2, CX
	JMP        q40zpair

q40ztail:
	TESTQ CX, CX
	JZ    q40zdone
	Q40Z(0, 2, 0, 2, Z0)

q40zdone:
	VADDPS        Z1, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	HSUMPS(Y0, X0, X1)
	VZEROUPPER
	MOVSS         X0, ret+24(FP)
	RET
