//go:build amd64 && !noasm

#include "textflag.h"

// Kernels on stored Q4_Kx16 groups (gemm_stored_k4.go, quants in Q8_K's order) for CPUs with AVX2 but without
// AVX-512 VNNI: lane r of a 256-bit register is row 8h+r of half h. Per pair of groups (2i, 2i+1) and quant
// dword t, the low nibbles of stored dword 8i+t (group 2i, elements 4t…4t+3) and the high ones (group 2i+1)
// are multiplied with the broadcast activation dwords by VPMADDUBSW and summed over t into int16 pairs
// (16 products, |16·15·128| < 2¹⁵). VPMADDWD with the group's 6-bit scale in both halves of each lane then
// gives the exact int32 scale·Σq·y, and VPMADDWD of the minimums with Q8_KW's bsum pairs the minimum term:
// the reference's integers, then DotQ4_KQ8_KRepacked's float work lane by lane.

// k4Shuf: VPSHUFB masks that put the scale byte of row 8h+r (of a group's 16) in both int16 halves of lane r,
// for half 0 and half 1.
DATA k4Shuf<>+0(SB)/8, $0x8001800180008000
DATA k4Shuf<>+8(SB)/8, $0x8003800380028002
DATA k4Shuf<>+16(SB)/8, $0x8005800580048004
DATA k4Shuf<>+24(SB)/8, $0x8007800780068006
DATA k4Shuf<>+32(SB)/8, $0x8009800980088008
DATA k4Shuf<>+40(SB)/8, $0x800b800b800a800a
DATA k4Shuf<>+48(SB)/8, $0x800d800d800c800c
DATA k4Shuf<>+56(SB)/8, $0x800f800f800e800e
GLOBL k4Shuf<>(SB), RODATA|NOPTR, $64

// KSETUP: Y15 the nibble mask, Y14 the scale shuffle of half DX/16.
#define KSETUP \
	MOVL         $0x0f0f0f0f, AX     \
	MOVD         AX, X15             \
	VPBROADCASTD X15, Y15            \
	LEAQ         k4Shuf<>(SB), AX    \
	VMOVDQU      (AX)(DX*2), Y14

// KC adds the products of the unpacked nibbles in Y8 (group 2i) and Y9 (group 2i+1) with the column at R's
// quant dwords at lo and hi (pair offset BX) into the int16 pairs IL and IH.
#define KC(R, lo, hi, IL, IH) \
	VPBROADCASTD lo(R)(BX*1), Y10 \
	VPMADDUBSW   Y10, Y8, Y10     \
	VPADDW       Y10, IL, IL      \
	VPBROADCASTD hi(R)(BX*1), Y10 \
	VPMADDUBSW   Y10, Y9, Y10     \
	VPADDW       Y10, IH, IH

// KW loads stored quant dword 8i+t (at wo from R12, the half at DX·2) and splits its nibbles into Y8, Y9.
#define KW(wo) \
	VMOVDQU wo(R12)(DX*2), Y8 \
	VPSRLW  $4, Y8, Y9        \
	VPAND   Y15, Y8, Y8       \
	VPAND   Y15, Y9, Y9

#define KT4(wo, lo, hi) \
	KW(wo)                       \
	KC(R8, lo, hi, Y0, Y4)       \
	KC(R9, lo, hi, Y1, Y5)       \
	KC(R10, lo, hi, Y2, Y6)      \
	KC(R11, lo, hi, Y3, Y7)

// KPAIR loads the pair's scales (Y11: group 2i, Y12: group 2i+1, in both int16 halves of each lane) and
// minimum pairs (Y13) from R13.
#define KPAIR \
	VBROADCASTI128 (R13), Y11          \
	VPSHUFB        Y14, Y11, Y11       \
	VBROADCASTI128 16(R13), Y12        \
	VPSHUFB        Y14, Y12, Y12       \
	VPMOVZXBW      128(R13)(DX*1), Y13

// KFIN4 adds the pair of the column at R (IL, IH) into its accumulators in the work area at DI: acc (with dd)
// and accMin (with dm).
#define KFIN4(R, IL, IH, acc, dd, amin, dm) \
	VPMADDWD     Y11, IL, IL            \
	VPMADDWD     Y12, IH, IH            \
	VPADDD       IH, IL, IL             \
	VCVTDQ2PS    IL, IL                 \
	VMOVUPS      acc(DI), Y8            \
	VFMADD231PS  dd(DI), IL, Y8         \
	VMOVUPS      Y8, acc(DI)            \
	VPBROADCASTD 296(R)(R14*1), Y9      \
	VPMADDWD     Y9, Y13, Y9            \
	VCVTDQ2PS    Y9, Y9                 \
	VMOVUPS      amin(DI), Y10          \
	VFMADD231PS  dm(DI), Y9, Y10        \
	VMOVUPS      Y10, amin(DI)

// KSCALE stores the column at R's dd = d·yd and dm = dmin·yd (d in Y8, dmin in Y9) in the work area.
#define KSCALE(R, dd, dm) \
	VBROADCASTSS (R), Y10        \
	VMULPS       Y10, Y8, Y11    \
	VMOVUPS      Y11, dd(DI)     \
	VMULPS       Y10, Y9, Y11    \
	VMOVUPS      Y11, dm(DI)

// func gemm4Q4KxAVX2(nb int, p, a *byte, aStride, half int, out, work *float32)
//
// Reference: DotQ4_KQ8_KRepacked for the 8 rows of half half/16 of one stored group (nb super-blocks at p)
// and the 4 Q8_KW columns at a, aStride bytes apart; out[16c+r] is column c, row r (of the half). work
// (128 floats) holds the columns' accumulators and scales: acc at 32c, accMin at 128+32c, dd at 256+32c,
// dm at 384+32c (bytes).
TEXT ·gemm4Q4KxAVX2(SB), NOSPLIT, $0-56
	MOVQ  nb+0(FP), CX
	MOVQ  p+8(FP), SI
	MOVQ  a+16(FP), R8
	MOVQ  aStride+24(FP), BX
	MOVQ  half+32(FP), DX
	MOVQ  work+48(FP), DI
	LEAQ  (R8)(BX*1), R9
	LEAQ  (R9)(BX*1), R10
	LEAQ  (R10)(BX*1), R11
	KSETUP
	VPXOR Y0, Y0, Y0
	MOVQ  $0, AX

k4x4zero:
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, $256
	JB      k4x4zero

k4x4block:
	VCVTPH2PS (SI)(DX*1), Y8
	VCVTPH2PS 32(SI)(DX*1), Y9
	KSCALE(R8, 256, 384)
	KSCALE(R9, 288, 416)
	KSCALE(R10, 320, 448)
	KSCALE(R11, 352, 480)
	LEAQ      320(SI), R12
	LEAQ      64(SI), R13
	XORQ      BX, BX
	XORQ      R14, R14
	MOVQ      $4, AX

k4x4pair:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	KT4(0, 4, 36)
	KT4(64, 8, 40)
	KT4(128, 12, 44)
	KT4(192, 16, 48)
	KT4(256, 20, 52)
	KT4(320, 24, 56)
	KT4(384, 28, 60)
	KT4(448, 32, 64)
	KPAIR
	KFIN4(R8, Y0, Y4, 0, 256, 128, 384)
	KFIN4(R9, Y1, Y5, 32, 288, 160, 416)
	KFIN4(R10, Y2, Y6, 64, 320, 192, 448)
	KFIN4(R11, Y3, Y7, 96, 352, 224, 480)
	ADDQ  $512, R12
	ADDQ  $32, R13
	ADDQ  $64, BX
	ADDQ  $4, R14
	DECQ  AX
	JNZ   k4x4pair

	ADDQ $2368, SI
	ADDQ $832, R8
	ADDQ $832, R9
	ADDQ $832, R10
	ADDQ $832, R11
	DECQ CX
	JNZ  k4x4block

	MOVQ    out+40(FP), AX
	VMOVUPS (DI), Y0
	VSUBPS  128(DI), Y0, Y0
	VMOVUPS Y0, (AX)
	VMOVUPS 32(DI), Y1
	VSUBPS  160(DI), Y1, Y1
	VMOVUPS Y1, 64(AX)
	VMOVUPS 64(DI), Y2
	VSUBPS  192(DI), Y2, Y2
	VMOVUPS Y2, 128(AX)
	VMOVUPS 96(DI), Y3
	VSUBPS  224(DI), Y3, Y3
	VMOVUPS Y3, 192(AX)
	VZEROUPPER
	RET

// K16PFD is gemv16Q4KxAVX2's prefetch distance: 2 stored super-blocks.
#define K16PFD 4736

// KH adds the products of stored dword half h's nibbles (at wo from R12) with the broadcast activation dwords
// Y10 (group 2i) and Y11 (group 2i+1) into the half's int16 pairs IL and IH. The low nibbles are masked
// straight from memory, the high ones masked in place (VPANDN) and shifted down: no bits cross the bytes.
#define KH(wo, IL, IH) \
	VPAND      wo(R12), Y15, Y8 \
	VPANDN     wo(R12), Y15, Y9 \
	VPSRLW     $4, Y9, Y9       \
	VPMADDUBSW Y10, Y8, Y8      \
	VPADDW     Y8, IL, IL       \
	VPMADDUBSW Y11, Y9, Y9      \
	VPADDW     Y9, IH, IH

// KT16 adds stored dword 8i+t (at wo from R12) of both halves: the activation dwords at lo and hi are
// broadcast once for the 16 rows.
#define KT16(wo, lo, hi) \
	PREFETCHT0   K16PFD+wo(R12)    \
	VPBROADCASTD lo(R8)(BX*1), Y10 \
	VPBROADCASTD hi(R8)(BX*1), Y11 \
	KH(wo, Y4, Y5)                 \
	KH(wo+32, Y6, Y7)

// KS16 puts group 2i's scales (of the pair at R13) for half h in both int16 halves of each lane of SL,
// group 2i+1's in SH, from the broadcasts Y12 and Y14 (shuffle at sh(R9)), and scales IL and IH with them
// into int32 sums: IL = IL·SL + IH·SH.
#define KS16(sh, SL, SH, IL, IH) \
	VPSHUFB  sh(R9), Y12, SL \
	VPSHUFB  sh(R9), Y14, SH \
	VPMADDWD SL, IL, IL      \
	VPMADDWD SH, IH, IH      \
	VPADDD   IH, IL, IL

// KF16 finishes the pair for half h (int32 sums IL; minimum pairs at mo(R13); dd, dm in the work area at DI;
// accumulators ACC, ACCMIN): the reference's float steps per pair, acc = fma(float32(sum), dd, acc) and
// accMin = fma(float32(mins), dm, accMin).
#define KF16(IL, mo, dd, dm, ACC, ACCMIN) \
	VCVTDQ2PS   IL, IL           \
	VFMADD231PS dd(DI), IL, ACC  \
	VPMOVZXBW   mo(R13), Y8      \
	VPMADDWD    Y13, Y8, Y8      \
	VCVTDQ2PS   Y8, Y8           \
	VFMADD231PS dm(DI), Y8, ACCMIN

// KDD stores d·yd (dd) and dmin·yd (dm) of the 8 rows whose f16 d is at do(SI) (dmin 32 bytes on); Y10
// holds yd.
#define KDD(do, dd, dm) \
	VCVTPH2PS do(SI), Y8      \
	VMULPS    Y10, Y8, Y8     \
	VMOVUPS   Y8, dd(DI)      \
	VCVTPH2PS do+32(SI), Y8   \
	VMULPS    Y10, Y8, Y8     \
	VMOVUPS   Y8, dm(DI)

// func gemv16Q4KxAVX2(nb int, p, a *byte, out, work *float32)
//
// Reference: DotQ4_KQ8_KRepacked for the 16 rows of one stored group (nb super-blocks at p) and the Q8_KW
// column at a; out[r] is row r. Both halves of each stored dword line (rows 0…7 and 8…15) are read in one
// pass, each activation dword is broadcast once for the 16 rows, and the stream is prefetched K16PFD ahead.
// The accumulators stay in Y0, Y1 (acc of half 0, 1) and Y2, Y3 (accMin); work (32 floats) holds dd and dm.
TEXT ·gemv16Q4KxAVX2(SB), NOSPLIT, $0-40
	MOVQ         nb+0(FP), CX
	MOVQ         p+8(FP), SI
	MOVQ         a+16(FP), R8
	MOVQ         work+32(FP), DI
	MOVL         $0x0f0f0f0f, AX
	MOVD         AX, X15
	VPBROADCASTD X15, Y15
	LEAQ         k4Shuf<>(SB), R9
	VPXOR        Y0, Y0, Y0
	VPXOR        Y1, Y1, Y1
	VPXOR        Y2, Y2, Y2
	VPXOR        Y3, Y3, Y3

k16block:
	PREFETCHT0   K16PFD(SI)
	PREFETCHT0   K16PFD+64(SI)
	PREFETCHT0   K16PFD+128(SI)
	PREFETCHT0   K16PFD+192(SI)
	PREFETCHT0   K16PFD+256(SI)
	VBROADCASTSS (R8), Y10
	KDD(0, 0, 64)
	KDD(16, 32, 96)
	LEAQ         320(SI), R12
	LEAQ         64(SI), R13
	XORQ         BX, BX
	XORQ         R14, R14
	MOVQ         $4, AX

k16pair:
	VPXOR        Y4, Y4, Y4
	VPXOR        Y5, Y5, Y5
	VPXOR        Y6, Y6, Y6
	VPXOR        Y7, Y7, Y7
	KT16(0, 4, 36)
	KT16(64, 8, 40)
	KT16(128, 12, 44)
	KT16(192, 16, 48)
	KT16(256, 20, 52)
	KT16(320, 24, 56)
	KT16(384, 28, 60)
	KT16(448, 32, 64)
	VPBROADCASTD   296(R8)(R14*1), Y13
	VBROADCASTI128 (R13), Y12
	VBROADCASTI128 16(R13), Y14
	KS16(0, Y8, Y9, Y4, Y5)
	KS16(32, Y10, Y11, Y6, Y7)
	KF16(Y4, 128, 0, 64, Y0, Y2)
	KF16(Y6, 144, 32, 96, Y1, Y3)
	ADDQ         $512, R12
	ADDQ         $32, R13
	ADDQ         $64, BX
	ADDQ         $4, R14
	DECQ         AX
	JNZ          k16pair

	ADDQ $2368, SI
	ADDQ $832, R8
	DECQ CX
	JNZ  k16block

	MOVQ    out+24(FP), AX
	VSUBPS  Y2, Y0, Y0
	VMOVUPS Y0, (AX)
	VSUBPS  Y3, Y1, Y1
	VMOVUPS Y1, 32(AX)
	VZEROUPPER
	RET
