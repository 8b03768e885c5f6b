//go:build amd64 && !noasm

#include "textflag.h"
#include "vexp_amd64.h"
#include "prefetch_amd64.h"

// The lane kernels of attention_lanes.go for CPUs with AVX2, FMA and F16C but not AVX-512: 8 query lanes in
// 256-bit registers. They are attn_amd64.s's kernels with rows of 8 floats (score rows, lane ranges, q
// transposed), head sizes that are multiples of 8, no mask registers: each lane performs exactly the float
// operations of attnStep.head for its (query, head) pair, in the same order, so the results are
// bit-identical.

// KROWS converts N key rows (R14 bytes each, R13 bytes apart) from SI to float32 rows from R8 on (R12 bytes
// apart), prefetching each row R15 bytes on (prefetch_amd64.h). It advances R8 past them and clobbers R9, R10,
// AX, DX and Y0.
#define KROWS(N, row, pf, pfdone, conv) \
	MOVQ      SI, R9                \
	MOVQ      N, DX                 \
row:                                    \
	LEAQ      (R9)(R15*1), R10      \
	PREFETCHROW(R10, R14, AX, R15, pf, pfdone) \
	XORQ      AX, AX                \
conv:                                   \
	VCVTPH2PS (R9)(AX*1), Y0        \
	VMOVUPS   Y0, (R8)(AX*2)        \
	ADDQ      $16, AX               \
	CMPQ      AX, R14               \
	JLT       conv                  \
	ADDQ      R13, R9               \
	ADDQ      R12, R8               \
	DECQ      DX                    \
	JNZ       row

DATA lanesBias<>+0(SB)/8, $1023
GLOBL lanesBias<>(SB), RODATA|NOPTR, $8

DATA lanesOneD<>+0(SB)/8, $0x3ff0000000000000
GLOBL lanesOneD<>(SB), RODATA|NOPTR, $8

// func attnScoresF16AVX2(size int, qT *float32, k *byte, kStride int, n int, s *float32, kbuf *float32)
//
// s[8c + l] = Σ_d qT[8d + l]·K_c[d] for c < n, the sum in order of d starting from 0 (the products of F16
// values are exact, so each step is one fused multiply-add), K_c the size halves at k + c·kStride. size is a
// positive multiple of 8; kbuf holds 8·size floats (cells converted to float32).
TEXT ·attnScoresF16AVX2(SB), NOSPLIT, $0-64
	MOVQ size+0(FP), BX
	MOVQ k+16(FP), SI
	MOVQ kStride+24(FP), R13
	MOVQ n+32(FP), CX
	MOVQ s+40(FP), DI
	MOVQ BX, R12
	SHLQ $2, R12           // bytes of a converted row
	LEAQ (R12)(R12*2), R11 // 3 rows
	LEAQ (BX)(BX*1), R14   // bytes of a key row
	MOVQ pf+56(FP), R15

ksc8:
	CMPQ CX, $8
	JLT  ksc1

	MOVQ kbuf+48(FP), R8 // the 8 cells from SI into kbuf rows 0…7
	KROWS($8, ksc8row, ksc8pf, ksc8pfdone, ksc8conv)

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   kbuf+48(FP), R8
	LEAQ   (R8)(R12*4), R9
	MOVQ   qT+8(FP), R10
	MOVQ   BX, DX

ksc8d:
	VMOVUPS      (R10), Y8
	VBROADCASTSS (R8), Y9
	VFMADD231PS  Y9, Y8, Y0
	VBROADCASTSS (R8)(R12*1), Y10
	VFMADD231PS  Y10, Y8, Y1
	VBROADCASTSS (R8)(R12*2), Y11
	VFMADD231PS  Y11, Y8, Y2
	VBROADCASTSS (R8)(R11*1), Y12
	VFMADD231PS  Y12, Y8, Y3
	VBROADCASTSS (R9), Y13
	VFMADD231PS  Y13, Y8, Y4
	VBROADCASTSS (R9)(R12*1), Y14
	VFMADD231PS  Y14, Y8, Y5
	VBROADCASTSS (R9)(R12*2), Y15
	VFMADD231PS  Y15, Y8, Y6
	VBROADCASTSS (R9)(R11*1), Y9
	VFMADD231PS  Y9, Y8, Y7
	ADDQ         $32, R10
	ADDQ         $4, R8
	ADDQ         $4, R9
	DECQ         DX
	JNZ          ksc8d

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	ADDQ    $256, DI
	LEAQ    (SI)(R13*8), SI
	SUBQ    $8, CX
	JMP     ksc8

ksc1:
	TESTQ CX, CX
	JZ    kscdone
	MOVQ  kbuf+48(FP), R8
	KROWS($1, ksc1row, ksc1pf, ksc1pfdone, ksc1conv)
	MOVQ  kbuf+48(FP), R8
	VXORPS Y0, Y0, Y0
	MOVQ   qT+8(FP), R10
	MOVQ   BX, DX

ksc1d:
	VBROADCASTSS (R8), Y9
	VFMADD231PS  (R10), Y9, Y0
	ADDQ         $32, R10
	ADDQ         $4, R8
	DECQ         DX
	JNZ          ksc1d

	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	ADDQ    R13, SI
	DECQ    CX
	JMP     ksc1

kscdone:
	VZEROUPPER
	RET

// func attnScores2F16AVX2(size int, qT *float32, k *byte, kStride int, n int, s0, s1 *float32, kbuf *float32, pf int)
//
// attnScoresF16AVX2 for two blocks of 8 lanes over the same keys, q transposed in rows of 16 (the first block's
// lanes, then the second's): s0[8c + l] = Σ_d qT[16d + l]·K_c[d] and s1[8c + l] = Σ_d qT[16d + 8 + l]·K_c[d]
// for c < n, each sum in order of d from 0 as there. Six cells a step: each key element broadcast once for
// both blocks' lanes (two multiply-adds a broadcast, where one block has one), each key row converted once.
// kbuf holds 6·size floats.
TEXT ·attnScores2F16AVX2(SB), NOSPLIT, $0-72
	MOVQ size+0(FP), BX
	MOVQ k+16(FP), SI
	MOVQ kStride+24(FP), R13
	MOVQ n+32(FP), CX
	MOVQ s0+40(FP), DI
	MOVQ s1+48(FP), R11
	MOVQ pf+64(FP), R15
	MOVQ BX, R12
	SHLQ $2, R12           // bytes of a converted row
	LEAQ (BX)(BX*1), R14   // bytes of a key row

k2sc6:
	CMPQ CX, $6
	JLT  k2sc1
	MOVQ kbuf+56(FP), R8
	KROWS($6, k2sc6row, k2sc6pf, k2sc6pfdone, k2sc6conv)

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	MOVQ   kbuf+56(FP), R8
	LEAQ   (R12)(R12*2), R9
	ADDQ   R8, R9          // rows 3…5
	MOVQ   qT+8(FP), R10
	MOVQ   BX, DX

k2sc6d:
	VMOVUPS      (R10), Y12
	VMOVUPS      32(R10), Y13
	VBROADCASTSS (R8), Y14
	VFMADD231PS  Y14, Y12, Y0
	VFMADD231PS  Y14, Y13, Y1
	VBROADCASTSS (R8)(R12*1), Y15
	VFMADD231PS  Y15, Y12, Y2
	VFMADD231PS  Y15, Y13, Y3
	VBROADCASTSS (R8)(R12*2), Y14
	VFMADD231PS  Y14, Y12, Y4
	VFMADD231PS  Y14, Y13, Y5
	VBROADCASTSS (R9), Y15
	VFMADD231PS  Y15, Y12, Y6
	VFMADD231PS  Y15, Y13, Y7
	VBROADCASTSS (R9)(R12*1), Y14
	VFMADD231PS  Y14, Y12, Y8
	VFMADD231PS  Y14, Y13, Y9
	VBROADCASTSS (R9)(R12*2), Y15
	VFMADD231PS  Y15, Y12, Y10
	VFMADD231PS  Y15, Y13, Y11
	ADDQ         $64, R10
	ADDQ         $4, R8
	ADDQ         $4, R9
	DECQ         DX
	JNZ          k2sc6d

	VMOVUPS Y0, (DI)
	VMOVUPS Y2, 32(DI)
	VMOVUPS Y4, 64(DI)
	VMOVUPS Y6, 96(DI)
	VMOVUPS Y8, 128(DI)
	VMOVUPS Y10, 160(DI)
	VMOVUPS Y1, (R11)
	VMOVUPS Y3, 32(R11)
	VMOVUPS Y5, 64(R11)
	VMOVUPS Y7, 96(R11)
	VMOVUPS Y9, 128(R11)
	VMOVUPS Y11, 160(R11)
	ADDQ    $192, DI
	ADDQ    $192, R11
	LEAQ    (R13)(R13*2), AX
	LEAQ    (SI)(AX*2), SI
	SUBQ    $6, CX
	JMP     k2sc6

k2sc1:
	TESTQ CX, CX
	JZ    k2scdone
	MOVQ  kbuf+56(FP), R8
	KROWS($1, k2sc1row, k2sc1pf, k2sc1pfdone, k2sc1conv)
	MOVQ  kbuf+56(FP), R8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	MOVQ   qT+8(FP), R10
	MOVQ   BX, DX

k2sc1d:
	VBROADCASTSS (R8), Y9
	VFMADD231PS  (R10), Y9, Y0
	VFMADD231PS  32(R10), Y9, Y1
	ADDQ         $64, R10
	ADDQ         $4, R8
	DECQ         DX
	JNZ          k2sc1d

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, (R11)
	ADDQ    $32, DI
	ADDQ    $32, R11
	ADDQ    R13, SI
	DECQ    CX
	JMP     k2sc1

k2scdone:
	VZEROUPPER
	RET

// LANEMASK8 sets M to the lanes (all ones) whose range [LO, HI) holds cell R (a general register); T is
// clobbered.
#define LANEMASK8(R, XM, M, LO, HI, T) \
	VMOVD        R, XM  \
	VPBROADCASTD XM, M  \
	VPCMPGTD     M, HI, T \
	VPCMPGTD     M, LO, M \
	VPANDN       T, M, M

// func attnSoftmaxF16AVX2(n int, s *float32, c0 int, lohi *int32, scale float32, tmp *float32)
//
// attnSoftmaxF16 (attn_amd64.s) for 8 lanes, over score rows s of 8 floats (row r is cell c0 + r, r < n);
// lane l takes part in row r iff lohi[l] ≤ c0 + r < lohi[8 + l]. In place: s = s·scale; m = the lanes'
// maxima; e = vexpf(s − m) (0 outside a lane's range); the sum of e per aligned group of 16 cells as
// quant.Reduce16, those added in float64; then every e becomes f16(e·float32(1/sum)). tmp holds 16 rows of 8
// floats and then the 8 float64 sums.
TEXT ·attnSoftmaxF16AVX2(SB), NOSPLIT, $0-48
	MOVQ         n+0(FP), CX
	MOVQ         s+8(FP), SI
	MOVQ         c0+16(FP), BX
	MOVQ         lohi+24(FP), AX
	VMOVDQU      (AX), Y10
	VMOVDQU      32(AX), Y11
	VBROADCASTSS scale+32(FP), Y12
	VBROADCASTSS VX_INF, Y13
	VBROADCASTSS VX_SIGN, Y9
	VXORPS       Y9, Y13, Y13 // the maxima: −Inf

	// pass 1: scale, and the maxima over each lane's range (VMAXPS as under a mask)
	MOVQ SI, R8
	XORQ DX, DX

sm8p1:
	CMPQ      DX, CX
	JGE       sm8p1done
	LEAQ      (BX)(DX*1), AX
	LANEMASK8(AX, X9, Y9, Y10, Y11, Y7)
	VMULPS    (R8), Y12, Y8
	VMOVUPS   Y8, (R8)
	VMAXPS    Y8, Y13, Y7
	VBLENDVPS Y9, Y7, Y13, Y13
	ADDQ      $32, R8
	INCQ      DX
	JMP       sm8p1

sm8p1done:
	VMOVAPS Y13, Y15 // m
	MOVQ    tmp+40(FP), AX
	VXORPD  Y0, Y0, Y0
	VMOVUPD Y0, 512(AX) // the sums of lanes 0…3 and 4…7, float64
	VMOVUPD Y0, 544(AX)
	VPBROADCASTQ lanesBias<>(SB), Y14
	MOVQ    BX, R9
	ANDQ    $15, R9
	NEGQ    R9          // the first row of the first aligned group of 16 cells (≤ 0)

	// pass 2, per group of 16 rows: e (0 outside a lane's range or the rows) into s and tmp, then its sum
sm8group:
	CMPQ R9, CX
	JGE  sm8p2done
	MOVQ tmp+40(FP), DI
	XORQ R10, R10

sm8row:
	LEAQ   (R9)(R10*1), DX
	VXORPS Y8, Y8, Y8
	TESTQ  DX, DX
	JL     sm8store
	CMPQ   DX, CX
	JGE    sm8store
	MOVQ   DX, R11
	SHLQ   $5, R11
	VMOVUPS (SI)(R11*1), Y0
	VSUBPS Y15, Y0, Y0
	VEXP2
	MOVQ   lohi+24(FP), AX
	VMOVDQU (AX), Y10
	VMOVDQU 32(AX), Y11
	LEAQ   (BX)(DX*1), AX
	LANEMASK8(AX, X9, Y9, Y10, Y11, Y7)
	VANDPS Y9, Y8, Y8
	VMOVUPS Y8, (SI)(R11*1)

sm8store:
	VMOVUPS Y8, (DI)
	ADDQ    $32, DI
	INCQ    R10
	CMPQ    R10, $16
	JLT     sm8row

	// Reduce16 of the rows e_0…e_15: t_i = e_i + e_{i+8}, u_i = t_i + t_{i+4}, (u0 + u2) + (u1 + u3)
	MOVQ       tmp+40(FP), DI
	VMOVUPS    0(DI), Y0
	VADDPS     256(DI), Y0, Y0
	VMOVUPS    128(DI), Y4
	VADDPS     384(DI), Y4, Y4
	VADDPS     Y4, Y0, Y0
	VMOVUPS    32(DI), Y1
	VADDPS     288(DI), Y1, Y1
	VMOVUPS    160(DI), Y5
	VADDPS     416(DI), Y5, Y5
	VADDPS     Y5, Y1, Y1
	VMOVUPS    64(DI), Y2
	VADDPS     320(DI), Y2, Y2
	VMOVUPS    192(DI), Y6
	VADDPS     448(DI), Y6, Y6
	VADDPS     Y6, Y2, Y2
	VMOVUPS    96(DI), Y3
	VADDPS     352(DI), Y3, Y3
	VMOVUPS    224(DI), Y7
	VADDPS     480(DI), Y7, Y7
	VADDPS     Y7, Y3, Y3
	VADDPS     Y2, Y0, Y0
	VADDPS     Y3, Y1, Y1
	VADDPS     Y1, Y0, Y0
	VCVTPS2PD  X0, Y1
	VADDPD     512(DI), Y1, Y1
	VMOVUPD    Y1, 512(DI)
	VEXTRACTF128 $1, Y0, X2
	VCVTPS2PD  X2, Y2
	VADDPD     544(DI), Y2, Y2
	VMOVUPD    Y2, 544(DI)
	ADDQ       $16, R9
	JMP        sm8group

sm8p2done:
	// pass 3: the probabilities f16(e·float32(1/sum))
	MOVQ         tmp+40(FP), DI
	VBROADCASTSD lanesOneD<>(SB), Y5
	VDIVPD       512(DI), Y5, Y4
	VDIVPD       544(DI), Y5, Y6
	VCVTPD2PSY   Y4, X4
	VCVTPD2PSY   Y6, X6
	VINSERTF128  $1, X6, Y4, Y4
	MOVQ         SI, R8
	MOVQ         CX, DX
	TESTQ        DX, DX
	JZ           sm8done

sm8p3:
	VMULPS    (R8), Y4, Y0
	VCVTPS2PH $0, Y0, X1
	VCVTPH2PS X1, Y0
	VMOVUPS   Y0, (R8)
	ADDQ      $32, R8
	DECQ      DX
	JNZ       sm8p3

sm8done:
	VZEROUPPER
	RET

// func attnValue8F16(n int, p *float32, pStride int, v *byte, vStride int, vsize int, acc *float32)
//
// For lanes j < 8: acc[j·vsize + d] += p[pStride·c + j]·V_c[d] for c = 0, 1, …, n−1 in order (V_c the vsize
// halves at v + c·vStride; the products of F16 values are exact, so each step is one fused multiply-add).
// vsize is a positive multiple of 8: chunks of 8, each lane's a chain of its own, so that eight chains hide
// the fused multiply-add's latency where a head's values are one chunk. Any lane width (pStride 8 or 16).
TEXT ·attnValue8F16(SB), NOSPLIT, $0-56
	MOVQ vsize+40(FP), BX
	MOVQ acc+48(FP), DI
	MOVQ vStride+32(FP), R13
	MOVQ pStride+16(FP), R12
	SHLQ $2, R12          // p row bytes
	SHLQ $2, BX           // acc row bytes
	LEAQ (BX)(BX*2), R11  // 3 rows
	XORQ R10, R10         // chunk offset (bytes of float32)

v8chunk:
	CMPQ    R10, BX
	JGE     v8done
	LEAQ    (DI)(R10*1), R8   // lanes 0…3
	LEAQ    (R8)(BX*4), R14   // lanes 4…7
	VMOVUPS (R8), Y0
	VMOVUPS (R8)(BX*1), Y1
	VMOVUPS (R8)(BX*2), Y2
	VMOVUPS (R8)(R11*1), Y3
	VMOVUPS (R14), Y4
	VMOVUPS (R14)(BX*1), Y5
	VMOVUPS (R14)(BX*2), Y6
	VMOVUPS (R14)(R11*1), Y7
	MOVQ    p+8(FP), SI
	MOVQ    v+24(FP), R9
	MOVQ    R10, AX
	SHRQ    $1, AX
	ADDQ    AX, R9
	MOVQ    n+0(FP), CX
	TESTQ   CX, CX
	JZ      v8store

v8cell:
	VCVTPH2PS    (R9), Y8
	VBROADCASTSS (SI), Y9
	VBROADCASTSS 4(SI), Y10
	VBROADCASTSS 8(SI), Y11
	VBROADCASTSS 12(SI), Y12
	VFMADD231PS  Y9, Y8, Y0
	VFMADD231PS  Y10, Y8, Y1
	VFMADD231PS  Y11, Y8, Y2
	VFMADD231PS  Y12, Y8, Y3
	VBROADCASTSS 16(SI), Y9
	VBROADCASTSS 20(SI), Y10
	VBROADCASTSS 24(SI), Y11
	VBROADCASTSS 28(SI), Y12
	VFMADD231PS  Y9, Y8, Y4
	VFMADD231PS  Y10, Y8, Y5
	VFMADD231PS  Y11, Y8, Y6
	VFMADD231PS  Y12, Y8, Y7
	ADDQ         R12, SI
	ADDQ         R13, R9
	DECQ         CX
	JNZ          v8cell

v8store:
	VMOVUPS Y0, (R8)
	VMOVUPS Y1, (R8)(BX*1)
	VMOVUPS Y2, (R8)(BX*2)
	VMOVUPS Y3, (R8)(R11*1)
	VMOVUPS Y4, (R14)
	VMOVUPS Y5, (R14)(BX*1)
	VMOVUPS Y6, (R14)(BX*2)
	VMOVUPS Y7, (R14)(R11*1)
	ADDQ    $32, R10
	JMP     v8chunk

v8done:
	VZEROUPPER
	RET

// func attnValue2F16AVX2(n int, p *float32, pStride int, v *byte, vStride int, vsize int, acc *float32, pf int)
//
// For lanes j < 2: acc[j·vsize + d] += p[pStride·c + j]·V_c[d] for c = 0, 1, …, n−1 in order (V_c the vsize halves at
// v + c·vStride; the products of F16 values are exact, so each step is one fused multiply-add), prefetching the
// rows pf bytes on: a decode step's two heads of one KV head, converting each row in registers for both, the
// loads overlapping the multiply-adds (converting a block of rows first and summing from it, as valueBlocks,
// left the prefetches idle while it summed: a decode step's value sums ~30% slower). vsize is a positive
// multiple of 8: chunks of 32, then of 8.
TEXT ·attnValue2F16AVX2(SB), NOSPLIT, $0-64
	MOVQ vsize+40(FP), BX
	MOVQ acc+48(FP), DI
	MOVQ vStride+32(FP), R13
	MOVQ pStride+16(FP), R11
	SHLQ $2, R11         // p row bytes
	SHLQ $2, BX          // acc row bytes
	XORQ R10, R10        // chunk offset (bytes of float32)
	MOVQ pf+56(FP), R12

v2x32:
	LEAQ    128(R10), AX
	CMPQ    AX, BX
	JGT     v2x8
	LEAQ    (DI)(R10*1), R8
	VMOVUPS (R8), Y0
	VMOVUPS 32(R8), Y1
	VMOVUPS 64(R8), Y2
	VMOVUPS 96(R8), Y3
	VMOVUPS (R8)(BX*1), Y4
	VMOVUPS 32(R8)(BX*1), Y5
	VMOVUPS 64(R8)(BX*1), Y6
	VMOVUPS 96(R8)(BX*1), Y7
	MOVQ p+8(FP), SI
	MOVQ v+24(FP), R9
	MOVQ R10, AX
	SHRQ $1, AX
	ADDQ AX, R9
	MOVQ n+0(FP), CX
	TESTQ CX, CX
	JZ    v2x32store

v2x32cell:
	PREFETCHT0   (R9)(R12*1)
	VBROADCASTSS (SI), Y14
	VBROADCASTSS 4(SI), Y15
	VCVTPH2PS    (R9), Y8
	VCVTPH2PS    16(R9), Y9
	VCVTPH2PS    32(R9), Y10
	VCVTPH2PS    48(R9), Y11
	VFMADD231PS  Y14, Y8, Y0
	VFMADD231PS  Y14, Y9, Y1
	VFMADD231PS  Y14, Y10, Y2
	VFMADD231PS  Y14, Y11, Y3
	VFMADD231PS  Y15, Y8, Y4
	VFMADD231PS  Y15, Y9, Y5
	VFMADD231PS  Y15, Y10, Y6
	VFMADD231PS  Y15, Y11, Y7
	ADDQ         R11, SI
	ADDQ         R13, R9
	DECQ         CX
	JNZ          v2x32cell

v2x32store:
	VMOVUPS Y0, (R8)
	VMOVUPS Y1, 32(R8)
	VMOVUPS Y2, 64(R8)
	VMOVUPS Y3, 96(R8)
	VMOVUPS Y4, (R8)(BX*1)
	VMOVUPS Y5, 32(R8)(BX*1)
	VMOVUPS Y6, 64(R8)(BX*1)
	VMOVUPS Y7, 96(R8)(BX*1)
	ADDQ    $128, R10
	JMP     v2x32

v2x8:
	CMPQ    R10, BX
	JGE     v2done
	LEAQ    (DI)(R10*1), R8
	VMOVUPS (R8), Y0
	VMOVUPS (R8)(BX*1), Y4
	MOVQ p+8(FP), SI
	MOVQ v+24(FP), R9
	MOVQ R10, AX
	SHRQ $1, AX
	ADDQ AX, R9
	MOVQ n+0(FP), CX
	TESTQ CX, CX
	JZ    v2x8store

v2x8cell:
	PREFETCHT0   (R9)(R12*1)
	VBROADCASTSS (SI), Y14
	VBROADCASTSS 4(SI), Y15
	VCVTPH2PS    (R9), Y8
	VFMADD231PS  Y14, Y8, Y0
	VFMADD231PS  Y15, Y8, Y4
	ADDQ         R11, SI
	ADDQ         R13, R9
	DECQ         CX
	JNZ          v2x8cell

v2x8store:
	VMOVUPS Y0, (R8)
	VMOVUPS Y4, (R8)(BX*1)
	ADDQ    $32, R10
	JMP     v2x8

v2done:
	VZEROUPPER
	RET

// func attnValue4F32AVX2(n int, p *float32, vbuf *float32, vsize int, acc *float32)
//
// attnValue4F32 (attn_amd64.s) with rows of 8 lanes: acc[j·vsize + d] += p[8c + j]·vbuf[c·vsize + d] for lanes
// j < 4 and c = 0, 1, …, n−1 in order. vsize is a positive multiple of 8: chunks of 16, then of 8.
TEXT ·attnValue4F32AVX2(SB), NOSPLIT, $0-40
	MOVQ vsize+24(FP), BX
	MOVQ acc+32(FP), DI
	SHLQ $2, BX          // acc and vbuf row bytes
	LEAQ (BX)(BX*2), R11 // 3 rows
	XORQ R10, R10        // chunk offset (bytes)

f4x16:
	LEAQ    64(R10), AX
	CMPQ    AX, BX
	JGT     f4x8
	LEAQ    (DI)(R10*1), R8
	VMOVUPS (R8), Y0
	VMOVUPS 32(R8), Y1
	VMOVUPS (R8)(BX*1), Y2
	VMOVUPS 32(R8)(BX*1), Y3
	VMOVUPS (R8)(BX*2), Y4
	VMOVUPS 32(R8)(BX*2), Y5
	VMOVUPS (R8)(R11*1), Y6
	VMOVUPS 32(R8)(R11*1), Y7
	MOVQ    p+8(FP), SI
	MOVQ    vbuf+16(FP), R9
	ADDQ    R10, R9
	MOVQ    n+0(FP), CX
	TESTQ   CX, CX
	JZ      f4x16store

f4x16cell:
	VMOVUPS      (R9), Y8
	VMOVUPS      32(R9), Y9
	VBROADCASTSS (SI), Y10
	VFMADD231PS  Y10, Y8, Y0
	VFMADD231PS  Y10, Y9, Y1
	VBROADCASTSS 4(SI), Y11
	VFMADD231PS  Y11, Y8, Y2
	VFMADD231PS  Y11, Y9, Y3
	VBROADCASTSS 8(SI), Y12
	VFMADD231PS  Y12, Y8, Y4
	VFMADD231PS  Y12, Y9, Y5
	VBROADCASTSS 12(SI), Y13
	VFMADD231PS  Y13, Y8, Y6
	VFMADD231PS  Y13, Y9, Y7
	ADDQ         $32, SI
	ADDQ         BX, R9
	DECQ         CX
	JNZ          f4x16cell

f4x16store:
	VMOVUPS Y0, (R8)
	VMOVUPS Y1, 32(R8)
	VMOVUPS Y2, (R8)(BX*1)
	VMOVUPS Y3, 32(R8)(BX*1)
	VMOVUPS Y4, (R8)(BX*2)
	VMOVUPS Y5, 32(R8)(BX*2)
	VMOVUPS Y6, (R8)(R11*1)
	VMOVUPS Y7, 32(R8)(R11*1)
	ADDQ $64, R10
	JMP  f4x16

f4x8:
	CMPQ    R10, BX
	JGE     f4done
	LEAQ    (DI)(R10*1), R8
	VMOVUPS (R8), Y0
	VMOVUPS (R8)(BX*1), Y2
	VMOVUPS (R8)(BX*2), Y4
	VMOVUPS (R8)(R11*1), Y6
	MOVQ    p+8(FP), SI
	MOVQ    vbuf+16(FP), R9
	ADDQ    R10, R9
	MOVQ    n+0(FP), CX
	TESTQ   CX, CX
	JZ      f4x8store

f4x8cell:
	VMOVUPS      (R9), Y8
	VBROADCASTSS (SI), Y10
	VFMADD231PS  Y10, Y8, Y0
	VBROADCASTSS 4(SI), Y11
	VFMADD231PS  Y11, Y8, Y2
	VBROADCASTSS 8(SI), Y12
	VFMADD231PS  Y12, Y8, Y4
	VBROADCASTSS 12(SI), Y13
	VFMADD231PS  Y13, Y8, Y6
	ADDQ         $32, SI
	ADDQ         BX, R9
	DECQ         CX
	JNZ          f4x8cell

f4x8store:
	VMOVUPS Y0, (R8)
	VMOVUPS Y2, (R8)(BX*1)
	VMOVUPS Y4, (R8)(BX*2)
	VMOVUPS Y6, (R8)(R11*1)

f4done:
	VZEROUPPER
	RET

// func cvtRowsF16(n int, v *byte, vStride int, vsize int, dst *float32, pf int)
//
// dst[c·vsize + d] = V_c[d] for c < n and d < vsize (V_c the vsize halves at v + c·vStride), prefetching each
// row's successor pf bytes on (prefetch_amd64.h). vsize is a positive multiple of 8. AVX2 and F16C.
TEXT ·cvtRowsF16(SB), NOSPLIT, $0-48
	MOVQ  n+0(FP), CX
	MOVQ  v+8(FP), SI
	MOVQ  vStride+16(FP), R13
	MOVQ  vsize+24(FP), BX
	MOVQ  dst+32(FP), DI
	MOVQ  pf+40(FP), R12
	SHLQ  $1, BX // row bytes
	TESTQ CX, CX
	JZ    cvdone

cvrow:
	LEAQ (SI)(R12*1), R10
	PREFETCHROW(R10, BX, AX, R12, cvpf, cvpfdone)
	XORQ AX, AX

cvconv:
	VCVTPH2PS (SI)(AX*1), Y0
	VMOVUPS   Y0, (DI)(AX*2)
	ADDQ      $16, AX
	CMPQ      AX, BX
	JLT       cvconv
	ADDQ      R13, SI
	LEAQ      (DI)(BX*2), DI
	DECQ      CX
	JNZ       cvrow

cvdone:
	VZEROUPPER
	RET
