//go:build amd64 && !noasm

#include "textflag.h"
#include "dot_amd64.h"
#include "mxfp4_amd64.h"

// IQ4_NL, IQ4_XS and MXFP4 dot products in their references' arithmetic (DotIQ4_NLQ8_0, DotIQ4_XSQ8_K,
// DotMXFP4Q8_0), AVX2 + FMA + F16C, hand-written.
//
// The IQ4 kernels take the reference build's eight lanes (see each). MXFP4's reference, ggml's generic dot
// product, takes one exact integer sum per block of 32 and adds float32(scale·float32(sum)) to one float32
// running sum, in order: its kernel computes eight such sums at a time (IQ4SUMS8: IQ4SUB, then a VPHADDD tree
// that leaves them in order in the eight dwords of a register), their scales and products in eight float32
// lanes (the same roundings: each lane is one of the reference's float32 products), and then adds the eight
// terms to the running sum one by one (ADD8).
//
// The quants are 4-bit indices into kvaluesIQ4 (−127…113) or kvaluesMXFP4 (−12…12): VPSHUFB looks them up,
// and since VPMADDUBSW needs one unsigned operand the signs move to the quant side (VPSIGNB q, y; VPABSB y):
// |y| ≤ 128 is an unsigned byte and ±q stays within −127…127, so every pair sum |y·q + y'·q'| ≤ 2·128·127
// fits an int16.

#define PFD 4096

DATA kIQ4<>+0(SB)/8, $0xf6eaddcfbfad9881 // −127, −104, −83, −65, −49, −35, −22, −10
DATA kIQ4<>+8(SB)/8, $0x7159453526190d01 // 1, 13, 25, 38, 53, 69, 89, 113
DATA kIQ4<>+16(SB)/8, $0xf6eaddcfbfad9881
DATA kIQ4<>+24(SB)/8, $0x7159453526190d01
GLOBL kIQ4<>(SB), RODATA|NOPTR, $32

// kNibShift shifts the upper 16 bytes right by 4 (the high nibbles: elements 16…31).
DATA kNibShift<>+0(SB)/8, $0
DATA kNibShift<>+8(SB)/8, $0
DATA kNibShift<>+16(SB)/8, $4
DATA kNibShift<>+24(SB)/8, $4
GLOBL kNibShift<>(SB), RODATA|NOPTR, $32

DATA kI0F<>+0(SB)/4, $0x0f0f0f0f
GLOBL kI0F<>(SB), RODATA|NOPTR, $4

DATA kOnes16<>+0(SB)/4, $0x00010001
GLOBL kOnes16<>(SB), RODATA|NOPTR, $4

// kXSLo and kXSHi shift the low and high scale bits of IQ4_XS sub-block k into place (dword k).
DATA kXSLo<>+0(SB)/8, $0x0000000400000000
DATA kXSLo<>+8(SB)/8, $0x0000000c00000008
DATA kXSLo<>+16(SB)/8, $0x0000001400000010
DATA kXSLo<>+24(SB)/8, $0x0000001c00000018
GLOBL kXSLo<>(SB), RODATA|NOPTR, $32

DATA kXSHi<>+0(SB)/8, $0x0000000200000000
DATA kXSHi<>+8(SB)/8, $0x0000000600000004
DATA kXSHi<>+16(SB)/8, $0x0000000a00000008
DATA kXSHi<>+24(SB)/8, $0x0000000e0000000c
GLOBL kXSHi<>(SB), RODATA|NOPTR, $32

DATA kD0F<>+0(SB)/4, $0x0f
GLOBL kD0F<>(SB), RODATA|NOPTR, $4

DATA kD03<>+0(SB)/4, $0x03
GLOBL kD03<>(SB), RODATA|NOPTR, $4

DATA kD32<>+0(SB)/4, $32
GLOBL kD32<>(SB), RODATA|NOPTR, $4

// IQ4SUB leaves in the eight dwords of dst partial sums whose total is the exact Σ y·kvaluesIQ4[q] of the 32
// elements with quant nibbles at qo(SI) (16 bytes: element j low nibble of byte j, element j+16 its high
// nibble) and activations at yo(DI). Needs Y12 = 1 in every word, Y13 = kNibShift, Y14 = kIQ4, Y15 = 0x0f;
// clobbers Y8, Y9.
#define IQ4SUB(qo, yo, dst) \
	VBROADCASTI128 qo(SI), Y8  \
	VPSRLVQ        Y13, Y8, Y8 \
	VPAND          Y15, Y8, Y8 \
	VPSHUFB        Y8, Y14, Y8 \
	VMOVDQU        yo(DI), Y9  \
	VPSIGNB        Y9, Y8, Y8  \
	VPABSB         Y9, Y9      \
	VPMADDUBSW     Y8, Y9, Y8  \
	VPMADDWD       Y12, Y8, dst

// IQ4SUMS8 leaves in Y0 the eight exact sums of the 32-element blocks whose quants are at q0…q7(SI) and
// activations at y0…y7(DI), in order (dword b: block b). Clobbers Y1…Y3, Y8, Y9.
#define IQ4SUMS8(q0, y0, q1, y1, q2, y2, q3, y3, q4, y4, q5, y5, q6, y6, q7, y7) \
	IQ4SUB(q0, y0, Y0)         \
	IQ4SUB(q1, y1, Y1)         \
	VPHADDD    Y1, Y0, Y0      \
	IQ4SUB(q2, y2, Y1)         \
	IQ4SUB(q3, y3, Y2)         \
	VPHADDD    Y2, Y1, Y1      \
	VPHADDD    Y1, Y0, Y0      \
	IQ4SUB(q4, y4, Y1)         \
	IQ4SUB(q5, y5, Y2)         \
	VPHADDD    Y2, Y1, Y1      \
	IQ4SUB(q6, y6, Y2)         \
	IQ4SUB(q7, y7, Y3)         \
	VPHADDD    Y3, Y2, Y2      \
	VPHADDD    Y2, Y1, Y1      \
	VPERM2I128 $0x20, Y1, Y0, Y2 \
	VPERM2I128 $0x31, Y1, Y0, Y3 \
	VPADDD     Y3, Y2, Y0

#define IQ4CONSTS \
	VPBROADCASTD kOnes16<>(SB), Y12 \
	VMOVDQU      kNibShift<>(SB), Y13 \
	VMOVDQU      kIQ4<>(SB), Y14 \
	VPBROADCASTD kI0F<>(SB), Y15 \
	VXORPS       X10, X10, X10

// IQ4XSSUB adds sub-block k of an IQ4_XS super-block into the lanes Y11 as ggml_vec_dot_iq4_xs_q8_K's AVX2
// loop: the int16 pair sums of IQ4SUB times the sub-block's scale (ls − 32, decoded from the scales_l nibble
// and two bits of scales_h at 2(SI)) with VPMADDWD, so that dword m sums bytes 4m…4m+3. Clobbers AX, BX,
// Y5, Y8, Y9.
#define IQ4XSSUB(k, lsh, hsh) \
	MOVBLZX        (4+k/2)(SI), AX    \
	SHRL           $lsh, AX           \
	ANDL           $15, AX            \
	MOVWLZX        2(SI), BX          \
	SHRL           $hsh, BX           \
	ANDL           $3, BX             \
	SHLL           $4, BX             \
	ORL            BX, AX             \
	SUBL           $32, AX            \
	VMOVD          AX, X5             \
	VPBROADCASTW   X5, Y5             \
	VBROADCASTI128 (8+16*k)(SI), Y8   \
	VPSRLVQ        Y13, Y8, Y8        \
	VPAND          Y15, Y8, Y8        \
	VPSHUFB        Y8, Y14, Y8        \
	VMOVDQU        (4+32*k)(DI), Y9   \
	VPSIGNB        Y9, Y8, Y8         \
	VPABSB         Y9, Y9             \
	VPMADDUBSW     Y8, Y9, Y8         \
	VPMADDWD       Y5, Y8, Y8         \
	VPADDD         Y8, Y11, Y11

// func dotIQ4_XSQ8_KAVX2(nb int, w, a *byte, aBlock int) float32
//
// Reference: DotIQ4_XSQ8_K, the reference build's AVX2 arithmetic: per super-block the lanes of IQ4XSSUB
// fused into Y0 with d·yd; hsum_float_8 at the end. The activation's Q8_K blocks lie aBlock bytes apart (292
// in a Q8_K row, q8klBlock in a Q8_KL one).
TEXT ·dotIQ4_XSQ8_KAVX2(SB), NOSPLIT, $0-36
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	MOVQ         aBlock+24(FP), R9
	IQ4CONSTS
	VXORPS       Y0, Y0, Y0

iq4xsloop:
	PREFETCHT0   PFD(SI)
	PREFETCHT0   PFD+64(SI)
	PREFETCHT0   PFD+128(SI)
	VPXOR        Y11, Y11, Y11
	IQ4XSSUB(0, 0, 0)
	IQ4XSSUB(1, 4, 2)
	IQ4XSSUB(2, 0, 4)
	IQ4XSSUB(3, 4, 6)
	IQ4XSSUB(4, 0, 8)
	IQ4XSSUB(5, 4, 10)
	IQ4XSSUB(6, 0, 12)
	IQ4XSSUB(7, 4, 14)
	VCVTDQ2PS    Y11, Y1
	MOVWLZX      0(SI), AX
	VMOVD        AX, X2
	VCVTPH2PS    X2, X2
	VMULSS       0(DI), X2, X2
	VBROADCASTSS X2, Y2
	VFMADD231PS  Y2, Y1, Y0
	ADDQ         $136, SI
	ADDQ         R9, DI
	DECQ         CX
	JNZ          iq4xsloop
	HSUM8
	VZEROUPPER
	MOVSS        X0, ret+32(FP)
	RET

// IQ4NLD leaves f16(0(SI))·f16(0(DI)) (the block's dx·dy) in X4. Clobbers AX, X5.
#define IQ4NLD \
	MOVWLZX   0(SI), AX \
	VMOVD     AX, X4    \
	VCVTPH2PS X4, X4    \
	MOVWLZX   0(DI), AX \
	VMOVD     AX, X5    \
	VCVTPH2PS X5, X5    \
	VMULSS    X5, X4, X4

// func dotIQ4_NLQ8_0AVX2(nb int, w, a *byte) float32
//
// Reference: DotIQ4_NLQ8_0 (tinyBLAS_Q0_AVX's order): per block the eight lane sums of IQ4SUB (dword m: bytes
// 4m…4m+3) fused into Y0 with dx·dy; hsum_float_8 at the end.
TEXT ·dotIQ4_NLQ8_0AVX2(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	IQ4CONSTS
	VXORPS       Y0, Y0, Y0

iq4nlloop:
	PREFETCHT0   PFD(SI)
	PREFETCHT0   2*PFD(DI)
	IQ4SUB(2, 2, Y1)
	VCVTDQ2PS    Y1, Y1
	IQ4NLD
	VBROADCASTSS X4, Y4
	VFMADD231PS  Y4, Y1, Y0
	ADDQ         $18, SI
	ADDQ         $34, DI
	DECQ         CX
	JNZ          iq4nlloop
	HSUM8
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// func dotIQ4_NLQ8_0RepackedAVX2(nb int, w, a *byte) float32
//
// Reference: DotIQ4_NLQ8_0Interleaved: per block the whole exact sum fused into X0 with dx·dy.
TEXT ·dotIQ4_NLQ8_0RepackedAVX2(SB), NOSPLIT, $0-28
	MOVQ         nb+0(FP), CX
	MOVQ         w+8(FP), SI
	MOVQ         a+16(FP), DI
	IQ4CONSTS
	VXORPS       X0, X0, X0

iq4nlrloop:
	PREFETCHT0   PFD(SI)
	PREFETCHT0   2*PFD(DI)
	IQ4SUB(2, 2, Y1)
	VEXTRACTI128 $1, Y1, X2
	VPADDD       X2, X1, X1
	VPSHUFD      $0x4e, X1, X2
	VPADDD       X2, X1, X1
	VPSHUFD      $0xb1, X1, X2
	VPADDD       X2, X1, X1
	VCVTDQ2PS    X1, X1
	IQ4NLD
	VFMADD231SS  X4, X1, X0
	ADDQ         $18, SI
	ADDQ         $34, DI
	DECQ         CX
	JNZ          iq4nlrloop
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// kMX is kvaluesMXFP4 as bytes in both 128-bit lanes: IQ4SUB's table for MXFP4 (|q| ≤ 12).
DATA kMX<>+0(SB)/8, $0x0c08060403020100 // 0, 1, 2, 3, 4, 6, 8, 12
DATA kMX<>+8(SB)/8, $0xf4f8fafcfdfeff00 // 0, −1, −2, −3, −4, −6, −8, −12
DATA kMX<>+16(SB)/8, $0x0c08060403020100
DATA kMX<>+24(SB)/8, $0xf4f8fafcfdfeff00
GLOBL kMX<>(SB), RODATA|NOPTR, $32

// kMXW and kMXA are the byte offsets of eight consecutive MXFP4 blocks (17 bytes) and Q8_0 blocks (34), as
// dwords: where the kernel gathers their scales.
DATA kMXW<>+0(SB)/4, $0
DATA kMXW<>+4(SB)/4, $17
DATA kMXW<>+8(SB)/4, $34
DATA kMXW<>+12(SB)/4, $51
DATA kMXW<>+16(SB)/4, $68
DATA kMXW<>+20(SB)/4, $85
DATA kMXW<>+24(SB)/4, $102
DATA kMXW<>+28(SB)/4, $119
GLOBL kMXW<>(SB), RODATA|NOPTR, $32

DATA kMXA<>+0(SB)/4, $0
DATA kMXA<>+4(SB)/4, $34
DATA kMXA<>+8(SB)/4, $68
DATA kMXA<>+12(SB)/4, $102
DATA kMXA<>+16(SB)/4, $136
DATA kMXA<>+20(SB)/4, $170
DATA kMXA<>+24(SB)/4, $204
DATA kMXA<>+28(SB)/4, $238
GLOBL kMXA<>(SB), RODATA|NOPTR, $32

DATA kMXFF<>+0(SB)/8, $0x000000ff000000ff
DATA kMXFF<>+8(SB)/8, $0x000000ff000000ff
DATA kMXFF<>+16(SB)/8, $0x000000ff000000ff
DATA kMXFF<>+24(SB)/8, $0x000000ff000000ff
GLOBL kMXFF<>(SB), RODATA|NOPTR, $32

// kMXHalf gathers the low words of a lane's four dwords into its low eight bytes (the rest zero).
DATA kMXHalf<>+0(SB)/8, $0x0d0c090805040100
DATA kMXHalf<>+8(SB)/8, $0x8080808080808080
DATA kMXHalf<>+16(SB)/8, $0x0d0c090805040100
DATA kMXHalf<>+24(SB)/8, $0x8080808080808080
GLOBL kMXHalf<>(SB), RODATA|NOPTR, $32

// func dotMXFP4Q8_0AVX2(nb int, w, a *byte) float32
//
// Reference: DotMXFP4Q8_0 over nb blocks: per block the exact sum of IQ4SUB (with kvaluesMXFP4) times
// d = f16(yd)·e8m0Half(e), each product rounded as the reference's, added to the running sum in order. Eight
// blocks at a time: their sums in order in eight dwords (IQ4SUMS8), their scales gathered (e from the first
// byte of each MXFP4 block, yd from the first two of each Q8_0 block), the eight terms added one by one
// (ADD8); the last nb mod 8 blocks one at a time.
TEXT ·dotMXFP4Q8_0AVX2(SB), NOSPLIT, $0-28
	MOVQ    nb+0(FP), DX
	MOVQ    w+8(FP), SI
	MOVQ    a+16(FP), DI
	IQ4CONSTS
	VMOVDQU kMX<>(SB), Y14
	VMOVDQU kMXW<>(SB), Y6
	VMOVDQU kMXA<>(SB), Y7
	MOVQ    DX, CX
	SHRQ    $3, CX
	JZ      mxtail

mxloop:
	PREFETCHT0   PFD(SI)
	PREFETCHT0   PFD+64(SI)
	PREFETCHT0   PFD+128(SI)
	IQ4SUMS8(1, 2, 18, 36, 35, 70, 52, 104, 69, 138, 86, 172, 103, 206, 120, 240)
	VPCMPEQD     Y5, Y5, Y5
	VPGATHERDD   Y5, (SI)(Y6*1), Y4
	VPCMPEQD     Y5, Y5, Y5
	VPGATHERDD   Y5, (DI)(Y7*1), Y11
	VPAND        kMXFF<>(SB), Y4, Y4
	MXSCALE(Y1, Y2, Y3, Y4)
	VPSHUFB      kMXHalf<>(SB), Y11, Y11
	VPERMQ       $0x08, Y11, Y11
	VCVTPH2PS    X11, Y11
	VMULPS       Y2, Y11, Y11
	VCVTDQ2PS    Y0, Y0
	VMULPS       Y11, Y0, Y0
	ADD8
	ADDQ         $136, SI
	ADDQ         $272, DI
	DECQ         CX
	JNZ          mxloop

mxtail:
	ANDQ         $7, DX
	JZ           mxdone

mxone:
	IQ4SUB(1, 2, Y0)
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VCVTDQ2PS    X0, X0
	MOVBLZX      (SI), AX
	VMOVD        AX, X4
	MXSCALE(X1, X2, X3, X4)
	MOVWLZX      (DI), AX
	VMOVD        AX, X11
	VCVTPH2PS    X11, X11
	VMULSS       X2, X11, X11
	VMULSS       X11, X0, X0
	VADDSS       X0, X10, X10
	ADDQ         $17, SI
	ADDQ         $34, DI
	DECQ         DX
	JNZ          mxone

mxdone:
	VZEROUPPER
	MOVSS        X10, ret+24(FP)
	RET
