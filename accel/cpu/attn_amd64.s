//go:build amd64 && !noasm

#include "textflag.h"
#include "vexp_amd64.h"
#include "prefetch_amd64.h"

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
// KCONVROW converts the key row at SRC (size halves, R12 = its bytes as float32) to float32 at R8: whole
// chunks of 16, then a partial last one: of 8 in 256-bit registers (heads of 8), else under the mask K2. The
// multiply-adds broadcast from the row next: a load from a masked store waits for it to complete, where one
// from a plain store takes the stored value (on Zen 5 a pass of stories260K's attention with the masked store
// took 5–10% longer, depending on where the workspace lay).
#define KCONVROW(SRC, loop, tail, masked, done) \
	XORQ        AX, AX                 \
loop:                                      \
	LEAQ        64(AX)(AX*1), R10      \
	CMPQ        R10, R12               \
	JGT         tail                   \
	VCVTPH2PS   (SRC)(AX*1), Z8        \
	VMOVUPS     Z8, (R8)(AX*2)         \
	ADDQ        $32, AX                \
	CMPQ        R10, R12               \
	JLT         loop                   \
	JMP         done                   \
tail:                                      \
	SUBQ        $32, R10               \
	CMPQ        R10, R12               \
	JNE         masked                 \
	VCVTPH2PS   (SRC)(AX*1), Y8        \
	VMOVUPS     Y8, (R8)(AX*2)         \
	JMP         done                   \
masked:                                    \
	VCVTPH2PS.Z (SRC)(AX*1), K2, Z8    \
	VMOVUPS     Z8, K2, (R8)(AX*2)     \
done:

// SCSETUP loads the arguments: BX = size, SI = k, R13 = kStride, K2 = the lanes of a partial last chunk,
// CX = n, DI = s, R12 = bytes of a converted row, R11 = 3 rows, R14 = bytes of a key row, R15 = the
// prefetch distance.
#define SCSETUP \
	MOVQ  size+0(FP), BX     \
	MOVQ  k+16(FP), SI       \
	MOVQ  kStride+24(FP), R13 \
	MOVQ  BX, CX             \
	ANDQ  $15, CX            \
	MOVQ  $1, AX             \
	SHLQ  CX, AX             \
	DECQ  AX                 \
	KMOVW AX, K2             \
	MOVQ  n+32(FP), CX       \
	MOVQ  s+40(FP), DI       \
	MOVQ  BX, R12            \
	SHLQ  $2, R12            \
	LEAQ  (R12)(R12*2), R11  \
	LEAQ  (BX)(BX*1), R14    \
	MOVQ  pf+56(FP), R15

// SCD8 adds element d of the 8 converted cells (rows at R8 and R9 = R8 + 4 rows) times q's lanes (Q, from
// R10) into the cells' lanes V0…V7, for every d.
#define SCD8(loop, Q, V0, V1, V2, V3, V4, V5, V6, V7) \
	MOVQ             kbuf+48(FP), R8          \
	LEAQ             (R8)(R12*4), R9          \
	MOVQ             qT+8(FP), R10            \
	MOVQ             BX, DX                   \
loop:                                             \
	VMOVUPS          (R10), Q                 \
	VFMADD231PS.BCST (R8), Q, V0              \
	VFMADD231PS.BCST (R8)(R12*1), Q, V1       \
	VFMADD231PS.BCST (R8)(R12*2), Q, V2       \
	VFMADD231PS.BCST (R8)(R11*1), Q, V3       \
	VFMADD231PS.BCST (R9), Q, V4              \
	VFMADD231PS.BCST (R9)(R12*1), Q, V5       \
	VFMADD231PS.BCST (R9)(R12*2), Q, V6       \
	VFMADD231PS.BCST (R9)(R11*1), Q, V7       \
	ADDQ             $64, R10                 \
	ADDQ             $4, R8                   \
	ADDQ             $4, R9                   \
	DECQ             DX                       \
	JNZ              loop                     \
	VMOVUPS          V0, (DI)                 \
	VMOVUPS          V1, 64(DI)               \
	VMOVUPS          V2, 128(DI)              \
	VMOVUPS          V3, 192(DI)              \
	VMOVUPS          V4, 256(DI)              \
	VMOVUPS          V5, 320(DI)              \
	VMOVUPS          V6, 384(DI)              \
	VMOVUPS          V7, 448(DI)

// SCD1 is SCD8 for one cell (its converted row at R8) into V0.
#define SCD1(loop, Q, V0) \
	MOVQ             qT+8(FP), R10 \
	MOVQ             BX, DX        \
loop:                                  \
	VMOVUPS          (R10), Q      \
	VFMADD231PS.BCST (R8), Q, V0   \
	ADDQ             $64, R10      \
	ADDQ             $4, R8        \
	DECQ             DX            \
	JNZ              loop          \
	VMOVUPS          V0, (DI)

// CONV8 converts the 8 cells from SI into kbuf rows 0…7, prefetching the rows 16 cells on.
#define CONV8(next, pfloop, pfdone, loop, tail, masked, done) \
	MOVQ kbuf+48(FP), R8              \
	MOVQ SI, R9                       \
	MOVQ $8, DX                       \
next:                                     \
	LEAQ (R9)(R15*1), R10             \
	PREFETCHROW(R10, R14, AX, R15, pfloop, pfdone) \
	KCONVROW(R9, loop, tail, masked, done) \
	ADDQ R13, R9                      \
	ADDQ R12, R8                      \
	DECQ DX                           \
	JNZ  next

TEXT ·attnScoresF16(SB), NOSPLIT, $0-64
	SCSETUP

sc8:
	CMPQ   CX, $8
	JLT    sc1
	CONV8(scconv, scpf, scpfdone, scconvrow, scconvtail, scconvmask, scconvnext)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	SCD8(scd, Z8, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	ADDQ   $512, DI
	LEAQ   (SI)(R13*8), SI
	SUBQ   $8, CX
	JMP    sc8

sc1:
	TESTQ  CX, CX
	JZ     scdone
	MOVQ   kbuf+48(FP), R8
	KCONVROW(SI, sc1conv, sc1convtail, sc1convmask, sc1convdone)
	VPXORD Z0, Z0, Z0
	MOVQ   kbuf+48(FP), R8
	SCD1(sc1d, Z8, Z0)
	ADDQ   $64, DI
	ADDQ   R13, SI
	DECQ   CX
	JMP    sc1

scdone:
	VZEROUPPER
	RET

// func attnScoresF16Y(size int, qT *float32, k *byte, kStride int, n int, s *float32, kbuf *float32)
//
// attnScoresF16 for lanes 0…7 only (s rows keep their 16 floats; lanes 8…15 are not written): the
// multiply-adds in 256-bit registers, for blocks of at most 8 lanes (a decode step's heads of one KV head),
// where Zen 4 runs them at twice the rate of 512-bit ones. The keys are converted as there.
TEXT ·attnScoresF16Y(SB), NOSPLIT, $0-64
	SCSETUP

ysc8:
	CMPQ   CX, $8
	JLT    ysc1
	CONV8(yscconv, yscpf, yscpfdone, yscconvrow, yscconvtail, yscconvmask, yscconvnext)
	VPXORD Y0, Y0, Y0
	VPXORD Y1, Y1, Y1
	VPXORD Y2, Y2, Y2
	VPXORD Y3, Y3, Y3
	VPXORD Y4, Y4, Y4
	VPXORD Y5, Y5, Y5
	VPXORD Y6, Y6, Y6
	VPXORD Y7, Y7, Y7
	SCD8(yscd, Y8, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	ADDQ   $512, DI
	LEAQ   (SI)(R13*8), SI
	SUBQ   $8, CX
	JMP    ysc8

ysc1:
	TESTQ  CX, CX
	JZ     yscdone
	MOVQ   kbuf+48(FP), R8
	KCONVROW(SI, ysc1conv, ysc1convtail, ysc1convmask, ysc1convdone)
	VPXORD Y0, Y0, Y0
	MOVQ   kbuf+48(FP), R8
	SCD1(ysc1d, Y8, Y0)
	ADDQ   $64, DI
	ADDQ   R13, SI
	DECQ   CX
	JMP    ysc1

yscdone:
	VZEROUPPER
	RET

DATA attnOneD<>+0(SB)/8, $0x3ff0000000000000
GLOBL attnOneD<>(SB), RODATA|NOPTR, $8

// LANEMASK sets K3 to the lanes whose range [lo (V10), hi (V11)) holds cell R (a general register);
// clobbers V9. V is the register file: Z (16 lanes) or Y (lanes 0…7).
#define LANEMASK(R, V9, V10, V11) \
	VPBROADCASTD R, V9           \
	VPCMPD       $5, V10, V9, K3 \
	VPCMPD       $1, V11, V9, K3, K3

// SMSETUP loads the arguments of a softmax kernel: CX = n, SI = s, BX = c0, V10/V11 = the lanes' lo and hi,
// V12 = scale, V13 = −Inf (the maxima).
#define SMSETUP(V10, V11, V12, V13) \
	MOVQ         n+0(FP), CX       \
	MOVQ         s+8(FP), SI       \
	MOVQ         c0+16(FP), BX     \
	MOVQ         lohi+24(FP), AX   \
	VMOVDQU32    (AX), V10         \
	VMOVDQU32    64(AX), V11       \
	VBROADCASTSS scale+32(FP), V12 \
	VBROADCASTSS VX_INF, V13       \
	VXORPS.BCST  VX_SIGN, V13, V13

// SMPASS1 scales every row and takes the lanes' maxima (V13); then R9 = the first row of the first aligned
// group of 16 cells (≤ 0).
#define SMPASS1(loop, done, V8, V9, V10, V11, V12, V13) \
	MOVQ    SI, R8                  \
	XORQ    DX, DX                  \
loop:                                   \
	CMPQ    DX, CX                  \
	JGE     done                    \
	LEAQ    (BX)(DX*1), AX          \
	LANEMASK(AX, V9, V10, V11)      \
	VMULPS  (R8), V12, V8           \
	VMOVUPS V8, (R8)                \
	VMAXPS  V8, V13, K3, V13        \
	ADDQ    $64, R8                 \
	INCQ    DX                      \
	JMP     loop                    \
done:                                   \
	MOVQ    BX, R9                  \
	ANDQ    $15, R9                 \
	NEGQ    R9

// SMGROUP replaces the scores of the group's 16 rows (from R9) by e = vexpf(s − m) (0 outside a lane's
// range or the rows) and writes them to tmp's rows too; V0…V7 as VEXPV's, V8 the row's e.
#define SMGROUP(row, store, big, expdone, V0, V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V13) \
	MOVQ    tmp+40(FP), DI          \
	XORQ    R10, R10                \
row:                                    \
	LEAQ    (R9)(R10*1), DX         \
	VPXORD  V8, V8, V8              \
	TESTQ   DX, DX                  \
	JL      store                   \
	CMPQ    DX, CX                  \
	JGE     store                   \
	MOVQ    DX, R11                 \
	SHLQ    $6, R11                 \
	VMOVUPS (SI)(R11*1), V0         \
	VSUBPS  V13, V0, V0             \
	VEXPV(V0, V1, V2, V3, V4, V5, V6, V7, big, expdone) \
	LEAQ    (BX)(DX*1), AX          \
	LANEMASK(AX, V9, V10, V11)      \
	VMOVAPS V0, K3, V8              \
	VMOVUPS V8, (SI)(R11*1)         \
store:                                  \
	VMOVUPS V8, (DI)                \
	ADDQ    $64, DI                 \
	INCQ    R10                     \
	CMPQ    R10, $16                \
	JLT     row

// SMTREE leaves in V16 the lanes' sums of tmp's 16 rows as Reduce16 adds them: t_i = e_i + e_{i+8},
// u_i = t_i + t_{i+4}, (u0 + u2) + (u1 + u3).
#define SMTREE(V16, V17, V18, V19, V20, V21, V22, V23) \
	MOVQ    tmp+40(FP), DI          \
	VMOVUPS 0(DI), V16              \
	VADDPS  512(DI), V16, V16       \
	VMOVUPS 64(DI), V17             \
	VADDPS  576(DI), V17, V17       \
	VMOVUPS 128(DI), V18            \
	VADDPS  640(DI), V18, V18       \
	VMOVUPS 192(DI), V19            \
	VADDPS  704(DI), V19, V19       \
	VMOVUPS 256(DI), V20            \
	VADDPS  768(DI), V20, V20       \
	VMOVUPS 320(DI), V21            \
	VADDPS  832(DI), V21, V21       \
	VMOVUPS 384(DI), V22            \
	VADDPS  896(DI), V22, V22       \
	VMOVUPS 448(DI), V23            \
	VADDPS  960(DI), V23, V23       \
	VADDPS  V20, V16, V16           \
	VADDPS  V21, V17, V17           \
	VADDPS  V22, V18, V18           \
	VADDPS  V23, V19, V19           \
	VADDPS  V18, V16, V16           \
	VADDPS  V19, V17, V17           \
	VADDPS  V17, V16, V16

// SMPASS3 rounds every row's e·V14 (V14 = float32(1/sum) per lane) to F16: the probabilities.
#define SMPASS3(loop, done, V0, X1, V14) \
	MOVQ      SI, R8          \
	MOVQ      CX, DX          \
	TESTQ     DX, DX          \
	JZ        done            \
loop:                             \
	VMULPS    (R8), V14, V0   \
	VCVTPS2PH $0, V0, X1      \
	VCVTPH2PS X1, V0          \
	VMOVUPS   V0, (R8)        \
	ADDQ      $64, R8         \
	DECQ      DX              \
	JNZ       loop            \
done:

// func attnSoftmaxF16(n int, s *float32, c0 int, lohi *int32, scale float32, tmp *float32)
//
// The softmax of attnStep.head for 16 lanes at once, over score rows s (row r is cell c0 + r, r < n); lane
// l takes part in row r iff lohi[l] ≤ c0 + r < lohi[16 + l]. In place: s = s·scale; m = the lanes' maxima;
// e = vexpf(s − m) (0 outside a lane's range); the sum of e per aligned group of 16 cells as
// _mm512_reduce_add_ps (quant.Reduce16), those added in float64; then every e becomes f16(e·float32(1/sum)).
// tmp holds 16×16 floats.
TEXT ·attnSoftmaxF16(SB), NOSPLIT, $0-48
	SMSETUP(Z10, Z11, Z12, Z13)
	SMPASS1(smp1, smp1done, Z8, Z9, Z10, Z11, Z12, Z13)
	VXORPD Z14, Z14, Z14 // the sums of lanes 0…7 and 8…15, float64
	VXORPD Z15, Z15, Z15

smgroup:
	CMPQ          R9, CX
	JGE           smp2done
	SMGROUP(smrow, smstore, smbig, smexpdone, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z13)
	SMTREE(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23)
	VCVTPS2PD     Y16, Z24
	VADDPD        Z24, Z14, Z14
	VEXTRACTF32X8 $1, Z16, Y25
	VCVTPS2PD     Y25, Z25
	VADDPD        Z25, Z15, Z15
	ADDQ          $16, R9
	JMP           smgroup

smp2done:
	VBROADCASTSD attnOneD<>(SB), Z24
	VDIVPD       Z14, Z24, Z14
	VDIVPD       Z15, Z24, Z15
	VCVTPD2PS    Z14, Y14
	VCVTPD2PS    Z15, Y15
	VINSERTF32X8 $1, Y15, Z14, Z14
	SMPASS3(smp3, smdone, Z0, Y1, Z14)
	VZEROUPPER
	RET

smbig:
	VEXPBIG(smexpdone)

// func attnSoftmaxF16Y(n int, s *float32, c0 int, lohi *int32, scale float32, tmp *float32)
//
// attnSoftmaxF16 for lanes 0…7 only (the score rows keep their 16 floats; lanes 8…15 are not read or
// written), in 256-bit registers: each lane's operations are the same, the group sums of 16 cells included.
TEXT ·attnSoftmaxF16Y(SB), NOSPLIT, $0-48
	SMSETUP(Y10, Y11, Y12, Y13)
	SMPASS1(syp1, syp1done, Y8, Y9, Y10, Y11, Y12, Y13)
	VXORPD Z14, Z14, Z14 // the sums of lanes 0…7, float64

sygroup:
	CMPQ      R9, CX
	JGE       syp2done
	SMGROUP(syrow, systore, sybig, syexpdone, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y13)
	SMTREE(Y16, Y17, Y18, Y19, Y20, Y21, Y22, Y23)
	VCVTPS2PD Y16, Z24
	VADDPD    Z24, Z14, Z14
	ADDQ      $16, R9
	JMP       sygroup

syp2done:
	VBROADCASTSD attnOneD<>(SB), Z24
	VDIVPD       Z14, Z24, Z14
	VCVTPD2PS    Z14, Y14
	SMPASS3(syp3, sydone, Y0, X1, Y14)
	VZEROUPPER
	RET

sybig:
	VEXPBIGV(Y0, Y2, Y6, syexpdone)

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

// func attnValue16T(n int, p *float32, v *byte, vStride int, accT *float32, vbuf *float32)
//
// For lanes j < 16 and values d < 8: accT[16d + j] += p[16c + j]·V_c[d] for c = 0, 1, …, n−1 in order (V_c the
// 8 halves at v + c·vStride): attnValue8F16's sums for heads of 8 values, all sixteen lanes in one pass with
// the accumulators transposed, a register of lanes per value (one fused multiply-add per lane and value, in
// cell order, as there). The values of up to 64 cells at a time are converted into vbuf (512 floats) first,
// to be broadcast from there (a broadcast of a value stored just before waits for the store).
TEXT ·attnValue16T(SB), NOSPLIT, $0-48
	MOVQ    n+0(FP), CX
	MOVQ    p+8(FP), SI
	MOVQ    v+16(FP), R9
	MOVQ    vStride+24(FP), R13
	MOVQ    accT+32(FP), DI
	MOVQ    vbuf+40(FP), R8
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS 128(DI), Z2
	VMOVUPS 192(DI), Z3
	VMOVUPS 256(DI), Z4
	VMOVUPS 320(DI), Z5
	VMOVUPS 384(DI), Z6
	VMOVUPS 448(DI), Z7

v16chunk:
	TESTQ CX, CX
	JZ    v16store
	MOVQ  $64, DX
	CMPQ  CX, DX
	CMOVQLT CX, DX
	SUBQ  DX, CX
	MOVQ  DX, AX
	MOVQ  R8, R10

v16conv:
	VCVTPH2PS (R9), Y8
	VMOVUPS   Y8, (R10)
	ADDQ      R13, R9
	ADDQ      $32, R10
	DECQ      AX
	JNZ       v16conv
	MOVQ      R8, R10

v16cell:
	VMOVUPS          (SI), Z9
	VFMADD231PS.BCST (R10), Z9, Z0
	VFMADD231PS.BCST 4(R10), Z9, Z1
	VFMADD231PS.BCST 8(R10), Z9, Z2
	VFMADD231PS.BCST 12(R10), Z9, Z3
	VFMADD231PS.BCST 16(R10), Z9, Z4
	VFMADD231PS.BCST 20(R10), Z9, Z5
	VFMADD231PS.BCST 24(R10), Z9, Z6
	VFMADD231PS.BCST 28(R10), Z9, Z7
	ADDQ             $64, SI
	ADDQ             $32, R10
	DECQ             DX
	JNZ              v16cell
	JMP              v16chunk

v16store:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, 256(DI)
	VMOVUPS Z5, 320(DI)
	VMOVUPS Z6, 384(DI)
	VMOVUPS Z7, 448(DI)
	VZEROUPPER
	RET

// func attnUntranspose16T(accT, acc *float32)
//
// acc[8l + d] = accT[16d + l] for l < 16, d < 8: value16T's transposed accumulators back to a row of 8 values
// per lane. Each half of the registers (lanes 0…7, 8…15) is an 8×8 transpose: pairs unpacked, quads shuffled,
// then the 128-bit quarters brought together.
TEXT ·attnUntranspose16T(SB), NOSPLIT, $0-16
	MOVQ          accT+0(FP), SI
	MOVQ          acc+8(FP), DI
	VMOVUPS       (SI), Z0
	VMOVUPS       64(SI), Z1
	VMOVUPS       128(SI), Z2
	VMOVUPS       192(SI), Z3
	VMOVUPS       256(SI), Z4
	VMOVUPS       320(SI), Z5
	VMOVUPS       384(SI), Z6
	VMOVUPS       448(SI), Z7
	VUNPCKLPS     Z1, Z0, Z8  // r0[0] r1[0] r0[1] r1[1] in each quarter
	VUNPCKHPS     Z1, Z0, Z9  // r0[2] r1[2] r0[3] r1[3]
	VUNPCKLPS     Z3, Z2, Z10
	VUNPCKHPS     Z3, Z2, Z11
	VUNPCKLPS     Z5, Z4, Z12
	VUNPCKHPS     Z5, Z4, Z13
	VUNPCKLPS     Z7, Z6, Z14
	VUNPCKHPS     Z7, Z6, Z15
	VSHUFPS       $0x44, Z10, Z8, Z0 // r0…r3 of element 0 of each quarter
	VSHUFPS       $0xee, Z10, Z8, Z1 // of element 1
	VSHUFPS       $0x44, Z11, Z9, Z2 // 2
	VSHUFPS       $0xee, Z11, Z9, Z3 // 3
	VSHUFPS       $0x44, Z14, Z12, Z4 // r4…r7 of element 0
	VSHUFPS       $0xee, Z14, Z12, Z5
	VSHUFPS       $0x44, Z15, Z13, Z6
	VSHUFPS       $0xee, Z15, Z13, Z7
	// lane q·4 + e of quarter q: Z(e) holds r0…r3, Z(4+e) r4…r7; lane l = 4q + e for the quarters q = 0…3
	VSHUFF32X4    $0x88, Z4, Z0, Z8 // quarters 0, 2 of r0…r3 then of r4…r7
	VSHUFF32X4    $0xdd, Z4, Z0, Z9 // quarters 1, 3
	VSHUFF32X4    $0x88, Z5, Z1, Z10
	VSHUFF32X4    $0xdd, Z5, Z1, Z11
	VSHUFF32X4    $0x88, Z6, Z2, Z12
	VSHUFF32X4    $0xdd, Z6, Z2, Z13
	VSHUFF32X4    $0x88, Z7, Z3, Z14
	VSHUFF32X4    $0xdd, Z7, Z3, Z15
	VSHUFF32X4    $0xd8, Z8, Z8, Z8 // quarters (0 of r0…3, 0 of r4…7, 2 of r0…3, 2 of r4…7): lanes 0 and 8
	VSHUFF32X4    $0xd8, Z9, Z9, Z9 // lanes 4 and 12
	VSHUFF32X4    $0xd8, Z10, Z10, Z10 // lanes 1 and 9
	VSHUFF32X4    $0xd8, Z11, Z11, Z11 // lanes 5 and 13
	VSHUFF32X4    $0xd8, Z12, Z12, Z12 // lanes 2 and 10
	VSHUFF32X4    $0xd8, Z13, Z13, Z13 // lanes 6 and 14
	VSHUFF32X4    $0xd8, Z14, Z14, Z14 // lanes 3 and 11
	VSHUFF32X4    $0xd8, Z15, Z15, Z15 // lanes 7 and 15
	VMOVUPS       Y8, (DI)
	VEXTRACTF32X8 $1, Z8, 256(DI)
	VMOVUPS       Y10, 32(DI)
	VEXTRACTF32X8 $1, Z10, 288(DI)
	VMOVUPS       Y12, 64(DI)
	VEXTRACTF32X8 $1, Z12, 320(DI)
	VMOVUPS       Y14, 96(DI)
	VEXTRACTF32X8 $1, Z14, 352(DI)
	VMOVUPS       Y9, 128(DI)
	VEXTRACTF32X8 $1, Z9, 384(DI)
	VMOVUPS       Y11, 160(DI)
	VEXTRACTF32X8 $1, Z11, 416(DI)
	VMOVUPS       Y13, 192(DI)
	VEXTRACTF32X8 $1, Z13, 448(DI)
	VMOVUPS       Y15, 224(DI)
	VEXTRACTF32X8 $1, Z15, 480(DI)
	VZEROUPPER
	RET

// func attnValue4F32(n int, p *float32, vbuf *float32, vsize int, acc *float32)
//
// For lanes j < 4: acc[j·vsize + d] += p[16c + j]·vbuf[c·vsize + d] for c = 0, 1, …, n−1 in order, vbuf the
// value rows converted to float32 (cvtRowsF16; the products of F16 values are exact, so each step is one fused
// multiply-add). vsize is positive; a partial last chunk of 16 is masked.
TEXT ·attnValue4F32(SB), NOSPLIT, $0-40
	MOVQ vsize+24(FP), BX
	MOVQ acc+32(FP), DI
	SHLQ $2, BX            // acc and vbuf row bytes
	LEAQ (BX)(BX*2), R11   // 3 rows
	XORQ R10, R10          // chunk offset (bytes)

f4chunk:
	CMPQ      R10, BX
	JGE       f4done
	CHUNKMASK
	LEAQ      (DI)(R10*1), R8
	VMOVUPS.Z (R8), K1, Z0
	VMOVUPS.Z (R8)(BX*1), K1, Z1
	VMOVUPS.Z (R8)(BX*2), K1, Z2
	VMOVUPS.Z (R8)(R11*1), K1, Z3
	MOVQ      p+8(FP), SI
	MOVQ      vbuf+16(FP), R9
	ADDQ      R10, R9
	MOVQ      n+0(FP), CX
	TESTQ     CX, CX
	JZ        f4store

f4cell:
	VMOVUPS.Z        (R9), K1, Z4
	VFMADD231PS.BCST 0(SI), Z4, Z0
	VFMADD231PS.BCST 4(SI), Z4, Z1
	VFMADD231PS.BCST 8(SI), Z4, Z2
	VFMADD231PS.BCST 12(SI), Z4, Z3
	ADDQ             $64, SI
	ADDQ             BX, R9
	DECQ             CX
	JNZ              f4cell

f4store:
	VMOVUPS Z0, K1, (R8)
	VMOVUPS Z1, K1, (R8)(BX*1)
	VMOVUPS Z2, K1, (R8)(BX*2)
	VMOVUPS Z3, K1, (R8)(R11*1)
	ADDQ    $64, R10
	JMP     f4chunk

f4done:
	VZEROUPPER
	RET
