//go:build amd64 && !noasm

#include "textflag.h"
#include "zero_amd64.h"

// Float dot products in the reference build's lanes (dot_float.go), AVX2 + FMA + F16C. A 16-float AVX-512
// vector of the reference is two 8-float registers here (lanes 0…7 and 8…15), which changes nothing: every
// lane is accumulated by the same fused multiply-adds in the same order, and the reductions add the same
// pairs.

#define PFD 4096

// REDUCE16 leaves _mm512_reduce_add_ps of the 16 lanes (Y0 = lanes 0…7, Y1 = 8…15) in X0; clobbers X1.
#define REDUCE16 \
	VADDPS    Y1, Y0, Y0   \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPS    X1, X0, X0   \
	VMOVHLPS  X0, X0, X1   \
	VADDPS    X1, X0, X0   \
	VMOVSHDUP X0, X1       \
	VADDSS    X1, X0, X0

// FOLD4 folds ggml_vec_dot's four 16-lane accumulators (Y0:Y1, Y2:Y3, Y4:Y5, Y6:Y7) as GGML_F32x16_REDUCE:
// 0 += 2, 1 += 3, 0 += 1, then REDUCE16.
#define FOLD4 \
	VADDPS Y4, Y0, Y0 \
	VADDPS Y5, Y1, Y1 \
	VADDPS Y6, Y2, Y2 \
	VADDPS Y7, Y3, Y3 \
	VADDPS Y2, Y0, Y0 \
	VADDPS Y3, Y1, Y1 \
	REDUCE16

// TXARGS loads the arguments of the tails' kernels of several activations (dotF16Tail4x4, dotF16Tail8x4).
#define TXARGS \
	MOVQ n4+0(FP), CX       \
	MOVQ w+8(FP), SI        \
	MOVQ wStride+16(FP), DX \
	MOVQ a+24(FP), DI       \
	MOVQ aStride+32(FP), R12 \
	MOVQ sums+40(FP), R8

// func dotF32VecAVX2(n int, w, a *byte) float32
//
// Reference: DotF32F32's vector part (n a positive multiple of 64): element i of each step of 64 goes to
// accumulator i/16, lane i mod 16.
TEXT ·dotF32VecAVX2(SB), NOSPLIT, $0-28
	MOVQ   n+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	SHRQ   $6, CX
	ZERO8Y(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)

f32vloop:
	PREFETCHT0  PFD(SI)
	PREFETCHT0  PFD+64(SI)
	PREFETCHT0  PFD+128(SI)
	PREFETCHT0  PFD+192(SI)
	VMOVUPS     0(SI), Y8
	VMOVUPS     32(SI), Y9
	VMOVUPS     64(SI), Y10
	VMOVUPS     96(SI), Y11
	VFMADD231PS 0(DI), Y8, Y0
	VFMADD231PS 32(DI), Y9, Y1
	VFMADD231PS 64(DI), Y10, Y2
	VFMADD231PS 96(DI), Y11, Y3
	VMOVUPS     128(SI), Y8
	VMOVUPS     160(SI), Y9
	VMOVUPS     192(SI), Y10
	VMOVUPS     224(SI), Y11
	VFMADD231PS 128(DI), Y8, Y4
	VFMADD231PS 160(DI), Y9, Y5
	VFMADD231PS 192(DI), Y10, Y6
	VFMADD231PS 224(DI), Y11, Y7
	ADDQ        $256, SI
	ADDQ        $256, DI
	DECQ        CX
	JNZ         f32vloop
	FOLD4
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// F16VSTEP adds one step of 64 halves at SI and DI to the four 16-lane accumulators Y0…Y7 (as DotF16F16:
// products of the widened halves, fused) and moves on.
#define F16VSTEP \
	PREFETCHT0  PFD(SI)     \
	PREFETCHT0  PFD+64(SI)  \
	VCVTPH2PS   0(SI), Y8   \
	VCVTPH2PS   16(SI), Y9  \
	VCVTPH2PS   32(SI), Y10 \
	VCVTPH2PS   48(SI), Y11 \
	VCVTPH2PS   0(DI), Y12  \
	VCVTPH2PS   16(DI), Y13 \
	VCVTPH2PS   32(DI), Y14 \
	VCVTPH2PS   48(DI), Y15 \
	VFMADD231PS Y12, Y8, Y0 \
	VFMADD231PS Y13, Y9, Y1 \
	VFMADD231PS Y14, Y10, Y2 \
	VFMADD231PS Y15, Y11, Y3 \
	VCVTPH2PS   64(SI), Y8  \
	VCVTPH2PS   80(SI), Y9  \
	VCVTPH2PS   96(SI), Y10 \
	VCVTPH2PS   112(SI), Y11 \
	VCVTPH2PS   64(DI), Y12 \
	VCVTPH2PS   80(DI), Y13 \
	VCVTPH2PS   96(DI), Y14 \
	VCVTPH2PS   112(DI), Y15 \
	VFMADD231PS Y12, Y8, Y4 \
	VFMADD231PS Y13, Y9, Y5 \
	VFMADD231PS Y14, Y10, Y6 \
	VFMADD231PS Y15, Y11, Y7 \
	ADDQ        $128, SI    \
	ADDQ        $128, DI

// func dotF16VecAVX2(n int, w, a *byte) float32
//
// Reference: DotF16F16's vector part (n a positive multiple of 64), as dotF32VecAVX2 on widened halves.
TEXT ·dotF16VecAVX2(SB), NOSPLIT, $0-28
	MOVQ n+0(FP), CX
	MOVQ w+8(FP), SI
	MOVQ a+16(FP), DI
	SHRQ $6, CX
	ZERO8Y(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)

f16vloop:
	F16VSTEP
	DECQ CX
	JNZ  f16vloop
	FOLD4
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotF16RowsVecAVX2(n int, w *byte, wRow, rows int, a *byte, out *float32)
//
// dotF16VecAVX2 of rows rows of n halves (a positive multiple of 64), wRow bytes apart, with a: out[r].
TEXT ·dotF16RowsVecAVX2(SB), NOSPLIT, $0-48
	MOVQ w+8(FP), R8
	MOVQ wRow+16(FP), R11
	MOVQ rows+24(FP), R9
	MOVQ out+40(FP), R10

f16rrow:
	MOVQ n+0(FP), CX
	MOVQ R8, SI
	MOVQ a+32(FP), DI
	SHRQ $6, CX
	ZERO8Y(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)

f16rloop:
	F16VSTEP
	DECQ CX
	JNZ  f16rloop
	FOLD4
	MOVSS X0, (R10)
	ADDQ  $4, R10
	ADDQ  R11, R8
	DECQ  R9
	JNZ   f16rrow
	VZEROUPPER
	RET

// func dotF32TiledAVX2(n int, w, a *byte) float32
//
// Reference: DotF32F32Tiled (n a positive multiple of 16): element i into lane i mod 16.
TEXT ·dotF32TiledAVX2(SB), NOSPLIT, $0-28
	MOVQ   n+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	SHRQ   $4, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

f32tloop:
	VMOVUPS     0(SI), Y8
	VMOVUPS     32(SI), Y9
	VFMADD231PS 0(DI), Y8, Y0
	VFMADD231PS 32(DI), Y9, Y1
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        CX
	JNZ         f32tloop
	REDUCE16
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotF16TiledAVX2(n int, w, a *byte) float32
//
// Reference: DotF16F16Tiled (n a positive multiple of 16).
TEXT ·dotF16TiledAVX2(SB), NOSPLIT, $0-28
	MOVQ   n+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   a+16(FP), DI
	SHRQ   $4, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

f16tloop:
	VCVTPH2PS   0(SI), Y8
	VCVTPH2PS   16(SI), Y9
	VCVTPH2PS   0(DI), Y10
	VCVTPH2PS   16(DI), Y11
	VFMADD231PS Y10, Y8, Y0
	VFMADD231PS Y11, Y9, Y1
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         f16tloop
	REDUCE16
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotF32VecAVX2f(n int, x, y *float32) float32
TEXT ·dotF32VecAVX2f(SB), NOSPLIT, $0-28
	JMP ·dotF32VecAVX2(SB)

// func dotF16Tail(n int, w, a *byte, sum float64) float64
//
// Reference: the scalar tail of DotF16F16 (n a multiple of 4): sum += float64(w_i·a_i) for i < n in order;
// the products of two halves are exact in float32, so converting four at a time and adding them one by one
// in float64 gives the reference's bits.
TEXT ·dotF16Tail(SB), NOSPLIT, $0-40
	MOVQ  n+0(FP), CX
	MOVQ  w+8(FP), SI
	MOVQ  a+16(FP), DI
	MOVSD sum+24(FP), X0
	SHRQ  $2, CX
	JZ    f16tdone

f16tloop:
	VCVTPH2PS    (SI), X1
	VCVTPH2PS    (DI), X2
	VMULPS       X2, X1, X1
	VCVTPS2PD    X1, Y1
	VADDSD       X1, X0, X0
	VPERMILPD    $1, X1, X3
	VADDSD       X3, X0, X0
	VEXTRACTF128 $1, Y1, X3
	VADDSD       X3, X0, X0
	VPERMILPD    $1, X3, X3
	VADDSD       X3, X0, X0
	ADDQ         $8, SI
	ADDQ         $8, DI
	DECQ         CX
	JNZ          f16tloop

f16tdone:
	VZEROUPPER
	MOVSD X0, ret+32(FP)
	RET

// F16T4 turns elements i…i+3 of the four rows at SRC and SRC+DX, SRC2 and SRC2+DX (activation values in X5)
// into four registers of float64 products, element i of rows 0…3 in Y1, i+1 in Y2, i+2 in Y3, i+3 in Y4.
#define F16T4(SRC, SRC2) \
	VCVTPH2PS  (SRC), X1          \
	VCVTPH2PS  (SRC)(DX*1), X2    \
	VCVTPH2PS  (SRC2), X3         \
	VCVTPH2PS  (SRC2)(DX*1), X4   \
	VMULPS     X5, X1, X1         \
	VMULPS     X5, X2, X2         \
	VMULPS     X5, X3, X3         \
	VMULPS     X5, X4, X4         \
	VCVTPS2PD  X1, Y1             \
	VCVTPS2PD  X2, Y2             \
	VCVTPS2PD  X3, Y3             \
	VCVTPS2PD  X4, Y4             \
	VUNPCKLPD  Y2, Y1, Y6         \
	VUNPCKHPD  Y2, Y1, Y7         \
	VUNPCKLPD  Y4, Y3, Y8         \
	VUNPCKHPD  Y4, Y3, Y9         \
	VPERM2F128 $0x20, Y8, Y6, Y1  \
	VPERM2F128 $0x20, Y9, Y7, Y2  \
	VPERM2F128 $0x31, Y8, Y6, Y3  \
	VPERM2F128 $0x31, Y9, Y7, Y4

// func dotF16Tail4(n int, w *byte, wStride int, a *byte, sums *[4]float64)
//
// Reference: dotF16Tail for the four rows at w + r·wStride (r < 4), sums[r] in lane r: per four elements,
// each row's exact float32 products become float64, a 4×4 transpose puts element i of every row in one
// register, and four additions in element order continue every row's sum as dotF16Tail's four do.
TEXT ·dotF16Tail4(SB), NOSPLIT, $0-40
	MOVQ    n+0(FP), CX
	MOVQ    w+8(FP), SI
	MOVQ    wStride+16(FP), DX
	MOVQ    a+24(FP), DI
	MOVQ    sums+32(FP), R8
	VMOVUPD (R8), Y0
	LEAQ    (SI)(DX*2), R9
	SHRQ    $2, CX
	JZ      f16t4done

f16t4loop:
	VCVTPH2PS (DI), X5
	F16T4(SI, R9)
	VADDPD    Y1, Y0, Y0
	VADDPD    Y2, Y0, Y0
	VADDPD    Y3, Y0, Y0
	VADDPD    Y4, Y0, Y0
	ADDQ      $8, SI
	ADDQ      $8, R9
	ADDQ      $8, DI
	DECQ      CX
	JNZ       f16t4loop

f16t4done:
	VMOVUPD Y0, (R8)
	VZEROUPPER
	RET

// func dotF16Tail8(n int, w *byte, wStride int, a *byte, sums *[8]float64)
//
// Reference: dotF16Tail4 for the eight rows at w + r·wStride (r < 8), rows 0…3 in Y0 and rows 4…7 in Y10:
// two chains of additions, each lane's in element order, that overlap.
TEXT ·dotF16Tail8(SB), NOSPLIT, $0-40
	MOVQ    n+0(FP), CX
	MOVQ    w+8(FP), SI
	MOVQ    wStride+16(FP), DX
	MOVQ    a+24(FP), DI
	MOVQ    sums+32(FP), R8
	VMOVUPD (R8), Y0
	VMOVUPD 32(R8), Y10
	LEAQ    (SI)(DX*2), R9
	LEAQ    (R9)(DX*2), R10
	LEAQ    (R10)(DX*2), R11
	SHRQ    $2, CX
	JZ      f16t8done

f16t8loop:
	VCVTPH2PS (DI), X5
	F16T4(SI, R9)
	VADDPD    Y1, Y0, Y0
	VADDPD    Y2, Y0, Y0
	VADDPD    Y3, Y0, Y0
	VADDPD    Y4, Y0, Y0
	F16T4(R10, R11)
	VADDPD    Y1, Y10, Y10
	VADDPD    Y2, Y10, Y10
	VADDPD    Y3, Y10, Y10
	VADDPD    Y4, Y10, Y10
	ADDQ      $8, SI
	ADDQ      $8, R9
	ADDQ      $8, R10
	ADDQ      $8, R11
	ADDQ      $8, DI
	DECQ      CX
	JNZ       f16t8loop

f16t8done:
	VMOVUPD Y0, (R8)
	VMOVUPD Y10, 32(R8)
	VZEROUPPER
	RET

// T4X4 converts elements i…i+3 of the four rows at SRC, SRC+DX, SRC2 and SRC2+DX to float64 and transposes
// them: element i of rows 0…3 in Y1, i+1 in Y2, i+2 in Y3, i+3 in Y4 (Y6…Y9 clobbered).
#define T4X4(SRC, SRC2) \
	VCVTPH2PS    (SRC), X1         \
	VCVTPH2PS    (SRC)(DX*1), X2   \
	VCVTPH2PS    (SRC2), X3        \
	VCVTPH2PS    (SRC2)(DX*1), X4  \
	VCVTPS2PD    X1, Y1            \
	VCVTPS2PD    X2, Y2            \
	VCVTPS2PD    X3, Y3            \
	VCVTPS2PD    X4, Y4            \
	VUNPCKLPD    Y2, Y1, Y6        \
	VUNPCKHPD    Y2, Y1, Y7        \
	VUNPCKLPD    Y4, Y3, Y8        \
	VUNPCKHPD    Y4, Y3, Y9        \
	VPERM2F128   $0x20, Y8, Y6, Y1 \
	VPERM2F128   $0x20, Y9, Y7, Y2 \
	VPERM2F128   $0x31, Y8, Y6, Y3 \
	VPERM2F128   $0x31, Y9, Y7, Y4

// T44ELEM continues the four activations' chains (Y10…Y13) with element OFF/8 of the group, whose four rows'
// float64 values are in W: each activation's value at DI + i·R12 + OFF, broadcast, times W.
#define T44ELEM(OFF, W) \
	VBROADCASTSD OFF(DI), Y5         \
	VBROADCASTSD OFF(DI)(R12*1), Y6  \
	VBROADCASTSD OFF(DI)(R12*2), Y7  \
	VBROADCASTSD OFF(DI)(R13*1), Y8  \
	VFMADD231PD  Y5, W, Y10          \
	VFMADD231PD  Y6, W, Y11          \
	VFMADD231PD  Y7, W, Y12          \
	VFMADD231PD  Y8, W, Y13

// func dotF16Tail4x4(n4 int, w *byte, wStride int, a *float64, aStride int, sums *[16]float64)
//
// Reference: dotF16Tail for the four rows at w + r·wStride and the four activation tails at a + i·aStride
// (float64 here), sums[4i + r] in lane r of a chain per activation: per four elements, the rows' halves become
// float64 and are transposed once, and each activation element, broadcast, continues its four rows' sums
// with one fused multiply-add per element in order (the product of two F16 values is exact, so it adds
// what dotF16Tail's float32 product adds).
TEXT ·dotF16Tail4x4(SB), NOSPLIT, $0-48
	TXARGS
	VMOVUPD (R8), Y10
	VMOVUPD 32(R8), Y11
	VMOVUPD 64(R8), Y12
	VMOVUPD 96(R8), Y13
	LEAQ    (SI)(DX*2), R9
	LEAQ    (R12)(R12*2), R13
	TESTQ   CX, CX
	JZ      t44done

t44loop:
	T4X4(SI, R9)
	T44ELEM(0, Y1)
	T44ELEM(8, Y2)
	T44ELEM(16, Y3)
	T44ELEM(24, Y4)
	ADDQ         $8, SI
	ADDQ         $8, R9
	ADDQ         $32, DI
	DECQ         CX
	JNZ          t44loop

t44done:
	VMOVUPD Y10, (R8)
	VMOVUPD Y11, 32(R8)
	VMOVUPD Y12, 64(R8)
	VMOVUPD Y13, 96(R8)
	VZEROUPPER
	RET

// T84ELEM is T44ELEM for eight rows, in 512-bit registers (W) and chains (Z10…Z13).
#define T84ELEM(OFF, W) \
	VBROADCASTSD OFF(DI), Z5         \
	VBROADCASTSD OFF(DI)(R12*1), Z6  \
	VBROADCASTSD OFF(DI)(R12*2), Z7  \
	VBROADCASTSD OFF(DI)(R13*1), Z8  \
	VFMADD231PD  Z5, W, Z10          \
	VFMADD231PD  Z6, W, Z11          \
	VFMADD231PD  Z7, W, Z12          \
	VFMADD231PD  Z8, W, Z13

// func dotF16Tail8x4(n4 int, w *byte, wStride int, a *float64, aStride int, sums *[32]float64)
//
// Reference: dotF16Tail4x4 for the eight rows at w + r·wStride, sums[8i + r] in lane r of activation i's
// chain (AVX-512): the same additions in the same order per row and activation, eight rows a register, so
// that a call's chains, bound by the additions' latency, cover twice the rows.
TEXT ·dotF16Tail8x4(SB), NOSPLIT, $0-48
	TXARGS
	VMOVUPD (R8), Z10
	VMOVUPD 64(R8), Z11
	VMOVUPD 128(R8), Z12
	VMOVUPD 192(R8), Z13
	LEAQ    (SI)(DX*2), R9
	LEAQ    (R9)(DX*2), R10
	LEAQ    (R10)(DX*2), R11
	LEAQ    (R12)(R12*2), R13
	TESTQ   CX, CX
	JZ      t84done

t84loop:
	T4X4(R10, R11)
	VMOVAPD       Y1, Y0
	VMOVAPD       Y2, Y5
	VMOVAPD       Y3, Y14
	VMOVAPD       Y4, Y15
	T4X4(SI, R9)
	VINSERTF64X4  $1, Y0, Z1, Z1
	VINSERTF64X4  $1, Y5, Z2, Z2
	VINSERTF64X4  $1, Y14, Z3, Z3
	VINSERTF64X4  $1, Y15, Z4, Z4
	T84ELEM(0, Z1)
	T84ELEM(8, Z2)
	T84ELEM(16, Z3)
	T84ELEM(24, Z4)
	ADDQ          $8, SI
	ADDQ          $8, R9
	ADDQ          $8, R10
	ADDQ          $8, R11
	ADDQ          $32, DI
	DECQ          CX
	JNZ           t84loop

t84done:
	VMOVUPD Z10, (R8)
	VMOVUPD Z11, 64(R8)
	VMOVUPD Z12, 128(R8)
	VMOVUPD Z13, 192(R8)
	VZEROUPPER
	RET

// func f16ToF64(n4 int, src *byte, dst *float64)
//
// dst[i] = float64(F16ToF32(src half i)) for i < 4·n4.
TEXT ·f16ToF64(SB), NOSPLIT, $0-24
	MOVQ  n4+0(FP), CX
	MOVQ  src+8(FP), SI
	MOVQ  dst+16(FP), DI
	TESTQ CX, CX
	JZ    f2ddone

f2dloop:
	VCVTPH2PS (SI), X1
	VCVTPS2PD X1, Y1
	VMOVUPD   Y1, (DI)
	ADDQ      $8, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       f2dloop

f2ddone:
	VZEROUPPER
	RET

// F16X4ROW adds one row's step of 64 halves (at M0…M3, converted into T0…T3) times the activations' (Z16…Z19)
// to its four accumulators A0…A3.
#define F16X4ROW(M0, M1, M2, M3, T0, T1, T2, T3, A0, A1, A2, A3) \
	VCVTPH2PS   M0, T0      \
	VCVTPH2PS   M1, T1      \
	VCVTPH2PS   M2, T2      \
	VCVTPH2PS   M3, T3      \
	VFMADD231PS Z16, T0, A0 \
	VFMADD231PS Z17, T1, A1 \
	VFMADD231PS Z18, T2, A2 \
	VFMADD231PS Z19, T3, A3

// func dotF16x4AVX512(n int, w *byte, wStride int, a *byte, out *[4]float32)
//
// Reference: dotF16VecAVX2 (DotF16F16's vector part, n a positive multiple of 64) for the four rows at w +
// r·wStride against a, in 512-bit registers: row r's accumulator k in Z(4r+k), element i of each step of 64
// in accumulator i/16, lane i mod 16; then the folds of GGML_F32x16_REDUCE and Reduce16's tree, the four
// rows' chains interleaved.
TEXT ·dotF16x4AVX512(SB), NOSPLIT, $0-40
	MOVQ   n+0(FP), CX
	MOVQ   w+8(FP), SI
	MOVQ   wStride+16(FP), DX
	MOVQ   a+24(FP), DI
	LEAQ   (SI)(DX*2), R9
	SHRQ   $6, CX
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	VXORPS Z5, Z5, Z5
	VXORPS Z6, Z6, Z6
	VXORPS Z7, Z7, Z7
	VXORPS Z8, Z8, Z8
	VXORPS Z9, Z9, Z9
	VXORPS Z10, Z10, Z10
	VXORPS Z11, Z11, Z11
	VXORPS Z12, Z12, Z12
	VXORPS Z13, Z13, Z13
	VXORPS Z14, Z14, Z14
	VXORPS Z15, Z15, Z15

f16x4loop:
	VCVTPH2PS   0(DI), Z16
	VCVTPH2PS   32(DI), Z17
	VCVTPH2PS   64(DI), Z18
	VCVTPH2PS   96(DI), Z19
	F16X4ROW(0(SI), 32(SI), 64(SI), 96(SI), Z20, Z21, Z22, Z23, Z0, Z1, Z2, Z3)
	F16X4ROW(0(SI)(DX*1), 32(SI)(DX*1), 64(SI)(DX*1), 96(SI)(DX*1), Z24, Z25, Z26, Z27, Z4, Z5, Z6, Z7)
	F16X4ROW(0(R9), 32(R9), 64(R9), 96(R9), Z20, Z21, Z22, Z23, Z8, Z9, Z10, Z11)
	F16X4ROW(0(R9)(DX*1), 32(R9)(DX*1), 64(R9)(DX*1), 96(R9)(DX*1), Z24, Z25, Z26, Z27, Z12, Z13, Z14, Z15)
	ADDQ        $128, SI
	ADDQ        $128, R9
	ADDQ        $128, DI
	DECQ        CX
	JNZ         f16x4loop

	// GGML_F32x16_REDUCE: x0 += x2, x1 += x3, then x0 += x1
	VADDPS Z2, Z0, Z0
	VADDPS Z6, Z4, Z4
	VADDPS Z10, Z8, Z8
	VADDPS Z14, Z12, Z12
	VADDPS Z3, Z1, Z1
	VADDPS Z7, Z5, Z5
	VADDPS Z11, Z9, Z9
	VADDPS Z15, Z13, Z13
	VADDPS Z1, Z0, Z0
	VADDPS Z5, Z4, Z4
	VADDPS Z9, Z8, Z8
	VADDPS Z13, Z12, Z12

	// Reduce16: t = lanes 0…7 + lanes 8…15, u = t[0…3] + t[4…7], (u0 + u2) + (u1 + u3)
	VEXTRACTF64X4 $1, Z0, Y1
	VEXTRACTF64X4 $1, Z4, Y5
	VEXTRACTF64X4 $1, Z8, Y9
	VEXTRACTF64X4 $1, Z12, Y13
	VADDPS        Y1, Y0, Y0
	VADDPS        Y5, Y4, Y4
	VADDPS        Y9, Y8, Y8
	VADDPS        Y13, Y12, Y12
	VEXTRACTF128  $1, Y0, X1
	VEXTRACTF128  $1, Y4, X5
	VEXTRACTF128  $1, Y8, X9
	VEXTRACTF128  $1, Y12, X13
	VADDPS        X1, X0, X0
	VADDPS        X5, X4, X4
	VADDPS        X9, X8, X8
	VADDPS        X13, X12, X12
	VMOVHLPS      X0, X0, X1
	VMOVHLPS      X4, X4, X5
	VMOVHLPS      X8, X8, X9
	VMOVHLPS      X12, X12, X13
	VADDPS        X1, X0, X0
	VADDPS        X5, X4, X4
	VADDPS        X9, X8, X8
	VADDPS        X13, X12, X12
	VMOVSHDUP     X0, X1
	VMOVSHDUP     X4, X5
	VMOVSHDUP     X8, X9
	VMOVSHDUP     X12, X13
	VADDSS        X1, X0, X0
	VADDSS        X5, X4, X4
	VADDSS        X9, X8, X8
	VADDSS        X13, X12, X12
	MOVQ          out+32(FP), R8
	VMOVSS        X0, (R8)
	VMOVSS        X4, 4(R8)
	VMOVSS        X8, 8(R8)
	VMOVSS        X12, 12(R8)
	VZEROUPPER
	RET

// F16WROW multiplies the weight row at SI (BX steps of 64 halves; the next row R8 bytes on) with the four
// activation rows at DI, R11, R12 and R13 (float32): activation i's accumulator k in Z(4i+k), element e of each
// step in accumulator e/16, lane e mod 16, as dotF16x4AVX512; then folds each activation's four as
// GGML_F32x16_REDUCE does (x0 += x2, x1 += x3, x0 += x1) and leaves the first step of Reduce16 (lanes 0…7 +
// lanes 8…15) of activations 0 and 1 in T01, of 2 and 3 in T23 (the first's eight lanes, then the second's).
#define F16WROW(loop, T01, T23) \
	VXORPS      Z0, Z0, Z0                \
	VXORPS      Z1, Z1, Z1                \
	VXORPS      Z2, Z2, Z2                \
	VXORPS      Z3, Z3, Z3                \
	VXORPS      Z4, Z4, Z4                \
	VXORPS      Z5, Z5, Z5                \
	VXORPS      Z6, Z6, Z6                \
	VXORPS      Z7, Z7, Z7                \
	VXORPS      Z8, Z8, Z8                \
	VXORPS      Z9, Z9, Z9                \
	VXORPS      Z10, Z10, Z10             \
	VXORPS      Z11, Z11, Z11             \
	VXORPS      Z12, Z12, Z12             \
	VXORPS      Z13, Z13, Z13             \
	VXORPS      Z14, Z14, Z14             \
	VXORPS      Z15, Z15, Z15             \
	XORQ        AX, AX                    \
	XORQ        DX, DX                    \
	MOVQ        BX, CX                    \
loop:                                         \
	VCVTPH2PS   0(SI)(AX*1), Z16          \
	VCVTPH2PS   32(SI)(AX*1), Z17         \
	VCVTPH2PS   64(SI)(AX*1), Z18         \
	VCVTPH2PS   96(SI)(AX*1), Z19         \
	VFMADD231PS 0(DI)(DX*1), Z16, Z0      \
	VFMADD231PS 64(DI)(DX*1), Z17, Z1     \
	VFMADD231PS 128(DI)(DX*1), Z18, Z2    \
	VFMADD231PS 192(DI)(DX*1), Z19, Z3    \
	VFMADD231PS 0(R11)(DX*1), Z16, Z4     \
	VFMADD231PS 64(R11)(DX*1), Z17, Z5    \
	VFMADD231PS 128(R11)(DX*1), Z18, Z6   \
	VFMADD231PS 192(R11)(DX*1), Z19, Z7   \
	VFMADD231PS 0(R12)(DX*1), Z16, Z8     \
	VFMADD231PS 64(R12)(DX*1), Z17, Z9    \
	VFMADD231PS 128(R12)(DX*1), Z18, Z10  \
	VFMADD231PS 192(R12)(DX*1), Z19, Z11  \
	VFMADD231PS 0(R13)(DX*1), Z16, Z12    \
	VFMADD231PS 64(R13)(DX*1), Z17, Z13   \
	VFMADD231PS 128(R13)(DX*1), Z18, Z14  \
	VFMADD231PS 192(R13)(DX*1), Z19, Z15  \
	ADDQ        $128, AX                  \
	ADDQ        $256, DX                  \
	DECQ        CX                        \
	JNZ         loop                      \
	VADDPS      Z2, Z0, Z0                \
	VADDPS      Z6, Z4, Z4                \
	VADDPS      Z10, Z8, Z8               \
	VADDPS      Z14, Z12, Z12             \
	VADDPS      Z3, Z1, Z1                \
	VADDPS      Z7, Z5, Z5                \
	VADDPS      Z11, Z9, Z9               \
	VADDPS      Z15, Z13, Z13             \
	VADDPS      Z1, Z0, Z0                \
	VADDPS      Z5, Z4, Z4                \
	VADDPS      Z9, Z8, Z8                \
	VADDPS      Z13, Z12, Z12             \
	VSHUFF64X2  $0x44, Z4, Z0, Z28        \
	VSHUFF64X2  $0xee, Z4, Z0, Z29        \
	VADDPS      Z29, Z28, T01             \
	VSHUFF64X2  $0x44, Z12, Z8, Z30       \
	VSHUFF64X2  $0xee, Z12, Z8, Z31       \
	VADDPS      Z31, Z30, T23             \
	ADDQ        R8, SI

// F16U leaves in U, from a weight row's T01 and T23 (F16WROW), the second step of Reduce16 (lanes 0…3 + lanes
// 4…7) of its four activations, four lanes each in order.
#define F16U(T01, T23, U) \
	VSHUFF32X4 $0x88, T23, T01, Z28 \
	VSHUFF32X4 $0xdd, T23, T01, Z29 \
	VADDPS     Z29, Z28, U

// func dotF16x16(n int, w *byte, wStride int, a *float32, aStride int, sums *float64, sStride int)
//
// Reference: dotF16VecAVX2 (n a positive multiple of 64) for the four weight rows at w + j·wStride against the
// four activation rows already widened to float32 at a + i·aStride (bytes), sixteen pairs: each step's weights
// converted once for the four activations, each pair's operations those of dotF16x4AVX512 (and so of the
// reference) in the same order, Reduce16's tree run on the sixteen pairs at once by shuffles that bring the
// operands of each of its additions together (additions commute exactly). sums[i·sStride bytes + j] =
// float64 of pair (i, j)'s sum.
TEXT ·dotF16x16(SB), NOSPLIT, $0-56
	MOVQ n+0(FP), BX
	MOVQ w+8(FP), SI
	MOVQ wStride+16(FP), R8
	MOVQ a+24(FP), DI
	MOVQ aStride+32(FP), R9
	LEAQ (DI)(R9*1), R11
	LEAQ (DI)(R9*2), R12
	LEAQ (R11)(R9*2), R13
	SHRQ $6, BX

	F16WROW(f16w0, Z20, Z21)
	F16WROW(f16w1, Z22, Z23)
	F16WROW(f16w2, Z24, Z25)
	F16WROW(f16w3, Z26, Z27)
	F16U(Z20, Z21, Z20)
	F16U(Z22, Z23, Z22)
	F16U(Z24, Z25, Z24)
	F16U(Z26, Z27, Z26)

	// (u0 + u2) and (u1 + u3) of rows 0 and 1, of rows 2 and 3, then their sums: lane 4i + j is pair (i, j)
	VSHUFPS $0x44, Z22, Z20, Z28
	VSHUFPS $0xee, Z22, Z20, Z29
	VADDPS  Z29, Z28, Z20
	VSHUFPS $0x44, Z26, Z24, Z28
	VSHUFPS $0xee, Z26, Z24, Z29
	VADDPS  Z29, Z28, Z24
	VSHUFPS $0x88, Z24, Z20, Z28
	VSHUFPS $0xdd, Z24, Z20, Z29
	VADDPS  Z29, Z28, Z0

	MOVQ          sums+40(FP), DI
	MOVQ          sStride+48(FP), DX
	VCVTPS2PD     Y0, Z1
	VEXTRACTF32X8 $1, Z0, Y2
	VCVTPS2PD     Y2, Z2
	VMOVUPD       Y1, (DI)
	VEXTRACTF64X4 $1, Z1, Y1
	VMOVUPD       Y1, (DI)(DX*1)
	LEAQ          (DI)(DX*2), DI
	VMOVUPD       Y2, (DI)
	VEXTRACTF64X4 $1, Z2, Y2
	VMOVUPD       Y2, (DI)(DX*1)
	VZEROUPPER
	RET

// func f16ToF32x16(n16 int, src *byte, dst *float32)
//
// dst[i] = F16ToF32(src half i) for i < 16·n16 (exact).
TEXT ·f16ToF32x16(SB), NOSPLIT, $0-24
	MOVQ  n16+0(FP), CX
	MOVQ  src+8(FP), SI
	MOVQ  dst+16(FP), DI
	TESTQ CX, CX
	JZ    f2sdone

f2sloop:
	VCVTPH2PS (SI), Z1
	VMOVUPS   Z1, (DI)
	ADDQ      $32, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       f2sloop

f2sdone:
	VZEROUPPER
	RET
