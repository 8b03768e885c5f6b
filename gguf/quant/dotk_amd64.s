//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"
#include "dot_amd64.h"

// K-quant dot products in the reference's arithmetic (dot_kquants.go), AVX2 + FMA + F16C, hand-written.
//
// The vec_dot kernels keep the reference build's AVX2 integer lanes: VPMADDUBSW of the unsigned quants with
// the activations, then VPMADDWD with the group's scale, so that dword m of a 32-byte vector sums its bytes
// 4m…4m+3; the lanes are fused into eight float32 lanes per super-block and added as hsum_float_8. All
// integer sums are exact (|int16 pair| ≤ 2·63·128); the float operations are the reference's, lane by lane.
//
// The repacked Q4_K kernel adds its integer sums up per pair of groups, in any lanes: it shuffles both sides
// within each 16-byte half (VPSHUFB with kShuf: bytes 0, 8, 1, 9, …, 7, 15), interleaves two groups' words
// (VPUNPCKL/HWD) and multiplies them by the groups' scales with VPMADDWD (KMADD); the repacked Q2_K kernel
// sums the vec_dot lanes per half super-block.

#define PFD 4096

DATA kShuf<>+0(SB)/8, $0x0b030a0209010800
DATA kShuf<>+8(SB)/8, $0x0f070e060d050c04
DATA kShuf<>+16(SB)/8, $0x0b030a0209010800
DATA kShuf<>+24(SB)/8, $0x0f070e060d050c04
GLOBL kShuf<>(SB), RODATA|NOPTR, $32

DATA kNib<>+0(SB)/4, $0x0f0f0f0f
GLOBL kNib<>(SB), RODATA|NOPTR, $4

DATA kBit4<>+0(SB)/4, $0x10101010
GLOBL kBit4<>(SB), RODATA|NOPTR, $4

DATA kBits45<>+0(SB)/4, $0x30303030
GLOBL kBits45<>(SB), RODATA|NOPTR, $4

DATA k03<>+0(SB)/4, $0x03030303
GLOBL k03<>(SB), RODATA|NOPTR, $4

DATA k04<>+0(SB)/4, $0x04040404
GLOBL k04<>(SB), RODATA|NOPTR, $4

DATA k20<>+0(SB)/4, $0x20202020
GLOBL k20<>(SB), RODATA|NOPTR, $4

// kK4ScB broadcasts, per group g (32 bytes each), the int16 word g of each 16-byte half (VPSHUFB).
DATA kK4ScB<>+0(SB)/8, $0x0100010001000100
DATA kK4ScB<>+8(SB)/8, $0x0100010001000100
DATA kK4ScB<>+16(SB)/8, $0x0100010001000100
DATA kK4ScB<>+24(SB)/8, $0x0100010001000100
DATA kK4ScB<>+32(SB)/8, $0x0302030203020302
DATA kK4ScB<>+40(SB)/8, $0x0302030203020302
DATA kK4ScB<>+48(SB)/8, $0x0302030203020302
DATA kK4ScB<>+56(SB)/8, $0x0302030203020302
DATA kK4ScB<>+64(SB)/8, $0x0504050405040504
DATA kK4ScB<>+72(SB)/8, $0x0504050405040504
DATA kK4ScB<>+80(SB)/8, $0x0504050405040504
DATA kK4ScB<>+88(SB)/8, $0x0504050405040504
DATA kK4ScB<>+96(SB)/8, $0x0706070607060706
DATA kK4ScB<>+104(SB)/8, $0x0706070607060706
DATA kK4ScB<>+112(SB)/8, $0x0706070607060706
DATA kK4ScB<>+120(SB)/8, $0x0706070607060706
DATA kK4ScB<>+128(SB)/8, $0x0908090809080908
DATA kK4ScB<>+136(SB)/8, $0x0908090809080908
DATA kK4ScB<>+144(SB)/8, $0x0908090809080908
DATA kK4ScB<>+152(SB)/8, $0x0908090809080908
DATA kK4ScB<>+160(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA kK4ScB<>+168(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA kK4ScB<>+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA kK4ScB<>+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA kK4ScB<>+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA kK4ScB<>+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA kK4ScB<>+208(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA kK4ScB<>+216(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA kK4ScB<>+224(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA kK4ScB<>+232(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA kK4ScB<>+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA kK4ScB<>+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL kK4ScB<>(SB), RODATA|NOPTR, $256

// kQ6ScW spreads the Q6_K scales of quarter k of half h (groups g = 8h+2k and g+1) over the 16 bytes of a
// pattern p = 4h+k for VPSHUFB: g in bytes 0…7, g+1 in 8…15.
DATA kQ6ScW<>+0(SB)/8, $0x0000000000000000
DATA kQ6ScW<>+8(SB)/8, $0x0101010101010101
DATA kQ6ScW<>+16(SB)/8, $0x0202020202020202
DATA kQ6ScW<>+24(SB)/8, $0x0303030303030303
DATA kQ6ScW<>+32(SB)/8, $0x0404040404040404
DATA kQ6ScW<>+40(SB)/8, $0x0505050505050505
DATA kQ6ScW<>+48(SB)/8, $0x0606060606060606
DATA kQ6ScW<>+56(SB)/8, $0x0707070707070707
DATA kQ6ScW<>+64(SB)/8, $0x0808080808080808
DATA kQ6ScW<>+72(SB)/8, $0x0909090909090909
DATA kQ6ScW<>+80(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA kQ6ScW<>+88(SB)/8, $0x0b0b0b0b0b0b0b0b
DATA kQ6ScW<>+96(SB)/8, $0x0c0c0c0c0c0c0c0c
DATA kQ6ScW<>+104(SB)/8, $0x0d0d0d0d0d0d0d0d
DATA kQ6ScW<>+112(SB)/8, $0x0e0e0e0e0e0e0e0e
DATA kQ6ScW<>+120(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL kQ6ScW<>(SB), RODATA|NOPTR, $128

// K4SC reads the 12 packed scale bytes at 4(SI) (scaleMinK4): the eight 6-bit scales as int16 words in both
// halves of Y13, and the minimum terms of the group pairs (min_2i·gsum_2i + min_2i+1·gsum_2i+1, gsum_j the sum
// of the bsums of group j at 260(DI)) as int32 dword i of M. Clobbers AX, BX, DX, R8, R9, R10, X4, X5.
#define K4SC(M) \
	MOVL        4(SI), R8        \
	MOVL        8(SI), R9        \
	MOVL        12(SI), R10      \
	MOVL        R10, AX          \
	SHRL        $4, AX           \
	ANDL        $0x0f0f0f0f, AX  \
	MOVL        R9, BX           \
	SHRL        $6, BX           \
	ANDL        $0x03030303, BX  \
	SHLL        $4, BX           \
	ORL         BX, AX           \
	MOVL        R9, DX           \
	ANDL        $0x3f3f3f3f, DX  \
	ANDL        $0x0f0f0f0f, R10 \
	MOVL        R8, BX           \
	SHRL        $6, BX           \
	ANDL        $0x03030303, BX  \
	SHLL        $4, BX           \
	ORL         BX, R10          \
	ANDL        $0x3f3f3f3f, R8  \
	SHLQ        $32, AX          \
	ORQ         DX, AX           \
	SHLQ        $32, R10         \
	ORQ         R8, R10          \
	VMOVQ       R10, X13         \
	VPMOVZXBW   X13, X13         \
	VINSERTI128 $1, X13, Y13, Y13 \
	VMOVQ       AX, X4           \
	VPMOVZXBW   X4, X4           \
	VMOVDQU     260(DI), X5      \
	VPHADDW     276(DI), X5, X5  \
	VPMADDWD    X4, X5, M

// K4SCALES is K4SC, leaving Σ_k bsums_k·min_{k/2} (the pairs' terms added) as an int32 in AX.
#define K4SCALES \
	K4SC(X5)                     \
	VPSHUFD     $0x4e, X5, X4    \
	VPADDD      X4, X5, X5       \
	VPSHUFD     $0xb1, X5, X4    \
	VPADDD      X4, X5, X5       \
	VMOVD       X5, AX

// KMADD interleaves the int16 residue words of two groups (Y1, Y2; word r of a 16-byte half is residue r),
// multiplies them by the scale pair in dword i of each half of Y13 and adds them to the residue
// accumulators Y11 (residues 0…3) and Y12 (4…7). Clobbers Y5…Y7.
#define KMADD(i) \
	VPSHUFD    $(i*0x55), Y13, Y5 \
	VPUNPCKLWD Y2, Y1, Y6       \
	VPUNPCKHWD Y2, Y1, Y7       \
	VPMADDWD   Y5, Y6, Y6       \
	VPMADDWD   Y5, Y7, Y7       \
	VPADDD     Y6, Y11, Y11     \
	VPADDD     Y7, Y12, Y12

// KPAIR adds groups 2i and 2i+1 (quants in Y1 and Y2, already shuffled; activations at ya(DI), ya+32(DI))
// to the residue accumulators Y11 (residues 0…3) and Y12 (4…7); the scale pair is dword i of Y13.
#define KPAIR(ya, i) \
	VMOVDQU    ya(DI), Y3       \
	VPSHUFB    Y14, Y3, Y3      \
	VMOVDQU    ya+32(DI), Y4    \
	VPSHUFB    Y14, Y4, Y4      \
	VPMADDUBSW Y3, Y1, Y1       \
	VPMADDUBSW Y4, Y2, Y2       \
	KMADD(i)

// Q4KPAIR loads the 32 quant bytes of groups 2i, 2i+1 at qo(SI), splits the nibbles and shuffles them.
#define Q4KPAIR(qo, ya, i) \
	VMOVDQU qo(SI), Y1    \
	VPSRLW  $4, Y1, Y2    \
	VPAND   Y15, Y1, Y1   \
	VPAND   Y15, Y2, Y2   \
	VPSHUFB Y14, Y1, Y1   \
	VPSHUFB Y14, Y2, Y2   \
	KPAIR(ya, i)

// KLPAIR adds groups 2i and 2i+1 (unsigned quants in Y1 and Y2, in element order; activations at ya(DI),
// ya+32(DI)) into the reference build's lanes Y11 as ggml_vec_dot_q4_K_q8_K's AVX2 loop does: VPMADDUBSW, then
// VPMADDWD with the group's scale broadcast (kK4ScB from the words of Y13), so that dword m sums the bytes
// 4m…4m+3 of each group. Clobbers Y5, Y6.
#define KLPAIR(ya, i) \
	VPMADDUBSW ya(DI), Y1, Y1                 \
	VPMADDUBSW ya+32(DI), Y2, Y2              \
	VPSHUFB    kK4ScB<>+(64*i)(SB), Y13, Y5    \
	VPSHUFB    kK4ScB<>+(64*i+32)(SB), Y13, Y6 \
	VPMADDWD   Y5, Y1, Y1                     \
	VPMADDWD   Y6, Y2, Y2                     \
	VPADDD     Y1, Y11, Y11                   \
	VPADDD     Y2, Y11, Y11

// Q4KLPAIR loads the 32 quant bytes of groups 2i, 2i+1 at qo(SI), splits the nibbles and adds them (KLPAIR).
#define Q4KLPAIR(qo, ya, i) \
	VMOVDQU qo(SI), Y1  \
	VPSRLW  $4, Y1, Y2  \
	VPAND   Y15, Y1, Y1 \
	VPAND   Y15, Y2, Y2 \
	KLPAIR(ya, i)

// KLFMA fuses the lanes Y11 into the float lanes Y0 with d = f16(0(SI))·yd: Y0 = fma(d, float32(Y11), Y0).
// Clobbers Y1, Y2.
#define KLFMA \
	VCVTDQ2PS    Y11, Y1      \
	MOVWLZX      0(SI), BX    \
	VMOVD        BX, X2       \
	VCVTPH2PS    X2, X2       \
	VMULSS       0(DI), X2, X2 \
	VBROADCASTSS X2, Y2       \
	VFMADD231PS  Y2, Y1, Y0

// KDMIN leaves f16(2(SI))·yd in X2.
#define KDMIN \
	MOVWLZX   2(SI), BX     \
	VMOVD     BX, X2        \
	VCVTPH2PS X2, X2        \
	VMULSS    0(DI), X2, X2

// func dotQ4_KQ8_KAVX2(nb int, w, a *byte, aStride int) float32
//
// Reference: DotQ4_KQ8_K, the activation's Q8_K blocks aStride bytes apart: the lanes of KLPAIR fused into Y0
// per super-block; the four pair minimum terms (K4SC) fused into X10 with −dmin·yd; hsum_float_8(Y0) plus
// (X10₀+X10₂) + (X10₁+X10₃) at the end.
TEXT ·dotQ4_KQ8_KAVX2(SB), NOSPLIT, $0-36
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	MOVQ         aStride+24(FP), R11
	VPBROADCASTD kNib<>(SB), Y15
	VXORPS       Y0, Y0, Y0
	VXORPS       X10, X10, X10

q4kloop:
	PREFETCHT0   PFD(SI)
	PREFETCHT0   PFD+64(SI)
	PREFETCHT0   PFD+128(SI)
	K4SC(X9)
	VPXOR        Y11, Y11, Y11
	Q4KLPAIR(16, 4, 0)
	Q4KLPAIR(48, 68, 1)
	Q4KLPAIR(80, 132, 2)
	Q4KLPAIR(112, 196, 3)
	KLFMA
	KDMIN
	VBROADCASTSS X2, X2
	VCVTDQ2PS    X9, X9
	VFNMADD231PS X2, X9, X10
	ADDQ         $144, SI
	ADDQ         R11, DI
	DECQ         CX
	JNZ          q4kloop
	HSUM8
	VMOVHLPS     X10, X10, X2
	VADDPS       X2, X10, X10
	VMOVSHDUP    X10, X2
	VADDSS       X2, X10, X10
	VADDSS       X10, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+32(FP)
	RET

// KPSUM leaves float32 of the sum of the residue lanes Y11, Y12 in X1 (every sum exact). Clobbers X2.
#define KPSUM \
	VPADDD       Y12, Y11, Y1 \
	VEXTRACTI128 $1, Y1, X2   \
	VPADDD       X2, X1, X1   \
	VPSHUFD      $0x4e, X1, X2 \
	VPADDD       X2, X1, X1   \
	VPSHUFD      $0xb1, X1, X2 \
	VPADDD       X2, X1, X1   \
	VCVTDQ2PS    X1, X1

// Q4KRPAIR adds pair i (groups 2i, 2i+1) into X0 as the repacked kernels do: acc = fma(float32(s), d·yd, acc)
// with s the pair's whole integer sum; d·yd in X8.
#define Q4KRPAIR(qo, ya, i) \
	VPXOR       Y11, Y11, Y11 \
	VPXOR       Y12, Y12, Y12 \
	Q4KPAIR(qo, ya, i)        \
	KPSUM                     \
	VFMADD231SS X8, X1, X0

// func dotQ4_KQ8_KRepackedAVX2(nb int, w, a *byte, aStride int) float32
//
// Reference: DotQ4_KQ8_KRepacked, the activation's Q8_K blocks aStride bytes apart. Per pair of groups the
// residue lanes of dotQ4_KQ8_KAVX2 are added up (exactly) into the pair's sum; the pairs' minimum terms are
// left by K4SC in X9 and fused into X10 after the super-block's four pairs (the two sums are independent).
TEXT ·dotQ4_KQ8_KRepackedAVX2(SB), NOSPLIT, $0-36
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	MOVQ         aStride+24(FP), R11
	VPBROADCASTD kNib<>(SB), Y15
	VMOVDQU      kShuf<>(SB), Y14
	VXORPS       X0, X0, X0
	VXORPS       X10, X10, X10

q4krloop:
	PREFETCHT0  PFD(SI)
	PREFETCHT0  PFD+64(SI)
	PREFETCHT0  PFD+128(SI)
	K4SC(X9)
	MOVWLZX     0(SI), BX
	VMOVD       BX, X8
	VCVTPH2PS   X8, X8
	VMULSS      0(DI), X8, X8
	Q4KRPAIR(16, 4, 0)
	Q4KRPAIR(48, 68, 1)
	Q4KRPAIR(80, 132, 2)
	Q4KRPAIR(112, 196, 3)
	MOVWLZX     2(SI), BX
	VMOVD       BX, X2
	VCVTPH2PS   X2, X2
	VMULSS      0(DI), X2, X2
	VCVTDQ2PS   X9, X9
	VFMADD231SS X2, X9, X10
	VMOVSHDUP   X9, X1
	VFMADD231SS X2, X1, X10
	VMOVHLPS    X9, X9, X1
	VFMADD231SS X2, X1, X10
	VPSHUFD     $0xff, X9, X1
	VFMADD231SS X2, X1, X10
	ADDQ        $144, SI
	ADDQ        R11, DI
	DECQ        CX
	JNZ         q4krloop
	VSUBSS      X10, X0, X0
	VZEROUPPER
	MOVSS       X0, ret+32(FP)
	RET

// Q5KPAIR is Q4KLPAIR for Q5_K: the fifth bits of groups 2i and 2i+1 (bits 2i and 2i+1 of the qh bytes in
// Y8) are moved to bit 4 by sh0 $n0 and sh1 $n1 (word shifts; the mask Y9 = 0x10 keeps only each byte's own
// bit) and added to the nibbles.
#define Q5KPAIR(qo, ya, i, sh0, n0, sh1, n1) \
	VMOVDQU qo(SI), Y1  \
	VPSRLW  $4, Y1, Y2  \
	VPAND   Y15, Y1, Y1 \
	VPAND   Y15, Y2, Y2 \
	sh0     $n0, Y8, Y3 \
	VPAND   Y9, Y3, Y3  \
	VPOR    Y3, Y1, Y1  \
	sh1     $n1, Y8, Y3 \
	VPAND   Y9, Y3, Y3  \
	VPOR    Y3, Y2, Y2  \
	KLPAIR(ya, i)

// func dotQ5_KQ8_KAVX2(nb int, w, a *byte) float32
//
// Reference: DotQ5_KQ8_K. The lanes as dotQ4_KQ8_KAVX2's with q = nibble + 16·(fifth bit) in 0…31 (|int16
// pair| ≤ 2·31·128); the super-block's whole minimum term (K4SCALES) fused into the scalar X10 with
// −dmin·yd; hsum_float_8(Y0) + X10 at the end.
TEXT ·dotQ5_KQ8_KAVX2(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	VPBROADCASTD kNib<>(SB), Y15
	VPBROADCASTD kBit4<>(SB), Y9
	VXORPS       Y0, Y0, Y0
	VXORPS       X10, X10, X10

q5kloop:
	PREFETCHT0   PFD(SI)
	PREFETCHT0   PFD+64(SI)
	PREFETCHT0   PFD+128(SI)
	K4SCALES
	VPXOR        Y11, Y11, Y11
	VMOVDQU      16(SI), Y8
	Q5KPAIR(48, 4, 0, VPSLLW, 4, VPSLLW, 3)
	Q5KPAIR(80, 68, 1, VPSLLW, 2, VPSLLW, 1)
	Q5KPAIR(112, 132, 2, VPSRLW, 0, VPSRLW, 1)
	Q5KPAIR(144, 196, 3, VPSRLW, 2, VPSRLW, 3)
	KLFMA
	KDMIN
	VCVTSI2SSL   AX, X1, X1
	VFNMADD231SS X2, X1, X10
	ADDQ         $176, SI
	ADDQ         $292, DI
	DECQ         CX
	JNZ          q5kloop
	HSUM8
	VADDSS       X10, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// Q3KY multiplies the quants q (q+c, unsigned, shuffled) by the activations at ya(DI) and subtracts c·y,
// with c = 4 in every byte of Y8 (Q3_K), leaving int16 words Σ q·y over residue pairs in q. Clobbers Y3.
#define Q3KY(ya, q) \
	VMOVDQU    ya(DI), Y3  \
	VPSHUFB    Y14, Y3, Y3 \
	VPMADDUBSW Y3, q, q    \
	VPMADDUBSW Y3, Y8, Y3  \
	VPSUBW     Y3, q, q

// Q6KQ adds quarter k (32 elements) of half h into the lanes Y11: the quants (low nibbles from LO, shifted
// right by 4 with hi4 = 1; high bits from the qh bytes Y7 moved to bits 4-5 by sh $n, the mask Y9 = 0x30
// keeping each byte's own) times the activations at 4+128h+32k(DI) (VPMADDUBSW: the quants unsigned, ≤ 63),
// times the quarter's two group scales (kQ6ScW, VPMADDWD): dword m sums bytes 4m…4m+3. Clobbers Y1, Y3, Y4.
#define Q6KQ(LO, hi4, sh, n, h, k) \
	VPSRLW      $(4*hi4), LO, Y1          \
	VPAND       Y15, Y1, Y1               \
	sh          $n, Y7, Y3                \
	VPAND       Y9, Y3, Y3                \
	VPOR        Y3, Y1, Y1                \
	VPMADDUBSW  (4+128*h+32*k)(DI), Y1, Y1 \
	VPSHUFB     kQ6ScW<>+(16*(4*h+k))(SB), X13, X4 \
	VPMOVSXBW   X4, Y4                    \
	VPMADDWD    Y4, Y1, Y1                \
	VPADDD      Y1, Y11, Y11

// Q6KHALF adds half h (128 elements: ql at 64h, qh at 128+32h) into the lanes Y11.
#define Q6KHALF(h) \
	VMOVDQU (64*h)(SI), Y5      \
	VMOVDQU (64*h+32)(SI), Y6   \
	VMOVDQU (128+32*h)(SI), Y7  \
	Q6KQ(Y5, 0, VPSLLW, 4, h, 0) \
	Q6KQ(Y6, 0, VPSLLW, 2, h, 1) \
	Q6KQ(Y5, 1, VPSRLW, 0, h, 2) \
	Q6KQ(Y6, 1, VPSRLW, 2, h, 3)

// func dotQ6_KQ8_KAVX2(nb int, w, a *byte) float32
//
// Reference: DotQ6_KQ8_K, the reference build's own AVX2 arithmetic: per super-block the eight lanes of
// VPMADDUBSW/VPMADDWD (dword m of every 32-element quarter sums its bytes 4m…4m+3, times the group's scale),
// minus 32·(scales·bsums) in pairs of groups (VPMADDWD of the sign-extended scales with the bsums, ·32), fused
// into eight float32 lanes with d·yd, and hsum_float_8 at the end. VPMADDUBSW cannot saturate: |q·y pair| ≤
// 2·63·128.
TEXT ·dotQ6_KQ8_KAVX2(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	VPBROADCASTD kNib<>(SB), Y15
	VPBROADCASTD kBits45<>(SB), Y9
	VXORPS       Y0, Y0, Y0

q6kloop:
	PREFETCHT0   PFD(SI)
	PREFETCHT0   PFD+64(SI)
	PREFETCHT0   PFD+128(SI)
	PREFETCHT0   PFD+192(SI)
	VMOVDQU      192(SI), X13
	VPXOR        Y11, Y11, Y11
	Q6KHALF(0)
	Q6KHALF(1)
	VPMOVSXBW    X13, Y4
	VPMADDWD     260(DI), Y4, Y4
	VPSLLD       $5, Y4, Y4
	VPSUBD       Y4, Y11, Y11
	VCVTDQ2PS    Y11, Y1
	MOVWLZX      208(SI), BX
	VMOVD        BX, X2
	VCVTPH2PS    X2, X2
	VMULSS       0(DI), X2, X2
	VBROADCASTSS X2, Y2
	VFMADD231PS  Y2, Y1, Y0
	ADDQ         $210, SI
	ADDQ         $292, DI
	DECQ         CX
	JNZ          q6kloop
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X0, X1, X1
	VMOVHLPS     X1, X1, X2
	VADDPS       X2, X1, X1
	VMOVSHDUP    X1, X2
	VADDSS       X2, X1, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// Q3KQ leaves quarter j's q+4 = low2 | 4·hbit in dst: low2 = bits 2j, 2j+1 of the qs bytes in Y4 (VPSRLW
// $n, n = 2j), hbit = bit 4h+j of the hmask bytes in Y10 moved to bit 2 by sh $hn (word shifts; the masks
// Y15 = 3 and Y8 = 4 keep each byte's own bits). Clobbers Y3.
#define Q3KQ(n, sh, hn, dst) \
	VPSRLW $n, Y4, dst     \
	VPAND  Y15, dst, dst   \
	sh     $hn, Y10, Y3    \
	VPAND  Y8, Y3, Y3      \
	VPOR   Y3, dst, dst

// Q3KV adds quarter j of half h into the lanes Y11 as ggml_vec_dot_q3_K_q8_K's AVX2 loop: VPMADDUBSW of the
// unsigned q+4 with the activations at 4+128h+32j(DI), less VPMADDUBSW of 4 (Y8) with them (the same int16
// words as the reference's low-bits product less its high-bit product), times the two groups' scales
// (kQ6ScW from the scale bytes in X13, sign-extended): dword m sums bytes 4m…4m+3. Clobbers Y1, Y3, Y5.
#define Q3KV(n, sh, hn, h, j) \
	Q3KQ(n, sh, hn, Y1)                          \
	VPMADDUBSW (4+128*h+32*j)(DI), Y1, Y1        \
	VPMADDUBSW (4+128*h+32*j)(DI), Y8, Y3        \
	VPSUBW     Y3, Y1, Y1                        \
	VPSHUFB    kQ6ScW<>+(16*(4*h+j))(SB), X13, X5 \
	VPMOVSXBW  X5, Y5                            \
	VPMADDWD   Y5, Y1, Y1                        \
	VPADDD     Y1, Y11, Y11

// func dotQ3_KQ8_KAVX2(nb int, w, a *byte) float32
//
// Reference: DotQ3_KQ8_K, the reference build's AVX2 arithmetic. Quarter j of half h (elements
// 128h+32j…+31: groups 8h+2j and 8h+2j+1 in its two 16-byte halves) has q = low2 + 4·hbit − 4 with low2 =
// bits 2j, 2j+1 of qs[32h…] and hbit = bit 4h+j of hmask; the scales are decoded as in ggml (four 32-bit
// words of 6-bit scales) and less 32. The lanes are fused into Y0 with d·yd per super-block; hsum_float_8.
TEXT ·dotQ3_KQ8_KAVX2(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	VPBROADCASTD k03<>(SB), Y15
	VPBROADCASTD k04<>(SB), Y8
	VPBROADCASTD k20<>(SB), X9
	VXORPS       Y0, Y0, Y0

q3kloop:
	PREFETCHT0   PFD(SI)
	PREFETCHT0   PFD+64(SI)
	MOVL         96(SI), R8
	MOVL         100(SI), R9
	MOVL         104(SI), R10
	MOVL         R8, AX
	ANDL         $0x0f0f0f0f, AX
	MOVL         R10, BX
	ANDL         $0x03030303, BX
	SHLL         $4, BX
	ORL          BX, AX
	MOVL         R9, DX
	ANDL         $0x0f0f0f0f, DX
	MOVL         R10, BX
	SHRL         $2, BX
	ANDL         $0x03030303, BX
	SHLL         $4, BX
	ORL          BX, DX
	SHLQ         $32, DX
	ORQ          DX, AX
	SHRL         $4, R8
	ANDL         $0x0f0f0f0f, R8
	MOVL         R10, BX
	SHRL         $4, BX
	ANDL         $0x03030303, BX
	SHLL         $4, BX
	ORL          BX, R8
	SHRL         $4, R9
	ANDL         $0x0f0f0f0f, R9
	SHRL         $6, R10
	ANDL         $0x03030303, R10
	SHLL         $4, R10
	ORL          R10, R9
	SHLQ         $32, R9
	ORQ          R9, R8
	VMOVQ        AX, X13
	VPINSRQ      $1, R8, X13, X13
	VPSUBB       X9, X13, X13
	VPXOR        Y11, Y11, Y11
	VMOVDQU      0(SI), Y10
	VMOVDQU      32(SI), Y4
	Q3KV(0, VPSLLW, 2, 0, 0)
	Q3KV(2, VPSLLW, 1, 0, 1)
	Q3KV(4, VPSRLW, 0, 0, 2)
	Q3KV(6, VPSRLW, 1, 0, 3)
	VMOVDQU      64(SI), Y4
	Q3KV(0, VPSRLW, 2, 1, 0)
	Q3KV(2, VPSRLW, 3, 1, 1)
	Q3KV(4, VPSRLW, 4, 1, 2)
	Q3KV(6, VPSRLW, 5, 1, 3)
	VCVTDQ2PS    Y11, Y1
	MOVWLZX      108(SI), BX
	VMOVD        BX, X2
	VCVTPH2PS    X2, X2
	VMULSS       0(DI), X2, X2
	VBROADCASTSS X2, Y2
	VFMADD231PS  Y2, Y1, Y0
	ADDQ         $110, SI
	ADDQ         $292, DI
	DECQ         CX
	JNZ          q3kloop
	HSUM8
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// HSUMD leaves the sum of the eight int32 of y in r. Clobbers x and t (x is y's low half).
#define HSUMD(y, x, t, r) \
	VEXTRACTI128 $1, y, t \
	VPADDD       t, x, x  \
	VPSHUFD      $0x4e, x, t \
	VPADDD       t, x, x  \
	VPSHUFD      $0xb1, x, t \
	VPADDD       t, x, x  \
	VMOVD        x, r

// kQ2Sc zero-extends, per vector v = 4j+s of a Q2_K super-block (32 bytes each), the scale byte of group
// 8j+2s into the words of the low 16-byte half and that of group 8j+2s+1 into the high half (VPSHUFB).
DATA kQ2Sc<>+0(SB)/8, $0x8000800080008000
DATA kQ2Sc<>+8(SB)/8, $0x8000800080008000
DATA kQ2Sc<>+16(SB)/8, $0x8001800180018001
DATA kQ2Sc<>+24(SB)/8, $0x8001800180018001
DATA kQ2Sc<>+32(SB)/8, $0x8002800280028002
DATA kQ2Sc<>+40(SB)/8, $0x8002800280028002
DATA kQ2Sc<>+48(SB)/8, $0x8003800380038003
DATA kQ2Sc<>+56(SB)/8, $0x8003800380038003
DATA kQ2Sc<>+64(SB)/8, $0x8004800480048004
DATA kQ2Sc<>+72(SB)/8, $0x8004800480048004
DATA kQ2Sc<>+80(SB)/8, $0x8005800580058005
DATA kQ2Sc<>+88(SB)/8, $0x8005800580058005
DATA kQ2Sc<>+96(SB)/8, $0x8006800680068006
DATA kQ2Sc<>+104(SB)/8, $0x8006800680068006
DATA kQ2Sc<>+112(SB)/8, $0x8007800780078007
DATA kQ2Sc<>+120(SB)/8, $0x8007800780078007
DATA kQ2Sc<>+128(SB)/8, $0x8008800880088008
DATA kQ2Sc<>+136(SB)/8, $0x8008800880088008
DATA kQ2Sc<>+144(SB)/8, $0x8009800980098009
DATA kQ2Sc<>+152(SB)/8, $0x8009800980098009
DATA kQ2Sc<>+160(SB)/8, $0x800a800a800a800a
DATA kQ2Sc<>+168(SB)/8, $0x800a800a800a800a
DATA kQ2Sc<>+176(SB)/8, $0x800b800b800b800b
DATA kQ2Sc<>+184(SB)/8, $0x800b800b800b800b
DATA kQ2Sc<>+192(SB)/8, $0x800c800c800c800c
DATA kQ2Sc<>+200(SB)/8, $0x800c800c800c800c
DATA kQ2Sc<>+208(SB)/8, $0x800d800d800d800d
DATA kQ2Sc<>+216(SB)/8, $0x800d800d800d800d
DATA kQ2Sc<>+224(SB)/8, $0x800e800e800e800e
DATA kQ2Sc<>+232(SB)/8, $0x800e800e800e800e
DATA kQ2Sc<>+240(SB)/8, $0x800f800f800f800f
DATA kQ2Sc<>+248(SB)/8, $0x800f800f800f800f
GLOBL kQ2Sc<>(SB), RODATA|NOPTR, $256

// Q2KV adds vector v = 4j+s of a Q2_K super-block (the 2-bit quants at bits 2s of the half's qs bytes in Y4)
// into the lanes Y11 as ggml_vec_dot_q2_K_q8_K's AVX2 loop: VPMADDUBSW with the activations, VPMADDWD with the
// two groups' scales (kQ2Sc from the scale bytes in both halves of Y13): dword m sums bytes 4m…4m+3.
// Clobbers Y1, Y5.
#define Q2KV(v, n) \
	VPSRLW     $n, Y4, Y1                  \
	VPAND      Y15, Y1, Y1                 \
	VPMADDUBSW (4+32*(v))(DI), Y1, Y1      \
	VPSHUFB    kQ2Sc<>+(32*(v))(SB), Y13, Y5 \
	VPMADDWD   Y5, Y1, Y1                  \
	VPADDD     Y1, Y11, Y11

// Q2KHALF adds half j (four vectors) into the lanes Y11, its qs bytes loaded into Y4.
#define Q2KHALF(j) \
	VMOVDQU (16+32*j)(SI), Y4 \
	Q2KV(4*j, 0)              \
	Q2KV(4*j+1, 2)            \
	Q2KV(4*j+2, 4)            \
	Q2KV(4*j+3, 6)

// Q2KSC loads the super-block's scales (low nibbles of the 16 bytes at 0(SI), in both halves of Y13) and its
// eight pair minimum terms (VPMADDWD of the high nibbles with the bsums at 260(DI)) as int32 in Y3.
// Clobbers X2.
#define Q2KSC \
	VMOVDQU        0(SI), X2          \
	VPSRLW         $4, X2, X3         \
	VPAND          X9, X3, X3         \
	VPMOVZXBW      X3, Y3             \
	VPMADDWD       260(DI), Y3, Y3    \
	VPAND          X9, X2, X2         \
	VINSERTI128    $1, X2, Y2, Y13

// func dotQ2_KQ8_KAVX2(nb int, w, a *byte) float32
//
// Reference: DotQ2_KQ8_K, the reference build's AVX2 arithmetic: the pair minimum terms fused into the float
// lanes Y0 with −dmin·yd, then the integer lanes with d·yd; hsum_float_8 at the end.
TEXT ·dotQ2_KQ8_KAVX2(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	VPBROADCASTD k03<>(SB), Y15
	VPBROADCASTD kNib<>(SB), X9
	VXORPS       Y0, Y0, Y0

q2kloop:
	PREFETCHT0   PFD(SI)
	PREFETCHT0   PFD+64(SI)
	Q2KSC
	MOVWLZX      82(SI), BX
	VMOVD        BX, X2
	VCVTPH2PS    X2, X2
	VMULSS       0(DI), X2, X2
	VBROADCASTSS X2, Y2
	VCVTDQ2PS    Y3, Y3
	VFNMADD231PS Y2, Y3, Y0
	VPXOR        Y11, Y11, Y11
	Q2KHALF(0)
	Q2KHALF(1)
	VCVTDQ2PS    Y11, Y1
	MOVWLZX      80(SI), BX
	VMOVD        BX, X2
	VCVTPH2PS    X2, X2
	VMULSS       0(DI), X2, X2
	VBROADCASTSS X2, Y2
	VFMADD231PS  Y2, Y1, Y0
	ADDQ         $84, SI
	ADDQ         $292, DI
	DECQ         CX
	JNZ          q2kloop
	HSUM8
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// Q2KRHALF adds half j's whole integer sum into X0 (fma with d·yd in X8) and its minimum term (dwords 4j…4j+3
// of Y3, M its 128-bit half) into X10 (fma with dmin·yd in X7). Clobbers X1, X4, X5, Y11, R8.
#define Q2KRHALF(j, M) \
	VPXOR       Y11, Y11, Y11  \
	Q2KHALF(j)                 \
	HSUMD(Y11, X11, X4, R8)    \
	VCVTSI2SSL  R8, X1, X1     \
	VFMADD231SS X8, X1, X0     \
	VPSHUFD     $0x4e, M, X5   \
	VPADDD      X5, M, X5      \
	VPSHUFD     $0xb1, X5, X4  \
	VPADDD      X4, X5, X5     \
	VCVTDQ2PS   X5, X5         \
	VFMADD231SS X7, X5, X10

// func dotQ2_KQ8_KRepackedAVX2(nb int, w, a *byte) float32
//
// Reference: DotQ2_KQ8_KRepacked: per half super-block the exact integer sum fused into X0 with d·yd and the
// exact minimum term into X10 with dmin·yd; X0 − X10 at the end.
TEXT ·dotQ2_KQ8_KRepackedAVX2(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	VPBROADCASTD k03<>(SB), Y15
	VPBROADCASTD kNib<>(SB), X9
	VXORPS       X0, X0, X0
	VXORPS       X10, X10, X10

q2krloop:
	PREFETCHT0   PFD(SI)
	PREFETCHT0   PFD+64(SI)
	Q2KSC
	VEXTRACTI128 $1, Y3, X6
	MOVWLZX      80(SI), BX
	VMOVD        BX, X8
	VCVTPH2PS    X8, X8
	VMULSS       0(DI), X8, X8
	MOVWLZX      82(SI), BX
	VMOVD        BX, X7
	VCVTPH2PS    X7, X7
	VMULSS       0(DI), X7, X7
	Q2KRHALF(0, X3)
	Q2KRHALF(1, X6)
	ADDQ         $84, SI
	ADDQ         $292, DI
	DECQ         CX
	JNZ          q2krloop
	VSUBSS       X10, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// VPERMB index of the VNNI Q4_K kernel (gemm_k4.go, "qr"): byte 4d+m of a 64-byte vector takes element
// d+8m of the first 32-byte group (d < 8) or element d−8+8m of the second: each dword then holds the four
// elements of one residue of one group.
DATA k4PermB<>+0(SB)/8, $0x1911090118100800
DATA k4PermB<>+8(SB)/8, $0x1b130b031a120a02
DATA k4PermB<>+16(SB)/8, $0x1d150d051c140c04
DATA k4PermB<>+24(SB)/8, $0x1f170f071e160e06
DATA k4PermB<>+32(SB)/8, $0x3931292138302820
DATA k4PermB<>+40(SB)/8, $0x3b332b233a322a22
DATA k4PermB<>+48(SB)/8, $0x3d352d253c342c24
DATA k4PermB<>+56(SB)/8, $0x3f372f273e362e26
GLOBL k4PermB<>(SB), RODATA|NOPTR, $64

// VPERMD indices of the scale vectors: vector v of a super-block holds groups 4k+h and 4k+h+2 (v = 2k+h),
// so its dwords 0…7 take scale 4k+h and 8…15 scale 4k+h+2.
DATA k4ScIdx<>+0(SB)/8, $0x0000000000000000
DATA k4ScIdx<>+8(SB)/8, $0x0000000000000000
DATA k4ScIdx<>+16(SB)/8, $0x0000000000000000
DATA k4ScIdx<>+24(SB)/8, $0x0000000000000000
DATA k4ScIdx<>+32(SB)/8, $0x0000000200000002
DATA k4ScIdx<>+40(SB)/8, $0x0000000200000002
DATA k4ScIdx<>+48(SB)/8, $0x0000000200000002
DATA k4ScIdx<>+56(SB)/8, $0x0000000200000002
DATA k4ScIdx<>+64(SB)/8, $0x0000000100000001
DATA k4ScIdx<>+72(SB)/8, $0x0000000100000001
DATA k4ScIdx<>+80(SB)/8, $0x0000000100000001
DATA k4ScIdx<>+88(SB)/8, $0x0000000100000001
DATA k4ScIdx<>+96(SB)/8, $0x0000000300000003
DATA k4ScIdx<>+104(SB)/8, $0x0000000300000003
DATA k4ScIdx<>+112(SB)/8, $0x0000000300000003
DATA k4ScIdx<>+120(SB)/8, $0x0000000300000003
DATA k4ScIdx<>+128(SB)/8, $0x0000000400000004
DATA k4ScIdx<>+136(SB)/8, $0x0000000400000004
DATA k4ScIdx<>+144(SB)/8, $0x0000000400000004
DATA k4ScIdx<>+152(SB)/8, $0x0000000400000004
DATA k4ScIdx<>+160(SB)/8, $0x0000000600000006
DATA k4ScIdx<>+168(SB)/8, $0x0000000600000006
DATA k4ScIdx<>+176(SB)/8, $0x0000000600000006
DATA k4ScIdx<>+184(SB)/8, $0x0000000600000006
DATA k4ScIdx<>+192(SB)/8, $0x0000000500000005
DATA k4ScIdx<>+200(SB)/8, $0x0000000500000005
DATA k4ScIdx<>+208(SB)/8, $0x0000000500000005
DATA k4ScIdx<>+216(SB)/8, $0x0000000500000005
DATA k4ScIdx<>+224(SB)/8, $0x0000000700000007
DATA k4ScIdx<>+232(SB)/8, $0x0000000700000007
DATA k4ScIdx<>+240(SB)/8, $0x0000000700000007
DATA k4ScIdx<>+248(SB)/8, $0x0000000700000007
GLOBL k4ScIdx<>(SB), RODATA|NOPTR, $256

// K4VEC adds vector v (= 2k+h) of a super-block into the residue lanes Z11: the nibbles (already in Z, one
// group per 256 bits) times the permuted activation quants at 4+64v(DI) give four-element residue sums per dword
// (VPDPBUSD, exact, |sum| ≤ 7680), which VPDPWSSD multiplies by their group's scale (SC) into Z11.
#define K4VEC(Z, v, SC) \
	VPERMB   Z, Z14, Z            \
	VPXORD   Z27, Z27, Z27        \
	VPDPBUSD (4+64*v)(DI), Z, Z27 \
	VPDPWSSD SC, Z27, Z11

// K4RHALVES adds the two halves of the residue lanes Z11 (pair 2k in dwords 0…7, pair 2k+1 in 8…15) into
// X0 in that order: acc = fma(float32(pair sum), d·yd (X8), acc). Clobbers X1…X4.
#define K4RHALVES \
	VEXTRACTI64X4 $1, Z11, Y2 \
	VPHADDD      Y2, Y11, Y3  \
	VPHADDD      Y3, Y3, Y3   \
	VEXTRACTI128 $1, Y3, X4   \
	VPADDD       X4, X3, X3   \
	VCVTDQ2PS    X3, X3       \
	VFMADD231SS  X8, X3, X0   \
	VMOVSHDUP    X3, X1       \
	VFMADD231SS  X8, X1, X0

// func dotQ4_KQ8_KWRepackedVNNI(nb int, w, a *byte, aStride int) float32
//
// Reference: DotQ4_KQ8_KRepacked, the activations in Q8_KW blocks with permuted quants (q8kwPermute) aStride
// bytes apart. The weights' nibbles are permuted with one VPERMB per 64 bytes (k4PermB) so that each dword
// holds the four elements of one residue of one group, as the activations; vectors v = 2k+h hold
// groups 4k+h (dwords 0…7) and 4k+h+2 (8…15): after vectors 2k and 2k+1 the low halves of the lanes sum
// pair 2k and the high halves pair 2k+1. The pairs' minimum terms are fused into X10 after the super-block.
// Needs AVX-512 VNNI and VBMI.
TEXT ·dotQ4_KQ8_KWRepackedVNNI(SB), NOSPLIT, $0-36
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	MOVQ         aStride+24(FP), R11
	VPBROADCASTD kNib<>(SB), Z15
	VMOVDQU64    k4PermB<>(SB), Z14
	VMOVDQU64    k4ScIdx<>+0(SB), Z16
	VMOVDQU64    k4ScIdx<>+64(SB), Z17
	VMOVDQU64    k4ScIdx<>+128(SB), Z18
	VMOVDQU64    k4ScIdx<>+192(SB), Z19
	VXORPS       X0, X0, X0
	VXORPS       X10, X10, X10

q4kwrloop:
	PREFETCHT0  PFD(SI)
	PREFETCHT0  PFD+64(SI)
	PREFETCHT0  PFD+128(SI)
	K4SC(X9)
	VPMOVZXWD   X13, Y20
	VPERMD      Z20, Z16, Z21
	VPERMD      Z20, Z17, Z22
	VPERMD      Z20, Z18, Z23
	VPERMD      Z20, Z19, Z24
	MOVWLZX     0(SI), BX
	VMOVD       BX, X8
	VCVTPH2PS   X8, X8
	VMULSS      0(DI), X8, X8
	VPXORD      Z11, Z11, Z11
	VMOVDQU64   16(SI), Z25
	VPSRLW      $4, Z25, Z26
	VPANDQ      Z15, Z25, Z25
	VPANDQ      Z15, Z26, Z26
	K4VEC(Z25, 0, Z21)
	K4VEC(Z26, 1, Z22)
	K4RHALVES
	VPXORD      Z11, Z11, Z11
	VMOVDQU64   80(SI), Z25
	VPSRLW      $4, Z25, Z26
	VPANDQ      Z15, Z25, Z25
	VPANDQ      Z15, Z26, Z26
	K4VEC(Z25, 2, Z23)
	K4VEC(Z26, 3, Z24)
	K4RHALVES
	MOVWLZX     2(SI), BX
	VMOVD       BX, X2
	VCVTPH2PS   X2, X2
	VMULSS      0(DI), X2, X2
	VCVTDQ2PS   X9, X9
	VFMADD231SS X2, X9, X10
	VMOVSHDUP   X9, X1
	VFMADD231SS X2, X1, X10
	VMOVHLPS    X9, X9, X1
	VFMADD231SS X2, X1, X10
	VPSHUFD     $0xff, X9, X1
	VFMADD231SS X2, X1, X10
	ADDQ        $144, SI
	ADDQ        R11, DI
	DECQ        CX
	JNZ         q4kwrloop
	VSUBSS      X10, X0, X0
	VZEROUPPER
	MOVSS       X0, ret+32(FP)
	RET

// func q8kwPermuted(q *byte)
//
// Permutes the 256 quants of a Q8_KW block at q in place into the decode kernel's order: vector v = 2k+h
// holds groups 4k+h and 4k+h+2, permuted with k4PermB as the kernel permutes the weights. All are loaded
// before any is stored.
TEXT ·q8kwPermuted(SB), NOSPLIT, $0-8
	MOVQ         q+0(FP), SI
	VMOVDQU64    k4PermB<>(SB), Z14
	VMOVDQU      0(SI), Y0
	VINSERTI64X4 $1, 64(SI), Z0, Z0
	VMOVDQU      32(SI), Y1
	VINSERTI64X4 $1, 96(SI), Z1, Z1
	VMOVDQU      128(SI), Y2
	VINSERTI64X4 $1, 192(SI), Z2, Z2
	VMOVDQU      160(SI), Y3
	VINSERTI64X4 $1, 224(SI), Z3, Z3
	VPERMB       Z0, Z14, Z0
	VMOVDQU64    Z0, 0(SI)
	VPERMB       Z1, Z14, Z1
	VMOVDQU64    Z1, 64(SI)
	VPERMB       Z2, Z14, Z2
	VMOVDQU64    Z2, 128(SI)
	VPERMB       Z3, Z14, Z3
	VMOVDQU64    Z3, 192(SI)
	VZEROUPPER
	RET
