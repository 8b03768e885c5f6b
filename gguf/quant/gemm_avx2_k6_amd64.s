//go:build amd64 && !noasm

#include "go_asm.h"
#include "textflag.h"

// Kernels on stored Q6_Kx16 groups (gemm_k6.go) for CPUs with AVX2 but without AVX-512 VNNI: lane r of a
// 256-bit register is row 8h+r of half h of the group. Per super-block and integer lane m of DotQ6_KQ8_K,
// the kernels start the lane at −32·(scale·bsum of groups 2m and 2m+1) (VPMADDWD of the −32·scale pair with
// Q8_K's bsum pair), unpack each quarter's unsigned 6-bit quants (0…63), multiply them with the broadcast
// activation dword (VPMADDUBSW: two products a word, |2·63·128| < 2¹⁵, so no saturation), multiply-add the
// words with the quarter's scale in both words of a dword (VPMADDWD: the exact int32 scale·Σq·y) and add
// them into the lane; then fuse the lane into its float32 accumulator, acc = fma(d·yd, lane, acc). The
// integer sums are exact, so the lane is the reference's; the caller adds the eight accumulators as
// hsum_float_8.

DATA k6a3F<>+0(SB)/8, $0x3f3f3f3f3f3f3f3f
DATA k6a3F<>+8(SB)/8, $0x3f3f3f3f3f3f3f3f
DATA k6a3F<>+16(SB)/8, $0x3f3f3f3f3f3f3f3f
DATA k6a3F<>+24(SB)/8, $0x3f3f3f3f3f3f3f3f
GLOBL k6a3F<>(SB), RODATA|NOPTR, $32
DATA k6aC0<>+0(SB)/8, $0xc0c0c0c0c0c0c0c0
DATA k6aC0<>+8(SB)/8, $0xc0c0c0c0c0c0c0c0
DATA k6aC0<>+16(SB)/8, $0xc0c0c0c0c0c0c0c0
DATA k6aC0<>+24(SB)/8, $0xc0c0c0c0c0c0c0c0
GLOBL k6aC0<>(SB), RODATA|NOPTR, $32
DATA k6aM32<>+0(SB)/8, $0xffe0ffe0ffe0ffe0
DATA k6aM32<>+8(SB)/8, $0xffe0ffe0ffe0ffe0
DATA k6aM32<>+16(SB)/8, $0xffe0ffe0ffe0ffe0
DATA k6aM32<>+24(SB)/8, $0xffe0ffe0ffe0ffe0
GLOBL k6aM32<>(SB), RODATA|NOPTR, $32

// k6aDup: VPSHUFB masks that put word 0 (k6aDup+0) or word 1 (k6aDup+32) of every dword in both its words.
DATA k6aDup<>+0(SB)/8, $0x0504050401000100
DATA k6aDup<>+8(SB)/8, $0x0d0c0d0c09080908
DATA k6aDup<>+16(SB)/8, $0x0504050401000100
DATA k6aDup<>+24(SB)/8, $0x0d0c0d0c09080908
DATA k6aDup<>+32(SB)/8, $0x0706070603020302
DATA k6aDup<>+40(SB)/8, $0x0f0e0f0e0b0a0b0a
DATA k6aDup<>+48(SB)/8, $0x0706070603020302
DATA k6aDup<>+56(SB)/8, $0x0f0e0f0e0b0a0b0a
GLOBL k6aDup<>(SB), RODATA|NOPTR, $64

// k6aCorr: for t = 0 (at 0) and t = 1 (at 64), VPSHUFB masks that move word t of every dword to word 0
// (first mask) or to word 1 (second), zeroing the other word.
DATA k6aCorr<>+0(SB)/8, $0x8080050480800100
DATA k6aCorr<>+8(SB)/8, $0x80800d0c80800908
DATA k6aCorr<>+16(SB)/8, $0x8080050480800100
DATA k6aCorr<>+24(SB)/8, $0x80800d0c80800908
DATA k6aCorr<>+32(SB)/8, $0x0504808001008080
DATA k6aCorr<>+40(SB)/8, $0x0d0c808009088080
DATA k6aCorr<>+48(SB)/8, $0x0504808001008080
DATA k6aCorr<>+56(SB)/8, $0x0d0c808009088080
DATA k6aCorr<>+64(SB)/8, $0x8080070680800302
DATA k6aCorr<>+72(SB)/8, $0x80800f0e80800b0a
DATA k6aCorr<>+80(SB)/8, $0x8080070680800302
DATA k6aCorr<>+88(SB)/8, $0x80800f0e80800b0a
DATA k6aCorr<>+96(SB)/8, $0x0706808003028080
DATA k6aCorr<>+104(SB)/8, $0x0f0e80800b0a8080
DATA k6aCorr<>+112(SB)/8, $0x0706808003028080
DATA k6aCorr<>+120(SB)/8, $0x0f0e80800b0a8080
GLOBL k6aCorr<>(SB), RODATA|NOPTR, $128

// K6AUNPACK unpacks the 8 rows' dwords of one half (x, y, z of the Q6_Kx16A layout at o(R), o+64(R),
// o+128(R)) into the quarters' unsigned quants Y8…Y11 (Y12: scratch): quarters 0…2 are the low six bits of
// x, y, z; quarter 3 gathers the top two bits of z, y, x into its bits 0–1, 2–3, 4–5 (each shift moves only
// bits the ANDs kept, so no bit crosses into the byte below).
#define K6AUNPACK(o, R) \
	VMOVDQU o(R), Y8                 \
	VMOVDQU o+64(R), Y9              \
	VMOVDQU o+128(R), Y10            \
	VPAND   k6aC0<>(SB), Y10, Y11    \
	VPSRLW  $2, Y11, Y11             \
	VPAND   k6aC0<>(SB), Y9, Y12     \
	VPOR    Y12, Y11, Y11            \
	VPSRLW  $2, Y11, Y11             \
	VPAND   k6aC0<>(SB), Y8, Y12     \
	VPOR    Y12, Y11, Y11            \
	VPSRLW  $2, Y11, Y11             \
	VPAND   k6a3F<>(SB), Y8, Y8      \
	VPAND   k6a3F<>(SB), Y9, Y9      \
	VPAND   k6a3F<>(SB), Y10, Y10

// K6ASC loads the scale pairs of 8 rows at o(R) and puts the first of each pair in both words of the row's
// dword in Y12, the second in Y13 (Y14: scratch).
#define K6ASC(o, R) \
	VPMOVSXBW o(R), Y14                 \
	VPSHUFB   k6aDup<>(SB), Y14, Y12    \
	VPSHUFB   k6aDup<>+32(SB), Y14, Y13

// K6AQ adds scale·Σq·y of one quarter (quants ZQ, scale words ZS, activation dword at ao(AR)) into ACC; T is
// scratch.
#define K6AQ(AR, ZQ, ZS, ACC, T) \
	VPBROADCASTD AR, T        \
	VPMADDUBSW   T, ZQ, T     \
	VPMADDWD     ZS, T, T     \
	VPADDD       T, ACC, ACC

// K6ACORR puts the −32·scale pair of groups 2m and 2m+1 of 8 rows (the scales at so(R) and so+128(R), in
// byte t of their pairs; the k6aCorr masks of t at tm(R14)) into Y12 (Y13: scratch).
#define K6ACORR(so, R, tm) \
	VPMOVSXBW so(R), Y12               \
	VPMOVSXBW so+128(R), Y13           \
	VPSHUFB   tm(R14), Y12, Y12        \
	VPSHUFB   tm+32(R14), Y13, Y13     \
	VPOR      Y13, Y12, Y12            \
	VPMULLW   k6aM32<>(SB), Y12, Y12

// K6AP4 adds quarter pair (ZA with the scales in Y12 at activation offset ao, ZB with Y13 at ao+32) of the
// four columns at R8…R11 (lane offset R12) into Y0…Y3.
#define K6AP4(ao, ZA, ZB) \
	K6AQ(ao(R8)(R12*1), ZA, Y12, Y0, Y14)     \
	K6AQ(ao(R9)(R12*1), ZA, Y12, Y1, Y15)     \
	K6AQ(ao(R10)(R12*1), ZA, Y12, Y2, Y14)    \
	K6AQ(ao(R11)(R12*1), ZA, Y12, Y3, Y15)    \
	K6AQ(ao+32(R8)(R12*1), ZB, Y13, Y0, Y14)  \
	K6AQ(ao+32(R9)(R12*1), ZB, Y13, Y1, Y15)  \
	K6AQ(ao+32(R10)(R12*1), ZB, Y13, Y2, Y14) \
	K6AQ(ao+32(R11)(R12*1), ZB, Y13, Y3, Y15)

// K6AF fuses the lane ZI of the column at R into ZF, with the rows' d in Y12.
#define K6AF(R, ZI, ZF) \
	VCVTDQ2PS    ZI, ZI          \
	VBROADCASTSS (R), Y14        \
	VMULPS       Y14, Y12, Y14   \
	VFMADD231PS  Y14, ZI, ZF

// func gemm4Q6KxAVX2(nb int, q, sd, a *byte, aStride, m int, acc *float32)
//
// Reference: lane m of DotQ6_KQ8_K for each of the 8×4 (row, column) pairs of one half of a stored group
// (the lane's dwords from q, scales and d from sd, both a stored super-block apart), the columns aStride
// bytes apart; acc[16c+r] gets column c's float accumulators. Each half of the lane's quants is unpacked
// once for the four columns.
TEXT ·gemm4Q6KxAVX2(SB), NOSPLIT, $0-56
	MOVQ  nb+0(FP), CX
	MOVQ  q+8(FP), SI
	MOVQ  sd+16(FP), BX
	MOVQ  a+24(FP), R8
	MOVQ  aStride+32(FP), AX
	LEAQ  (R8)(AX*1), R9
	LEAQ  (R9)(AX*1), R10
	LEAQ  (R10)(AX*1), R11
	MOVQ  m+40(FP), AX
	LEAQ  (AX*4), R12
	MOVQ  AX, R14
	ANDQ  $1, R14
	SHLQ  $6, R14
	LEAQ  k6aCorr<>(SB), DX
	ADDQ  DX, R14
	MOVQ  AX, DI
	SHRQ  $2, DI
	SHLQ  $7, DI
	ADDQ  BX, DI
	SHRQ  $1, AX
	SHLQ  $5, AX
	ADDQ  BX, AX
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7

k6a4loop:
	K6ACORR(0, AX, 0)
	VPBROADCASTD 260(R8)(R12*1), Y14
	VPMADDWD     Y14, Y12, Y0
	VPBROADCASTD 260(R9)(R12*1), Y15
	VPMADDWD     Y15, Y12, Y1
	VPBROADCASTD 260(R10)(R12*1), Y14
	VPMADDWD     Y14, Y12, Y2
	VPBROADCASTD 260(R11)(R12*1), Y15
	VPMADDWD     Y15, Y12, Y3
	K6AUNPACK(0, SI)
	K6ASC(0, DI)
	K6AP4(4, Y8, Y9)
	K6ASC(32, DI)
	K6AP4(68, Y10, Y11)
	K6AUNPACK(192, SI)
	K6ASC(64, DI)
	K6AP4(132, Y8, Y9)
	K6ASC(96, DI)
	K6AP4(196, Y10, Y11)
	VCVTPH2PS    const_k6xD(BX), Y12
	K6AF(R8, Y0, Y4)
	K6AF(R9, Y1, Y5)
	K6AF(R10, Y2, Y6)
	K6AF(R11, Y3, Y7)
	ADDQ         $const_k6xBlock, SI
	ADDQ         $const_k6xBlock, BX
	ADDQ         $const_k6xBlock, DI
	ADDQ         $const_k6xBlock, AX
	ADDQ         $292, R8
	ADDQ         $292, R9
	ADDQ         $292, R10
	ADDQ         $292, R11
	DECQ         CX
	JNZ          k6a4loop

	MOVQ    acc+48(FP), DI
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 64(DI)
	VMOVUPS Y6, 128(DI)
	VMOVUPS Y7, 192(DI)
	VZEROUPPER
	RET

// K6DUP stores the scale pairs of stored pair p (w, j = p/4, p%4) of rows 8rh…8rh+7 (at 3072+32p+16rh(SI)),
// each scale in both words of its row's dword, at do(R11) (first scales) and do+32(R11) (second).
#define K6DUP(so, do) \
	VPMOVSXBW so(SI), Y12                \
	VPSHUFB   k6aDup<>(SB), Y12, Y13     \
	VMOVDQU   Y13, do(R11)               \
	VPSHUFB   k6aDup<>+32(SB), Y12, Y13  \
	VMOVDQU   Y13, do+32(R11)

// K6UNP unpacks 8 rows of one half of a lane (x, y, z at o(SI), o+64(SI), o+128(SI)) as K6AUNPACK does,
// into Y6…Y9, with the masks 0x3f in Y14 and 0xc0 in Y15 (Y10: scratch).
#define K6UNP(o) \
	VMOVDQU o(SI), Y6        \
	VMOVDQU o+64(SI), Y7     \
	VMOVDQU o+128(SI), Y8    \
	VPAND   Y15, Y8, Y9      \
	VPSRLW  $2, Y9, Y9       \
	VPAND   Y15, Y7, Y10     \
	VPOR    Y10, Y9, Y9      \
	VPSRLW  $2, Y9, Y9       \
	VPAND   Y15, Y6, Y10     \
	VPOR    Y10, Y9, Y9      \
	VPSRLW  $2, Y9, Y9       \
	VPAND   Y14, Y6, Y6      \
	VPAND   Y14, Y7, Y7      \
	VPAND   Y14, Y8, Y8

// K6Q adds scale·Σq·y of one quarter (activation dword broadcast in YB, quants Q, the K6DUP scales at so(R11))
// into ACC; T is scratch.
#define K6Q(YB, Q, so, ACC, T) \
	VPMADDUBSW YB, Q, T     \
	VPMADDWD   so(R11), T, T \
	VPADDD     T, ACC, ACC

// K6H adds half h of lane m for the 16 rows (the lane's half at qo(SI), its activation dwords from yo(R8),
// the K6DUP pairs of its quarters from sb(R11)) into Y0 (rows 0…7) and Y1 (rows 8…15): each activation
// dword is broadcast once for both.
#define K6H(qo, yo, sb) \
	VPBROADCASTD yo(R8), Y2                \
	VPBROADCASTD yo+32(R8), Y3             \
	VPBROADCASTD yo+64(R8), Y4             \
	VPBROADCASTD yo+96(R8), Y5             \
	K6UNP(qo)                              \
	K6Q(Y2, Y6, sb, Y0, Y10)               \
	K6Q(Y3, Y7, sb+32, Y0, Y11)            \
	K6Q(Y4, Y8, sb+128, Y0, Y12)           \
	K6Q(Y5, Y9, sb+160, Y0, Y13)           \
	K6UNP(qo+32)                           \
	K6Q(Y2, Y6, sb+64, Y1, Y10)            \
	K6Q(Y3, Y7, sb+96, Y1, Y11)            \
	K6Q(Y4, Y8, sb+192, Y1, Y12)           \
	K6Q(Y5, Y9, sb+224, Y1, Y13)

// K6XPFA is gemv1Q6KxAVX2's prefetch distance for the quants, one stored super-block: K6V prefetches its
// lane's six lines of the next super-block; the block start prefetches the five lines of the scales and d two
// super-blocks ahead. BenchmarkStreamGemm q6_k, FORMA_CPU=avx2, two goroutines, alternating: 19.4-21.4 GB/s
// against 14.7-16.5 for the kernel before whole quants (which prefetched only the scales' lines); the
// quants' lines PREFETCHNTA instead streamed 16.7-19.7, the scales one super-block ahead 20.3-21.3 (NTA), and
// in earlier rounds on a loaded machine the quants two super-blocks ahead or half of one ahead streamed
// slower than one ahead. (In cache, GemmSmall, the prefetches cost within the noise.)
#define K6XPFA 3360

// K6V adds lane m of the 16 rows (the lane's quants at qo(SI); activation offset ao = 4m; the K6DUP pairs of
// its half of the lanes at wb(R11) = 512·(m/4)) into its accumulators at acco(DX), with d·yd at 1024(R11) and
// 1056(R11). The lane starts at (32·scale)·(−bsum) of groups 2m and 2m+1: their scales are word t = m%2 of
// K6DUP pairs m/2 and 4+m/2, at ca(R11) and ca+512(R11) (ca = 128·(m/2) + 32t), blended into the two words of
// each row's dword, against the negated bsum pair at 1088+ao(R11).
#define K6V(qo, ca, ao, wb, acco) \
	PREFETCHT0   K6XPFA+qo(SI)                             \
	PREFETCHT0   K6XPFA+qo+64(SI)                          \
	PREFETCHT0   K6XPFA+qo+128(SI)                         \
	PREFETCHT0   K6XPFA+qo+192(SI)                         \
	PREFETCHT0   K6XPFA+qo+256(SI)                         \
	PREFETCHT0   K6XPFA+qo+320(SI)                         \
	VPBROADCASTD 1088+ao(R11), Y4                          \
	VMOVDQU      ca(R11), Y2                               \
	VPBLENDW     $0xaa, ca+512(R11), Y2, Y2                \
	VPSLLW       $5, Y2, Y2                                \
	VPMADDWD     Y4, Y2, Y0                                \
	VMOVDQU      ca+64(R11), Y3                            \
	VPBLENDW     $0xaa, ca+576(R11), Y3, Y3                \
	VPSLLW       $5, Y3, Y3                                \
	VPMADDWD     Y4, Y3, Y1                                \
	K6H(qo, 4+ao, wb)                                      \
	K6H(qo+192, 132+ao, wb+256)                            \
	VCVTDQ2PS    Y0, Y0                                    \
	VMOVUPS      acco(DX), Y6                              \
	VFMADD231PS  1024(R11), Y0, Y6                         \
	VMOVUPS      Y6, acco(DX)                              \
	VCVTDQ2PS    Y1, Y1                                    \
	VMOVUPS      acco+32(DX), Y7                           \
	VFMADD231PS  1056(R11), Y1, Y7                         \
	VMOVUPS      Y7, acco+32(DX)

// func gemv1Q6KxAVX2(nb int, p, a *byte, acc *[8][4 * GemmRows]float32)
//
// Reference: DotQ6_KQ8_K's eight lanes for the 16 rows of one stored group at p against one Q8_K column a,
// in one pass through the stored super-blocks, each activation dword broadcast once for the 16 rows; acc[m]
// gets lane m's 16 float accumulators. Per super-block the frame holds each scale pair's scales in both
// words of their rows' dwords (K6DUP: 1024 bytes), the rows' d·yd (64 bytes) and the column's negated bsums
// (32 bytes).
TEXT ·gemv1Q6KxAVX2(SB), $1120-32
	MOVQ    nb+0(FP), CX
	MOVQ    p+8(FP), SI
	MOVQ    a+16(FP), R8
	MOVQ    acc+24(FP), DX
	LEAQ    frame-1120(SP), R11
	VMOVDQU k6a3F<>(SB), Y14
	VMOVDQU k6aC0<>(SB), Y15
	VPXOR   Y0, Y0, Y0
	MOVQ    $0, AX

k6a1zero:
	VMOVUPS Y0, (DX)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, $2048
	JB      k6a1zero

k6a1block:
	PREFETCHT0   K6XPFA+K6XPFA+3072(SI)
	PREFETCHT0   K6XPFA+K6XPFA+3136(SI)
	PREFETCHT0   K6XPFA+K6XPFA+3200(SI)
	PREFETCHT0   K6XPFA+K6XPFA+3264(SI)
	PREFETCHT0   K6XPFA+K6XPFA+3328(SI)
	VBROADCASTSS (R8), Y2
	VCVTPH2PS    const_k6xBlock-const_k6xSD+const_k6xD(SI), Y3
	VMULPS       Y2, Y3, Y3
	VMOVUPS      Y3, 1024(R11)
	VCVTPH2PS    const_k6xBlock-const_k6xSD+const_k6xD+16(SI), Y3
	VMULPS       Y2, Y3, Y3
	VMOVUPS      Y3, 1056(R11)
	VPXOR        Y3, Y3, Y3
	VPSUBW       260(R8), Y3, Y3
	VMOVDQU      Y3, 1088(R11)
	K6DUP(3072, 0)
	K6DUP(3088, 64)
	K6DUP(3104, 128)
	K6DUP(3120, 192)
	K6DUP(3136, 256)
	K6DUP(3152, 320)
	K6DUP(3168, 384)
	K6DUP(3184, 448)
	K6DUP(3200, 512)
	K6DUP(3216, 576)
	K6DUP(3232, 640)
	K6DUP(3248, 704)
	K6DUP(3264, 768)
	K6DUP(3280, 832)
	K6DUP(3296, 896)
	K6DUP(3312, 960)
	K6V(0, 0, 0, 0, 0)
	K6V(384, 32, 4, 0, 256)
	K6V(768, 128, 8, 0, 512)
	K6V(1152, 160, 12, 0, 768)
	K6V(1536, 256, 16, 512, 1024)
	K6V(1920, 288, 20, 512, 1280)
	K6V(2304, 384, 24, 512, 1536)
	K6V(2688, 416, 28, 512, 1792)
	ADDQ $const_k6xBlock, SI
	ADDQ $292, R8
	DECQ CX
	JNZ  k6a1block
	VZEROUPPER
	RET
