//go:build amd64 && !noasm

#include "textflag.h"
#include "vexp_amd64.h"

// Attention over an F16 KV cache with 16 query lanes (AVX-512, hand-written): lane l of every vector is one
// (query, head) pair, and each lane performs exactly the float operations of attnStep.head for its pair, in
// the same order, so the results are bit-identical (see attention_lanes.go). Scores rows are 16 floats, one
// per lane; row r is cell c0 + r.

// func attnScoresF16(size int, qT *float32, k *byte, kStride int, n int, s *float32, kbuf *float32)
//
// s[16c + l] = Σ_d qT[16d + l]·K_c[d] for c < n, the sum in order of d starting from 0 (the products of
// F16 values are exact, so each step is one fused multiply-add), K_c the size halves at k + c·kStride.
// size is positive; kbuf holds 8·size floats (cells converted to float32). A row's last size mod 16 halves
// are converted under the mask K2 (masked loads do not fault on the elements they skip).
TEXT ·attnScoresF16(SB), NOSPLIT, $0-56
	MOVQ  size+0(FP), BX
	MOVQ  k+16(FP), SI
	MOVQ  kStride+24(FP), R13
	MOVQ  BX, CX
	ANDQ  $15, CX
	MOVQ  $1, AX
	SHLQ  CX, AX
	DECQ  AX
	KMOVW AX, K2 // the lanes of a partial last chunk
	MOVQ  n+32(FP), CX
	MOVQ s+40(FP), DI
	MOVQ BX, R12
	SHLQ $2, R12          // R12 = bytes of a converted row
	LEAQ (R12)(R12*2), R11 // R11 = 3 rows

sc8:
	CMPQ CX, $8
	JLT  sc1
	// convert 8 cells into kbuf rows 0…7
	MOVQ kbuf+48(FP), R8
	MOVQ SI, R9
	MOVQ $8, DX

scconv:
	XORQ AX, AX

scconvrow:
	LEAQ      64(AX)(AX*1), R10 // float bytes converted after this chunk
	CMPQ      R10, R12
	JGT       scconvtail
	VCVTPH2PS (R9)(AX*1), Z8
	VMOVUPS   Z8, (R8)(AX*2)
	ADDQ      $32, AX
	CMPQ      R10, R12
	JLT       scconvrow
	JMP       scconvnext

scconvtail:
	VCVTPH2PS.Z (R9)(AX*1), K2, Z8
	VMOVUPS     Z8, K2, (R8)(AX*2)

scconvnext:
	ADDQ R13, R9
	ADDQ      R12, R8
	DECQ      DX
	JNZ       scconv

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	MOVQ   kbuf+48(FP), R8 // row 0 of element d
	LEAQ   (R8)(R12*4), R9 // row 4
	MOVQ   qT+8(FP), R10
	MOVQ   BX, DX

scd:
	VMOVUPS          (R10), Z8
	VFMADD231PS.BCST (R8), Z8, Z0
	VFMADD231PS.BCST (R8)(R12*1), Z8, Z1
	VFMADD231PS.BCST (R8)(R12*2), Z8, Z2
	VFMADD231PS.BCST (R8)(R11*1), Z8, Z3
	VFMADD231PS.BCST (R9), Z8, Z4
	VFMADD231PS.BCST (R9)(R12*1), Z8, Z5
	VFMADD231PS.BCST (R9)(R12*2), Z8, Z6
	VFMADD231PS.BCST (R9)(R11*1), Z8, Z7
	ADDQ             $64, R10
	ADDQ             $4, R8
	ADDQ             $4, R9
	DECQ             DX
	JNZ              scd

	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	ADDQ    $512, DI
	LEAQ    (SI)(R13*8), SI
	SUBQ    $8, CX
	JMP     sc8

sc1:
	TESTQ CX, CX
	JZ    scdone
	MOVQ  kbuf+48(FP), R8
	XORQ  AX, AX

sc1conv:
	LEAQ      64(AX)(AX*1), R10
	CMPQ      R10, R12
	JGT       sc1convtail
	VCVTPH2PS (SI)(AX*1), Z8
	VMOVUPS   Z8, (R8)(AX*2)
	ADDQ      $32, AX
	CMPQ      R10, R12
	JLT       sc1conv
	JMP       sc1convdone

sc1convtail:
	VCVTPH2PS.Z (SI)(AX*1), K2, Z8
	VMOVUPS     Z8, K2, (R8)(AX*2)

sc1convdone:

	VPXORD Z0, Z0, Z0
	MOVQ   qT+8(FP), R10
	MOVQ   BX, DX

sc1d:
	VMOVUPS          (R10), Z8
	VFMADD231PS.BCST (R8), Z8, Z0
	ADDQ             $64, R10
	ADDQ             $4, R8
	DECQ             DX
	JNZ              sc1d
	VMOVUPS          Z0, (DI)
	ADDQ             $64, DI
	ADDQ             R13, SI
	DECQ             CX
	JMP              sc1

scdone:
	VZEROUPPER
	RET

DATA attnOneD<>+0(SB)/8, $0x3ff0000000000000
GLOBL attnOneD<>(SB), RODATA|NOPTR, $8

// LANEMASK sets K3 to the lanes whose range [lo (Z10), hi (Z11)) holds cell R (a general register);
// clobbers Z9.
#define LANEMASK(R) \
	VPBROADCASTD R, Z9         \
	VPCMPD       $5, Z10, Z9, K3 \
	VPCMPD       $1, Z11, Z9, K3, K3

// func attnSoftmaxF16(n int, s *float32, c0 int, lohi *int32, scale float32, tmp *float32)
//
// The softmax of attnStep.head for 16 lanes at once, over score rows s (row r is cell c0 + r, r < n); lane
// l takes part in row r iff lohi[l] ≤ c0 + r < lohi[16 + l]. In place: s = s·scale; m = the lanes' maxima;
// e = vexpf(s − m) (0 outside a lane's range); the sum of e per aligned group of 16 cells as
// _mm512_reduce_add_ps (quant.Reduce16), those added in float64; then every e becomes f16(e·float32(1/sum)).
// tmp holds 16×16 floats.
TEXT ·attnSoftmaxF16(SB), NOSPLIT, $0-48
	MOVQ         n+0(FP), CX
	MOVQ         s+8(FP), SI
	MOVQ         c0+16(FP), BX
	MOVQ         lohi+24(FP), AX
	VMOVDQU32    (AX), Z10
	VMOVDQU32    64(AX), Z11
	VBROADCASTSS scale+32(FP), Z12
	VBROADCASTSS VX_INF, Z13
	VXORPS.BCST  VX_SIGN, Z13, Z13 // m = −Inf

	// pass 1: scale, lane maxima
	MOVQ SI, R8
	XORQ DX, DX

smp1:
	CMPQ    DX, CX
	JGE     smp1done
	LEAQ    (BX)(DX*1), AX
	LANEMASK(AX)
	VMULPS  (R8), Z12, Z8
	VMOVUPS Z8, (R8)
	VMAXPS  Z8, Z13, K3, Z13
	ADDQ    $64, R8
	INCQ    DX
	JMP     smp1

smp1done:
	// pass 2: exponentials and the sums per aligned group of 16 cells
	VXORPD Z14, Z14, Z14
	VXORPD Z15, Z15, Z15
	MOVQ   BX, R9
	ANDQ   $15, R9
	NEGQ   R9 // R9 = first row of the group (≤ 0)

smgroup:
	CMPQ R9, CX
	JGE  smp2done
	MOVQ tmp+40(FP), DI
	XORQ R10, R10

smrow:
	LEAQ   (R9)(R10*1), DX // row
	VPXORD Z8, Z8, Z8
	TESTQ  DX, DX
	JL     smstore
	CMPQ   DX, CX
	JGE    smstore
	MOVQ   DX, R11
	SHLQ   $6, R11
	VMOVUPS (SI)(R11*1), Z0
	VSUBPS  Z13, Z0, Z0
	VEXP(smbig, smexpdone)
	LEAQ    (BX)(DX*1), AX
	LANEMASK(AX)
	VMOVAPS Z0, K3, Z8
	VMOVUPS Z8, (SI)(R11*1)

smstore:
	VMOVUPS Z8, (DI)
	ADDQ    $64, DI
	INCQ    R10
	CMPQ    R10, $16
	JLT     smrow

	// the group's 16 rows: t_i = e_i + e_{i+8}, u_i = t_i + t_{i+4}, (u0 + u2) + (u1 + u3)
	MOVQ    tmp+40(FP), DI
	VMOVUPS 0(DI), Z16
	VADDPS  512(DI), Z16, Z16
	VMOVUPS 64(DI), Z17
	VADDPS  576(DI), Z17, Z17
	VMOVUPS 128(DI), Z18
	VADDPS  640(DI), Z18, Z18
	VMOVUPS 192(DI), Z19
	VADDPS  704(DI), Z19, Z19
	VMOVUPS 256(DI), Z20
	VADDPS  768(DI), Z20, Z20
	VMOVUPS 320(DI), Z21
	VADDPS  832(DI), Z21, Z21
	VMOVUPS 384(DI), Z22
	VADDPS  896(DI), Z22, Z22
	VMOVUPS 448(DI), Z23
	VADDPS  960(DI), Z23, Z23
	VADDPS  Z20, Z16, Z16
	VADDPS  Z21, Z17, Z17
	VADDPS  Z22, Z18, Z18
	VADDPS  Z23, Z19, Z19
	VADDPS  Z18, Z16, Z16
	VADDPS  Z19, Z17, Z17
	VADDPS  Z17, Z16, Z16
	VCVTPS2PD     Y16, Z24
	VADDPD        Z24, Z14, Z14
	VEXTRACTF32X8 $1, Z16, Y25
	VCVTPS2PD     Y25, Z25
	VADDPD        Z25, Z15, Z15
	ADDQ          $16, R9
	JMP           smgroup

smp2done:
	// pass 3: p = f16(e·float32(1/sum))
	VBROADCASTSD  attnOneD<>(SB), Z24
	VDIVPD        Z14, Z24, Z14
	VDIVPD        Z15, Z24, Z15
	VCVTPD2PS     Z14, Y14
	VCVTPD2PS     Z15, Y15
	VINSERTF32X8  $1, Y15, Z14, Z14
	MOVQ          SI, R8
	MOVQ          CX, DX
	TESTQ         DX, DX
	JZ            smdone

smp3:
	VMULPS    (R8), Z14, Z0
	VCVTPS2PH $0, Z0, Y1
	VCVTPH2PS Y1, Z0
	VMOVUPS   Z0, (R8)
	ADDQ      $64, R8
	DECQ      DX
	JNZ       smp3

smdone:
	VZEROUPPER
	RET

smbig:
	VEXPBIG(smexpdone)

// CHUNKMASK sets K1 to the lanes of the value chunk at float byte R10 of a BX-byte row: all 16, or the
// vsize mod 16 of a partial last chunk (masked loads do not fault on the elements they skip). Clobbers AX
// and CX.
#define CHUNKMASK \
	MOVQ  BX, CX    \
	SUBQ  R10, CX   \
	SHRQ  $2, CX    \
	MOVQ  $0xffff, AX \
	CMPQ  CX, $16   \
	JGE   4(PC)     \
	MOVQ  $1, AX    \
	SHLQ  CX, AX    \
	DECQ  AX        \
	KMOVW AX, K1

// func attnValue4F16(n int, p *float32, v *byte, vStride int, vsize int, acc *float32)
//
// For lanes j < 4: acc[j·vsize + d] += p[16c + j]·V_c[d] for c = 0, 1, …, n−1 in order (V_c the vsize halves
// at v + c·vStride; the products of F16 values are exact, so each step is one fused multiply-add). vsize is
// positive; a partial last chunk of 16 is masked.
TEXT ·attnValue4F16(SB), NOSPLIT, $0-48
	MOVQ vsize+32(FP), BX
	MOVQ acc+40(FP), DI
	MOVQ vStride+24(FP), R13
	SHLQ $2, BX            // acc row bytes
	LEAQ (BX)(BX*2), R11   // 3 rows
	XORQ R10, R10          // chunk offset (bytes of float32)

v4chunk:
	CMPQ      R10, BX
	JGE       v4done
	CHUNKMASK
	LEAQ      (DI)(R10*1), R8
	VMOVUPS.Z (R8), K1, Z0
	VMOVUPS.Z (R8)(BX*1), K1, Z1
	VMOVUPS.Z (R8)(BX*2), K1, Z2
	VMOVUPS.Z (R8)(R11*1), K1, Z3
	MOVQ    p+8(FP), SI
	MOVQ    v+16(FP), R9
	MOVQ    R10, AX
	SHRQ    $1, AX
	ADDQ    AX, R9
	MOVQ    n+0(FP), CX
	TESTQ   CX, CX
	JZ      v4store

v4cell:
	VCVTPH2PS.Z      (R9), K1, Z4
	VFMADD231PS.BCST 0(SI), Z4, Z0
	VFMADD231PS.BCST 4(SI), Z4, Z1
	VFMADD231PS.BCST 8(SI), Z4, Z2
	VFMADD231PS.BCST 12(SI), Z4, Z3
	ADDQ             $64, SI
	ADDQ             R13, R9
	DECQ             CX
	JNZ              v4cell

v4store:
	VMOVUPS Z0, K1, (R8)
	VMOVUPS Z1, K1, (R8)(BX*1)
	VMOVUPS Z2, K1, (R8)(BX*2)
	VMOVUPS Z3, K1, (R8)(R11*1)
	ADDQ    $64, R10
	JMP     v4chunk

v4done:
	VZEROUPPER
	RET

// func attnValue1F16(n int, p *float32, v *byte, vStride int, vsize int, acc *float32)
//
// attnValue4F16 for one lane (p[16c]), four chunks of 16 at a time where there are four.
TEXT ·attnValue1F16(SB), NOSPLIT, $0-48
	MOVQ vsize+32(FP), BX
	MOVQ acc+40(FP), DI
	MOVQ vStride+24(FP), R13
	SHLQ $2, BX
	XORQ R10, R10

v1chunk4:
	LEAQ    256(R10), AX
	CMPQ    AX, BX
	JGT     v1chunk1
	VMOVUPS (DI)(R10*1), Z0
	VMOVUPS 64(DI)(R10*1), Z1
	VMOVUPS 128(DI)(R10*1), Z2
	VMOVUPS 192(DI)(R10*1), Z3
	MOVQ    p+8(FP), SI
	MOVQ    v+16(FP), R9
	MOVQ    R10, AX
	SHRQ    $1, AX
	ADDQ    AX, R9
	MOVQ    n+0(FP), CX
	TESTQ   CX, CX
	JZ      v1store4

v1cell4:
	VBROADCASTSS (SI), Z8
	VCVTPH2PS    (R9), Z4
	VCVTPH2PS    32(R9), Z5
	VCVTPH2PS    64(R9), Z6
	VCVTPH2PS    96(R9), Z7
	VFMADD231PS  Z8, Z4, Z0
	VFMADD231PS  Z8, Z5, Z1
	VFMADD231PS  Z8, Z6, Z2
	VFMADD231PS  Z8, Z7, Z3
	ADDQ         $64, SI
	ADDQ         R13, R9
	DECQ         CX
	JNZ          v1cell4

v1store4:
	VMOVUPS Z0, (DI)(R10*1)
	VMOVUPS Z1, 64(DI)(R10*1)
	VMOVUPS Z2, 128(DI)(R10*1)
	VMOVUPS Z3, 192(DI)(R10*1)
	ADDQ    $256, R10
	JMP     v1chunk4

v1chunk1:
	CMPQ      R10, BX
	JGE       v1done
	CHUNKMASK
	VMOVUPS.Z (DI)(R10*1), K1, Z0
	MOVQ    p+8(FP), SI
	MOVQ    v+16(FP), R9
	MOVQ    R10, AX
	SHRQ    $1, AX
	ADDQ    AX, R9
	MOVQ    n+0(FP), CX
	TESTQ   CX, CX
	JZ      v1store1

v1cell1:
	VCVTPH2PS.Z      (R9), K1, Z4
	VFMADD231PS.BCST (SI), Z4, Z0
	ADDQ             $64, SI
	ADDQ             R13, R9
	DECQ             CX
	JNZ              v1cell1

v1store1:
	VMOVUPS Z0, K1, (DI)(R10*1)
	ADDQ    $64, R10
	JMP     v1chunk1

v1done:
	VZEROUPPER
	RET

// func attnScoresF16Y(size int, qT *float32, k *byte, kStride int, n int, s *float32, kbuf *float32)
//
// attnScoresF16 for lanes 0…7 only (s rows keep their 16 floats; lanes 8…15 are not written): the
// multiply-adds in 256-bit registers, for blocks of at most 8 lanes (a decode step's heads of one KV head),
// where Zen 4 runs them at twice the rate of 512-bit ones. The keys are converted as there.
TEXT ·attnScoresF16Y(SB), NOSPLIT, $0-56
	MOVQ  size+0(FP), BX
	MOVQ  k+16(FP), SI
	MOVQ  kStride+24(FP), R13
	MOVQ  BX, CX
	ANDQ  $15, CX
	MOVQ  $1, AX
	SHLQ  CX, AX
	DECQ  AX
	KMOVW AX, K2 // the lanes of a partial last chunk
	MOVQ  n+32(FP), CX
	MOVQ s+40(FP), DI
	MOVQ BX, R12
	SHLQ $2, R12          // R12 = bytes of a converted row
	LEAQ (R12)(R12*2), R11 // R11 = 3 rows

ysc8:
	CMPQ CX, $8
	JLT  ysc1
	// convert 8 cells into kbuf rows 0…7
	MOVQ kbuf+48(FP), R8
	MOVQ SI, R9
	MOVQ $8, DX

yscconv:
	XORQ AX, AX

yscconvrow:
	LEAQ      64(AX)(AX*1), R10 // float bytes converted after this chunk
	CMPQ      R10, R12
	JGT       yscconvtail
	VCVTPH2PS (R9)(AX*1), Z8
	VMOVUPS   Z8, (R8)(AX*2)
	ADDQ      $32, AX
	CMPQ      R10, R12
	JLT       yscconvrow
	JMP       yscconvnext

yscconvtail:
	VCVTPH2PS.Z (R9)(AX*1), K2, Z8
	VMOVUPS     Z8, K2, (R8)(AX*2)

yscconvnext:
	ADDQ R13, R9
	ADDQ      R12, R8
	DECQ      DX
	JNZ       yscconv

	VPXORD Y0, Y0, Y0
	VPXORD Y1, Y1, Y1
	VPXORD Y2, Y2, Y2
	VPXORD Y3, Y3, Y3
	VPXORD Y4, Y4, Y4
	VPXORD Y5, Y5, Y5
	VPXORD Y6, Y6, Y6
	VPXORD Y7, Y7, Y7
	MOVQ   kbuf+48(FP), R8 // row 0 of element d
	LEAQ   (R8)(R12*4), R9 // row 4
	MOVQ   qT+8(FP), R10
	MOVQ   BX, DX

yscd:
	VMOVUPS          (R10), Y8
	VFMADD231PS.BCST (R8), Y8, Y0
	VFMADD231PS.BCST (R8)(R12*1), Y8, Y1
	VFMADD231PS.BCST (R8)(R12*2), Y8, Y2
	VFMADD231PS.BCST (R8)(R11*1), Y8, Y3
	VFMADD231PS.BCST (R9), Y8, Y4
	VFMADD231PS.BCST (R9)(R12*1), Y8, Y5
	VFMADD231PS.BCST (R9)(R12*2), Y8, Y6
	VFMADD231PS.BCST (R9)(R11*1), Y8, Y7
	ADDQ             $64, R10
	ADDQ             $4, R8
	ADDQ             $4, R9
	DECQ             DX
	JNZ              yscd

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 64(DI)
	VMOVUPS Y2, 128(DI)
	VMOVUPS Y3, 192(DI)
	VMOVUPS Y4, 256(DI)
	VMOVUPS Y5, 320(DI)
	VMOVUPS Y6, 384(DI)
	VMOVUPS Y7, 448(DI)
	ADDQ    $512, DI
	LEAQ    (SI)(R13*8), SI
	SUBQ    $8, CX
	JMP     ysc8

ysc1:
	TESTQ CX, CX
	JZ    yscdone
	MOVQ  kbuf+48(FP), R8
	XORQ  AX, AX

ysc1conv:
	LEAQ      64(AX)(AX*1), R10
	CMPQ      R10, R12
	JGT       ysc1convtail
	VCVTPH2PS (SI)(AX*1), Z8
	VMOVUPS   Z8, (R8)(AX*2)
	ADDQ      $32, AX
	CMPQ      R10, R12
	JLT       ysc1conv
	JMP       ysc1convdone

ysc1convtail:
	VCVTPH2PS.Z (SI)(AX*1), K2, Z8
	VMOVUPS     Z8, K2, (R8)(AX*2)

ysc1convdone:

	VPXORD Y0, Y0, Y0
	MOVQ   qT+8(FP), R10
	MOVQ   BX, DX

ysc1d:
	VMOVUPS          (R10), Y8
	VFMADD231PS.BCST (R8), Y8, Y0
	ADDQ             $64, R10
	ADDQ             $4, R8
	DECQ             DX
	JNZ              ysc1d
	VMOVUPS          Y0, (DI)
	ADDQ             $64, DI
	ADDQ             R13, SI
	DECQ             CX
	JMP              ysc1

yscdone:
	VZEROUPPER
	RET

// VEXPY is VEXP on the 8 lanes of Y0 (the same operations, 256-bit); clobbers Y1…Y7, K1, K2.
#define VEXPY(big, done) \
	VBROADCASTSS      VX_SHIFT, Y1      \
	VFMADD231PS.BCST  VX_LOG2E, Y0, Y1  \
	VSUBPS.BCST       VX_SHIFT, Y1, Y2  \
	VMOVAPS           Y0, Y3            \
	VFNMADD231PS.BCST VX_LN2HI, Y2, Y3  \
	VFNMADD231PS.BCST VX_LN2LO, Y2, Y3  \
	VMULPS            Y3, Y3, Y4        \
	VBROADCASTSS      VX_C4, Y5         \
	VFMADD231PS.BCST  VX_C5, Y3, Y5     \
	VBROADCASTSS      VX_C2, Y6         \
	VFMADD231PS.BCST  VX_C3, Y3, Y6     \
	VFMADD213PS       Y6, Y4, Y5        \
	VBROADCASTSS      VX_ONE, Y7        \
	VFMADD231PS.BCST  VX_C1, Y3, Y7     \
	VFMADD213PS       Y7, Y4, Y5        \
	VSCALEFPS         Y2, Y5, Y0        \
	VANDPS.BCST       VX_ABS, Y2, Y6    \
	VCMPPS.BCST       $0x1e, VX_192, Y6, K1 \
	KORTESTW          K1, K1            \
	JNZ               big               \
done:

// VEXPBIGY is VEXPBIG on Y0 (Y2 = n).
#define VEXPBIGY(done) \
	VXORPS       Y6, Y6, Y6            \
	VMOVAPS      Y6, K1, Y0            \
	VCMPPS       $0x1e, Y6, Y2, K1, K2 \
	VBROADCASTSS VX_INF, K2, Y0        \
	JMP          done

// LANEMASKY is LANEMASK for lanes 0…7 (lo in Y10, hi in Y11); clobbers Y9.
#define LANEMASKY(R) \
	VPBROADCASTD R, Y9           \
	VPCMPD       $5, Y10, Y9, K3 \
	VPCMPD       $1, Y11, Y9, K3, K3

// func attnSoftmaxF16Y(n int, s *float32, c0 int, lohi *int32, scale float32, tmp *float32)
//
// attnSoftmaxF16 for lanes 0…7 only (the score rows keep their 16 floats; lanes 8…15 are not read or
// written), in 256-bit registers: each lane's operations are the same, the group sums of 16 cells included.
TEXT ·attnSoftmaxF16Y(SB), NOSPLIT, $0-48
	MOVQ         n+0(FP), CX
	MOVQ         s+8(FP), SI
	MOVQ         c0+16(FP), BX
	MOVQ         lohi+24(FP), AX
	VMOVDQU32    (AX), Y10
	VMOVDQU32    64(AX), Y11
	VBROADCASTSS scale+32(FP), Y12
	VBROADCASTSS VX_INF, Y13
	VXORPS.BCST  VX_SIGN, Y13, Y13 // m = −Inf

	// pass 1: scale, lane maxima
	MOVQ SI, R8
	XORQ DX, DX

syp1:
	CMPQ      DX, CX
	JGE       syp1done
	LEAQ      (BX)(DX*1), AX
	LANEMASKY(AX)
	VMULPS    (R8), Y12, Y8
	VMOVUPS   Y8, (R8)
	VMAXPS    Y8, Y13, K3, Y13
	ADDQ      $64, R8
	INCQ      DX
	JMP       syp1

syp1done:
	// pass 2: exponentials and the sums per aligned group of 16 cells
	VXORPD Z14, Z14, Z14
	MOVQ   BX, R9
	ANDQ   $15, R9
	NEGQ   R9 // R9 = first row of the group (≤ 0)

sygroup:
	CMPQ R9, CX
	JGE  syp2done
	MOVQ tmp+40(FP), DI
	XORQ R10, R10

syrow:
	LEAQ    (R9)(R10*1), DX // row
	VPXORD  Y8, Y8, Y8
	TESTQ   DX, DX
	JL      systore
	CMPQ    DX, CX
	JGE     systore
	MOVQ    DX, R11
	SHLQ    $6, R11
	VMOVUPS (SI)(R11*1), Y0
	VSUBPS  Y13, Y0, Y0
	VEXPY(sybig, syexpdone)
	LEAQ      (BX)(DX*1), AX
	LANEMASKY(AX)
	VMOVAPS   Y0, K3, Y8
	VMOVUPS   Y8, (SI)(R11*1)

systore:
	VMOVUPS Y8, (DI)
	ADDQ    $64, DI
	INCQ    R10
	CMPQ    R10, $16
	JLT     syrow

	// the group's 16 rows: t_i = e_i + e_{i+8}, u_i = t_i + t_{i+4}, (u0 + u2) + (u1 + u3)
	MOVQ      tmp+40(FP), DI
	VMOVUPS   0(DI), Y16
	VADDPS    512(DI), Y16, Y16
	VMOVUPS   64(DI), Y17
	VADDPS    576(DI), Y17, Y17
	VMOVUPS   128(DI), Y18
	VADDPS    640(DI), Y18, Y18
	VMOVUPS   192(DI), Y19
	VADDPS    704(DI), Y19, Y19
	VMOVUPS   256(DI), Y20
	VADDPS    768(DI), Y20, Y20
	VMOVUPS   320(DI), Y21
	VADDPS    832(DI), Y21, Y21
	VMOVUPS   384(DI), Y22
	VADDPS    896(DI), Y22, Y22
	VMOVUPS   448(DI), Y23
	VADDPS    960(DI), Y23, Y23
	VADDPS    Y20, Y16, Y16
	VADDPS    Y21, Y17, Y17
	VADDPS    Y22, Y18, Y18
	VADDPS    Y23, Y19, Y19
	VADDPS    Y18, Y16, Y16
	VADDPS    Y19, Y17, Y17
	VADDPS    Y17, Y16, Y16
	VCVTPS2PD Y16, Z24
	VADDPD    Z24, Z14, Z14
	ADDQ      $16, R9
	JMP       sygroup

syp2done:
	// pass 3: p = f16(e·float32(1/sum))
	VBROADCASTSD attnOneD<>(SB), Z24
	VDIVPD       Z14, Z24, Z14
	VCVTPD2PS    Z14, Y14
	MOVQ         SI, R8
	MOVQ         CX, DX
	TESTQ        DX, DX
	JZ           sydone

syp3:
	VMULPS    (R8), Y14, Y0
	VCVTPS2PH $0, Y0, X1
	VCVTPH2PS X1, Y0
	VMOVUPS   Y0, (R8)
	ADDQ      $64, R8
	DECQ      DX
	JNZ       syp3

sydone:
	VZEROUPPER
	RET

sybig:
	VEXPBIGY(syexpdone)
