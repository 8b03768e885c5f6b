//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"
#include "zero_amd64.h"

// The one-column kernel on stored IQ4_XSx16 groups (gemm_stored_iq4.go) with AVX2 only: 8 rows a 256-bit
// register, lane r of every vector row 8·half + r.

DATA ix4yNib<>+0(SB)/4, $0x0f0f0f0f
GLOBL ix4yNib<>(SB), RODATA|NOPTR, $4

// ix4yValues is kvaluesIQ4 as signed bytes.
DATA ix4yValues<>+0(SB)/4, $0xbfad9881
DATA ix4yValues<>+4(SB)/4, $0xf6eaddcf
DATA ix4yValues<>+8(SB)/4, $0x26190d01
DATA ix4yValues<>+12(SB)/4, $0x71594535
GLOBL ix4yValues<>(SB), RODATA|NOPTR, $16

// IX4YL adds the products of the four values in each dword of W (signed) with the activation dword at A
// times the rows' scale pairs (Y13) into lane YL, as the reference's mul_add_epi8 and madd with the scale:
// |w| times the activation with w's sign (VPMADDUBSW: pairs of at most 2·127·127, the activations being
// −127…127), then the pairs times the scale (VPMADDWD).
#define IX4YL(A, W, YL) \
	VPBROADCASTD A, Y11     \
	VPSIGNB      W, Y11, Y11 \
	VPABSB       W, Y12      \
	VPMADDUBSW   Y11, Y12, Y11 \
	VPMADDWD     Y13, Y11, Y11 \
	VPADDD       Y11, YL, YL

// IX4YD adds dword j of sub-block k of the half's rows (quants at R10, activations at DI) into lanes j (YL)
// and j+4 (YH).
#define IX4YD(k, j, YL, YH) \
	VMOVDQU const_ix4xQs+256*k+64*j(R10), Y8 \
	VPAND   Y14, Y8, Y9                      \
	VPSRLW  $4, Y8, Y10                      \
	VPAND   Y14, Y10, Y10                    \
	VPSHUFB Y9, Y15, Y9                      \
	VPSHUFB Y10, Y15, Y10                    \
	IX4YL(4+32*k+4*j(DI), Y9, YL)            \
	IX4YL(4+32*k+16+4*j(DI), Y10, YH)

// IX4YSUB adds sub-block k into the eight lanes Y0…Y7, its scales (at R11) in both words of each row's dword.
#define IX4YSUB(k) \
	VPMOVSXBD const_ix4xScales+16*k(R11), Y13 \
	VPSLLD    $16, Y13, Y12                   \
	VPBLENDW  $0xaa, Y12, Y13, Y13            \
	IX4YD(k, 0, Y0, Y4)                       \
	IX4YD(k, 1, Y1, Y5)                       \
	IX4YD(k, 2, Y2, Y6)                       \
	IX4YD(k, 3, Y3, Y7)

// IX4YF fuses lane Y into its float32 accumulator at off(SP) with d·yd (Y8).
#define IX4YF(Y, off) \
	VCVTDQ2PS   Y, Y          \
	VFMADD213PS off(SP), Y8, Y \
	VMOVUPS     Y, off(SP)

// func gemv8IQ4xAVX2(nb int, p, a *byte, half int, out *float32)
//
// Reference: DotIQ4_XSQ8_K for rows 8·half … 8·half+7 of one stored group against one Q8_KL column (its Q8_K
// blocks q8klBlock bytes apart): per super-block the eight integer lanes (Y0…Y7), each fused into its float32
// accumulator (on the stack) with d·yd, then the accumulators added as hsum_float_8 into out[0…7].
TEXT ·gemv8IQ4xAVX2(SB), NOSPLIT, $256-40
	MOVQ            nb+0(FP), CX
	MOVQ            p+8(FP), SI
	MOVQ            a+16(FP), DI
	MOVQ            half+24(FP), AX
	MOVQ            AX, BX
	SHLQ            $5, BX
	LEAQ            (SI)(BX*1), R10 // quants: 32 bytes a half
	LEAQ            (SI)(AX*8), R11 // scales: 8
	SHLQ            $4, AX
	LEAQ            (SI)(AX*1), R12 // d: 16
	VPBROADCASTD    ix4yNib<>(SB), Y14
	VBROADCASTI128  ix4yValues<>(SB), Y15
	VXORPS          Y0, Y0, Y0
	VMOVUPS         Y0, 0(SP)
	VMOVUPS         Y0, 32(SP)
	VMOVUPS         Y0, 64(SP)
	VMOVUPS         Y0, 96(SP)
	VMOVUPS         Y0, 128(SP)
	VMOVUPS         Y0, 160(SP)
	VMOVUPS         Y0, 192(SP)
	VMOVUPS         Y0, 224(SP)

ix4yloop:
	ZERO8Y(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	IX4YSUB(0)
	IX4YSUB(1)
	IX4YSUB(2)
	IX4YSUB(3)
	IX4YSUB(4)
	IX4YSUB(5)
	IX4YSUB(6)
	IX4YSUB(7)
	VCVTPH2PS    (R12), Y8
	VBROADCASTSS (DI), Y9
	VMULPS       Y9, Y8, Y8
	IX4YF(Y0, 0)
	IX4YF(Y1, 32)
	IX4YF(Y2, 64)
	IX4YF(Y3, 96)
	IX4YF(Y4, 128)
	IX4YF(Y5, 160)
	IX4YF(Y6, 192)
	IX4YF(Y7, 224)
	ADDQ         $const_ix4xBlock, R10
	ADDQ         $const_ix4xBlock, R11
	ADDQ         $const_ix4xBlock, R12
	ADDQ         $const_q8klBlock, DI
	DECQ         CX
	JNZ          ix4yloop

	// hsum_float_8: lanes m and m+4, then (0+2) + (1+3)
	VMOVUPS 0(SP), Y0
	VADDPS  128(SP), Y0, Y0
	VMOVUPS 32(SP), Y1
	VADDPS  160(SP), Y1, Y1
	VMOVUPS 64(SP), Y2
	VADDPS  192(SP), Y2, Y2
	VMOVUPS 96(SP), Y3
	VADDPS  224(SP), Y3, Y3
	VADDPS  Y2, Y0, Y0
	VADDPS  Y3, Y1, Y1
	VADDPS  Y1, Y0, Y0
	MOVQ    out+32(FP), DI
	VMOVUPS Y0, (DI)
	VZEROUPPER
	RET
