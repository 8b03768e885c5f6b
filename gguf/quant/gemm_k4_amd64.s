//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"
#include "zero_amd64.h"

// The batched Q4_K kernel (see gemm_k4.go for the layouts), AVX-512 VNNI, hand-written. Lane r of every
// vector is weight row r. Per pair of groups and column, Z0…Z7 gather the residue lanes (VPDPWSSD of the
// scale-multiplied weight pairs with the column's broadcast int16 quant pairs), added up into the pair's
// integer sum, and the pair's minimum term; then every lane does the reference's two fused multiply-adds
// (DotQ4_KQ8_KRepacked) into the column's accumulators in memory.

// KS adds the weight pair vector at wo(SI) times the activation pair at ao(R11) into ACC (T: scratch).
#define KS(wo, ao, T, ACC) \
	VMOVDQU32     wo(SI), T        \
	VPDPWSSD.BCST ao(R11), T, ACC

// KS2 is KS for two columns, at R11 and R13, into ACC and ACC2.
#define KS2(wo, ao, T, ACC, ACC2) \
	VMOVDQU32     wo(SI), T        \
	VPDPWSSD.BCST ao(R11), T, ACC  \
	VPDPWSSD.BCST ao(R13), T, ACC2

// KG adds group j's 32 elements (weights from wo(SI), activations from ao(R11)) into the residue lanes Z0…Z7.
#define KG(wo, ao) \
	KS(wo+0, ao+0, Z16, Z0) \
	KS(wo+64, ao+4, Z17, Z0) \
	KS(wo+128, ao+8, Z18, Z1) \
	KS(wo+192, ao+12, Z19, Z1) \
	KS(wo+256, ao+16, Z20, Z2) \
	KS(wo+320, ao+20, Z21, Z2) \
	KS(wo+384, ao+24, Z22, Z3) \
	KS(wo+448, ao+28, Z23, Z3) \
	KS(wo+512, ao+32, Z16, Z4) \
	KS(wo+576, ao+36, Z17, Z4) \
	KS(wo+640, ao+40, Z18, Z5) \
	KS(wo+704, ao+44, Z19, Z5) \
	KS(wo+768, ao+48, Z20, Z6) \
	KS(wo+832, ao+52, Z21, Z6) \
	KS(wo+896, ao+56, Z22, Z7) \
	KS(wo+960, ao+60, Z23, Z7)

// KG2 is KG for two columns, into Z0…Z7 and Z8…Z15.
#define KG2(wo, ao) \
	KS2(wo+0, ao+0, Z16, Z0, Z8) \
	KS2(wo+64, ao+4, Z17, Z0, Z8) \
	KS2(wo+128, ao+8, Z18, Z1, Z9) \
	KS2(wo+192, ao+12, Z19, Z1, Z9) \
	KS2(wo+256, ao+16, Z20, Z2, Z10) \
	KS2(wo+320, ao+20, Z21, Z2, Z10) \
	KS2(wo+384, ao+24, Z22, Z3, Z11) \
	KS2(wo+448, ao+28, Z23, Z3, Z11) \
	KS2(wo+512, ao+32, Z16, Z4, Z12) \
	KS2(wo+576, ao+36, Z17, Z4, Z12) \
	KS2(wo+640, ao+40, Z18, Z5, Z13) \
	KS2(wo+704, ao+44, Z19, Z5, Z13) \
	KS2(wo+768, ao+48, Z20, Z6, Z14) \
	KS2(wo+832, ao+52, Z21, Z6, Z14) \
	KS2(wo+896, ao+56, Z22, Z7, Z15) \
	KS2(wo+960, ao+60, Z23, Z7, Z15)

// KTREE adds the residue lanes A…H into A (exact). 
#define KTREE(A, B, C, D, E, F, G, H) \
	VPADDD B, A, A \
	VPADDD D, C, C \
	VPADDD F, E, E \
	VPADDD H, G, G \
	VPADDD C, A, A \
	VPADDD G, E, E \
	VPADDD E, A, A

// KACC fuses float32(Z) (int32 lanes) times D into the accumulator at off(R12): acc = fma(float32(Z), D, acc).
#define KACC(Z, D, off) \
	VCVTDQ2PS   Z, Z          \
	VMOVUPS     off(R12), Z31 \
	VFMADD231PS D, Z, Z31     \
	VMOVUPS     Z31, off(R12)

// KPAIR1 adds pair p (groups 2p, 2p+1) of one column (activations at R11) into its accumulators at 0(R12)
// (the sums) and 64(R12) (the minimum terms): the pair's integer sums from the residue lanes Z0…Z7, the
// minimum term from the packed mins and the bsum pairs; d·yd in Z28.
#define KPAIR1(p) \
	VPXORD      Z0, Z0, Z0 \
	VPXORD      Z1, Z1, Z1 \
	VPXORD      Z2, Z2, Z2 \
	VPXORD      Z3, Z3, Z3 \
	VPXORD      Z4, Z4, Z4 \
	VPXORD      Z5, Z5, Z5 \
	VPXORD      Z6, Z6, Z6 \
	VPXORD      Z7, Z7, Z7 \
	VPXORD      Z8, Z8, Z8 \
	KG(2048*p, 320+128*p) \
	KG(2048*p+1024, 384+128*p) \
	KTREE(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7) \
	KACC(Z0, Z28, 0) \
	KS(8320+64*p, 296+4*p, Z16, Z8) \
	VMULPS.BCST 0(R11), Z25, Z30 \
	KACC(Z8, Z30, 64)

// KPAIR2 is KPAIR1 for two columns (activations at R11 and R13, accumulators at 0(R12) and 128(R12), d·yd
// in Z28 and Z29).
#define KPAIR2(p) \
	ZERO16 \
	VPXORD      Z26, Z26, Z26 \
	VPXORD      Z27, Z27, Z27 \
	KG2(2048*p, 320+128*p) \
	KG2(2048*p+1024, 384+128*p) \
	KTREE(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7) \
	KTREE(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15) \
	KACC(Z0, Z28, 0) \
	KACC(Z8, Z29, 128) \
	KS2(8320+64*p, 296+4*p, Z16, Z26, Z27) \
	VMULPS.BCST 0(R11), Z25, Z30 \
	KACC(Z26, Z30, 64) \
	VMULPS.BCST 0(R13), Z25, Z30 \
	KACC(Z27, Z30, 192)

// func gemmQ4K16(nb int, packed, a *byte, aStride, cols int, acc *byte)
TEXT ·gemmQ4K16(SB), NOSPLIT, $0-48
	MOVQ nb+0(FP), CX
	MOVQ packed+8(FP), SI
	MOVQ a+16(FP), DI
	MOVQ aStride+24(FP), R8
	MOVQ cols+32(FP), R9
	MOVQ acc+40(FP), R10

k4block:
	VMOVUPS const_q4kPackD(SI), Z24
	VMOVUPS const_q4kPackDmin(SI), Z25
	MOVQ    DI, R11
	MOVQ    R10, R12
	MOVQ    R9, DX
	CMPQ    DX, $2
	JLT     k4one

k4two:
	LEAQ        (R11)(R8*1), R13
	VMULPS.BCST 0(R11), Z24, Z28
	VMULPS.BCST 0(R13), Z24, Z29
	KPAIR2(0)
	KPAIR2(1)
	KPAIR2(2)
	KPAIR2(3)
	LEAQ        (R13)(R8*1), R11
	ADDQ        $256, R12
	SUBQ        $2, DX
	CMPQ        DX, $2
	JGE         k4two
	TESTQ       DX, DX
	JZ          k4next

k4one:
	VMULPS.BCST 0(R11), Z24, Z28
	KPAIR1(0)
	KPAIR1(1)
	KPAIR1(2)
	KPAIR1(3)

k4next:
	ADDQ $const_q4kPackBlock, SI
	ADDQ $const_q8kwBlock, DI
	DECQ CX
	JNZ  k4block
	VZEROUPPER
	RET

// func gemmQ4K16Finish(cols int, acc *byte, out *float32, outStride, mask int)
TEXT ·gemmQ4K16Finish(SB), NOSPLIT, $0-40
	MOVQ  cols+0(FP), CX
	MOVQ  acc+8(FP), SI
	MOVQ  out+16(FP), DI
	MOVQ  outStride+24(FP), DX
	SHLQ  $2, DX
	MOVQ  mask+32(FP), AX
	KMOVW AX, K1

k4fin:
	VMOVUPS 0(SI), Z0
	VSUBPS  64(SI), Z0, Z0
	VMOVUPS Z0, K1, (DI)
	ADDQ    $128, SI
	ADDQ    DX, DI
	DECQ    CX
	JNZ     k4fin
	VZEROUPPER
	RET

// Word permutation for the packer: output word 2k, 2k+1 (k = 2l+h) takes elements 16h+l and 16h+l+8.
DATA k4Perm<>+0(SB)/8, $0x0018001000080000
DATA k4Perm<>+8(SB)/8, $0x0019001100090001
DATA k4Perm<>+16(SB)/8, $0x001a0012000a0002
DATA k4Perm<>+24(SB)/8, $0x001b0013000b0003
DATA k4Perm<>+32(SB)/8, $0x001c0014000c0004
DATA k4Perm<>+40(SB)/8, $0x001d0015000d0005
DATA k4Perm<>+48(SB)/8, $0x001e0016000e0006
DATA k4Perm<>+56(SB)/8, $0x001f0017000f0007
GLOBL k4Perm<>(SB), RODATA|NOPTR, $64

// Scatter offsets: dword k of a group goes to k·GemmRows·4 bytes.
DATA k4Scat<>+0(SB)/8, $0x0000004000000000
DATA k4Scat<>+8(SB)/8, $0x000000c000000080
DATA k4Scat<>+16(SB)/8, $0x0000014000000100
DATA k4Scat<>+24(SB)/8, $0x000001c000000180
DATA k4Scat<>+32(SB)/8, $0x0000024000000200
DATA k4Scat<>+40(SB)/8, $0x000002c000000280
DATA k4Scat<>+48(SB)/8, $0x0000034000000300
DATA k4Scat<>+56(SB)/8, $0x000003c000000380
GLOBL k4Scat<>(SB), RODATA|NOPTR, $64

DATA k4Nib<>+0(SB)/2, $0x000f
GLOBL k4Nib<>(SB), RODATA|NOPTR, $2

// K4PACK writes group j's 16 weight pairs (words of Z, multiplied by scale j) to lane DI of the packed block.
#define K4PACK(Z, j) \
	VPERMW       Z, Z31, Z                \
	VPBROADCASTW (2*j)(BX), Z4            \
	VPMULLW      Z4, Z, Z                 \
	KXNORW       K1, K1, K1               \
	VPSCATTERDD  Z, K1, (j*1024)(DI)(Z30*1)

// func packQ4KLane(dst, qs *byte, scales *[8]uint16)
//
// Lane dst of a packed super-block (packQ4_KRow) from the 128 quant bytes at qs.
TEXT ·packQ4KLane(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         qs+8(FP), SI
	MOVQ         scales+16(FP), BX
	VMOVDQU64    k4Perm<>(SB), Z31
	VMOVDQU32    k4Scat<>(SB), Z30
	VPBROADCASTW k4Nib<>(SB), Z29
	VPMOVZXBW    0(SI), Z0
	VPANDD       Z29, Z0, Z1
	VPSRLW       $4, Z0, Z2
	K4PACK(Z1, 0)
	K4PACK(Z2, 1)
	VPMOVZXBW    32(SI), Z0
	VPANDD       Z29, Z0, Z1
	VPSRLW       $4, Z0, Z2
	K4PACK(Z1, 2)
	K4PACK(Z2, 3)
	VPMOVZXBW    64(SI), Z0
	VPANDD       Z29, Z0, Z1
	VPSRLW       $4, Z0, Z2
	K4PACK(Z1, 4)
	K4PACK(Z2, 5)
	VPMOVZXBW    96(SI), Z0
	VPANDD       Z29, Z0, Z1
	VPSRLW       $4, Z0, Z2
	K4PACK(Z1, 6)
	K4PACK(Z2, 7)
	VZEROUPPER
	RET

// func q8kwQuants(dst, q *byte)
//
// The int16 quant pairs of a Q8_KW block (q8kwDerive) from its 256 Q8_K quants at q.
TEXT ·q8kwQuants(SB), NOSPLIT, $0-16
	MOVQ      dst+0(FP), DI
	MOVQ      q+8(FP), SI
	VMOVDQU64 k4Perm<>(SB), Z31
	VPMOVSXBW 0(SI), Z0
	VPMOVSXBW 32(SI), Z1
	VPMOVSXBW 64(SI), Z2
	VPMOVSXBW 96(SI), Z3
	VPMOVSXBW 128(SI), Z4
	VPMOVSXBW 160(SI), Z5
	VPMOVSXBW 192(SI), Z6
	VPMOVSXBW 224(SI), Z7
	VPERMW    Z0, Z31, Z0
	VPERMW    Z1, Z31, Z1
	VPERMW    Z2, Z31, Z2
	VPERMW    Z3, Z31, Z3
	VPERMW    Z4, Z31, Z4
	VPERMW    Z5, Z31, Z5
	VPERMW    Z6, Z31, Z6
	VPERMW    Z7, Z31, Z7
	VMOVDQU64 Z0, 0(DI)
	VMOVDQU64 Z1, 64(DI)
	VMOVDQU64 Z2, 128(DI)
	VMOVDQU64 Z3, 192(DI)
	VMOVDQU64 Z4, 256(DI)
	VMOVDQU64 Z5, 320(DI)
	VMOVDQU64 Z6, 384(DI)
	VMOVDQU64 Z7, 448(DI)
	VZEROUPPER
	RET
