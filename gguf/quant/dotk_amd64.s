//go:build amd64 && !noasm

#include "textflag.h"

// K-quant dot products in the reference's arithmetic (dot_kquants.go), AVX2 + FMA + F16C, hand-written.
//
// The reference keeps eight integer lanes per super-block, lane l summing scale·q·y over the elements e ≡ l
// (mod 8). VPMADDUBSW adds neighbouring bytes, so both sides are first shuffled within each 16-byte half
// (VPSHUFB with kShuf: bytes 0, 8, 1, 9, …, 7, 15) so that neighbours are elements e and e+8 of the same
// residue: the int16 word r of a half is then residue r. Two groups' words are interleaved (VPUNPCKL/HWD)
// and multiplied by the groups' scales with VPMADDWD, which leaves int32 residues 0…3 (and 4…7) in both
// halves of a register; the halves are added at the end of the super-block. All integer sums are exact
// (|int16 pair| ≤ 2·63·128); the float operations are the reference's, lane by lane.

#define PFD 4096

DATA kShuf<>+0(SB)/8, $0x0b030a0209010800
DATA kShuf<>+8(SB)/8, $0x0f070e060d050c04
DATA kShuf<>+16(SB)/8, $0x0b030a0209010800
DATA kShuf<>+24(SB)/8, $0x0f070e060d050c04
GLOBL kShuf<>(SB), RODATA|NOPTR, $32

DATA kNib<>+0(SB)/4, $0x0f0f0f0f
GLOBL kNib<>(SB), RODATA|NOPTR, $4

// K4SCALES reads the 12 packed scale bytes at 4(SI) (scaleMinK4): the eight 6-bit scales as int16 words in
// both halves of Y13, and leaves Σ_k bsums_k·min_{k/2} (the bsums at 260(DI)) as an int32 in AX.
// Clobbers BX, DX, R8, R9, R10, X4, X5.
#define K4SCALES \
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
	VPMADDWD    X4, X5, X5       \
	VPSHUFD     $0x4e, X5, X4    \
	VPADDD      X4, X5, X5       \
	VPSHUFD     $0xb1, X5, X4    \
	VPADDD      X4, X5, X5       \
	VMOVD       X5, AX

// KPAIR adds groups 2i and 2i+1 (quants in Y1 and Y2, already shuffled; activations at ya(DI), ya+32(DI))
// to the residue accumulators Y11 (residues 0…3) and Y12 (4…7); the scale pair is dword i of Y13.
#define KPAIR(ya, i) \
	VMOVDQU    ya(DI), Y3       \
	VPSHUFB    Y14, Y3, Y3      \
	VMOVDQU    ya+32(DI), Y4    \
	VPSHUFB    Y14, Y4, Y4      \
	VPMADDUBSW Y3, Y1, Y1       \
	VPMADDUBSW Y4, Y2, Y2       \
	VPSHUFD    $(i*0x55), Y13, Y5 \
	VPUNPCKLWD Y2, Y1, Y6       \
	VPUNPCKHWD Y2, Y1, Y7       \
	VPMADDWD   Y5, Y6, Y6       \
	VPMADDWD   Y5, Y7, Y7       \
	VPADDD     Y6, Y11, Y11     \
	VPADDD     Y7, Y12, Y12

// Q4KPAIR loads the 32 quant bytes of groups 2i, 2i+1 at qo(SI), splits the nibbles and shuffles them.
#define Q4KPAIR(qo, ya, i) \
	VMOVDQU qo(SI), Y1    \
	VPSRLW  $4, Y1, Y2    \
	VPAND   Y15, Y1, Y1   \
	VPAND   Y15, Y2, Y2   \
	VPSHUFB Y14, Y1, Y1   \
	VPSHUFB Y14, Y2, Y2   \
	KPAIR(ya, i)

// KFINISH adds the super-block's residues (Y11, Y12) into the float lanes Y0 as the reference does:
// sums[l] += float32(d·float32(lane l)), d = f16(doff(SI))·yd. Clobbers Y1…Y3.
#define KFINISH(doff) \
	VPERM2I128   $0x20, Y12, Y11, Y1 \
	VPERM2I128   $0x31, Y12, Y11, Y2 \
	VPADDD       Y2, Y1, Y1          \
	VCVTDQ2PS    Y1, Y1              \
	MOVWLZX      doff(SI), BX        \
	VMOVD        BX, X2              \
	VCVTPH2PS    X2, X2              \
	VMULSS       0(DI), X2, X2       \
	VBROADCASTSS X2, Y2              \
	VMULPS       Y2, Y1, Y1          \
	VADDPS       Y1, Y0, Y0

// KMINS subtracts float32(float32(f16(2(SI))·yd)·float32(AX)) from the scalar sum X10. Clobbers X1, X2.
#define KMINS \
	MOVWLZX   2(SI), BX     \
	VMOVD     BX, X2        \
	VCVTPH2PS X2, X2        \
	VMULSS    0(DI), X2, X2 \
	VCVTSI2SSL AX, X1, X1    \
	VMULSS    X1, X2, X2    \
	VSUBSS    X2, X10, X10

// KDONE leaves sum + lane 0 + lane 1 + … + lane 7 (X10, then Y0) in X0, added in that order.
#define KDONE \
	VADDSS       X0, X10, X10 \
	VMOVSHDUP    X0, X1       \
	VADDSS       X1, X10, X10 \
	VMOVHLPS     X0, X0, X1   \
	VADDSS       X1, X10, X10 \
	VPSHUFD      $0xff, X0, X1 \
	VADDSS       X1, X10, X10 \
	VEXTRACTF128 $1, Y0, X0   \
	VADDSS       X0, X10, X10 \
	VMOVSHDUP    X0, X1       \
	VADDSS       X1, X10, X10 \
	VMOVHLPS     X0, X0, X1   \
	VADDSS       X1, X10, X10 \
	VPSHUFD      $0xff, X0, X1 \
	VADDSS       X1, X10, X0  \
	VZEROUPPER

// func dotQ4_KQ8_KAVX2(nb int, w, a *byte, aStride int) float32
//
// Reference: DotQ4_KQ8_K, the activation's Q8_K blocks aStride bytes apart.
TEXT ·dotQ4_KQ8_KAVX2(SB), NOSPLIT, $0-36
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	MOVQ         aStride+24(FP), R11
	VPBROADCASTD kNib<>(SB), Y15
	VMOVDQU      kShuf<>(SB), Y14
	VXORPS       Y0, Y0, Y0
	VXORPS       X10, X10, X10

q4kloop:
	PREFETCHT0 PFD(SI)
	PREFETCHT0 PFD+64(SI)
	PREFETCHT0 PFD+128(SI)
	K4SCALES
	VPXOR      Y11, Y11, Y11
	VPXOR      Y12, Y12, Y12
	Q4KPAIR(16, 4, 0)
	Q4KPAIR(48, 68, 1)
	Q4KPAIR(80, 132, 2)
	Q4KPAIR(112, 196, 3)
	KFINISH(0)
	KMINS
	ADDQ       $144, SI
	ADDQ       R11, DI
	DECQ       CX
	JNZ        q4kloop
	KDONE
	MOVSS      X0, ret+32(FP)
	RET
