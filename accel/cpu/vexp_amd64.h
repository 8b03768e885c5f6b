// ggml_v_expf on 16 float32 lanes with AVX-512 (VEXPV), shared by vmath_amd64.s and attn_amd64.s, and on 8 with
// AVX2 (VEXP2), shared by vexp_avx2_amd64.s and attn_lanes_avx2_amd64.s: the operations of
// vexpf (math.go), which are those of ggml's AVX-512 form, so every lane is bit-identical to it. The
// constants are the table ·vexpConsts (vmath_amd64.s).

#define VX_SHIFT ·vexpConsts+0(SB)
#define VX_LOG2E ·vexpConsts+4(SB)
#define VX_LN2HI ·vexpConsts+8(SB)
#define VX_LN2LO ·vexpConsts+12(SB)
#define VX_C1 ·vexpConsts+16(SB)
#define VX_C2 ·vexpConsts+20(SB)
#define VX_C3 ·vexpConsts+24(SB)
#define VX_C4 ·vexpConsts+28(SB)
#define VX_C5 ·vexpConsts+32(SB)
#define VX_ONE ·vexpConsts+36(SB)
#define VX_ABS ·vexpConsts+40(SB)
#define VX_SIGN ·vexpConsts+44(SB)
#define VX_192 ·vexpConsts+48(SB)
#define VX_INF ·vexpConsts+52(SB)

// VEXPV sets V0 = vexpf(V0) on the lanes of V0…V7 (Z or Y registers: 16 or 8 lanes); clobbers V1…V7, K1,
// K2. Step by step as vexpf: z = x·log2e + shift (V1), n = z − shift (V2), b = x − n·ln2hi − n·ln2lo (V3),
// u = b² (V4), j = ((c5·b + c4)·u + (c3·b + c2))·u + (c1·b + 1) (V5), result j·2^n by VSCALEFPS. Lanes with
// |n| > 192 take the rarely used branch to big (VEXPBIGV), which sets them to 0 (n < 0) or +Inf.
#define VEXPV(V0, V1, V2, V3, V4, V5, V6, V7, big, done) \
	VBROADCASTSS      VX_SHIFT, V1      \
	VFMADD231PS.BCST  VX_LOG2E, V0, V1  \
	VSUBPS.BCST       VX_SHIFT, V1, V2  \
	VMOVAPS           V0, V3            \
	VFNMADD231PS.BCST VX_LN2HI, V2, V3  \
	VFNMADD231PS.BCST VX_LN2LO, V2, V3  \
	VMULPS            V3, V3, V4        \
	VBROADCASTSS      VX_C4, V5         \
	VFMADD231PS.BCST  VX_C5, V3, V5     \
	VBROADCASTSS      VX_C2, V6         \
	VFMADD231PS.BCST  VX_C3, V3, V6     \
	VFMADD213PS       V6, V4, V5        \
	VBROADCASTSS      VX_ONE, V7        \
	VFMADD231PS.BCST  VX_C1, V3, V7     \
	VFMADD213PS       V7, V4, V5        \
	VSCALEFPS         V2, V5, V0        \
	VANDPS.BCST       VX_ABS, V2, V6    \
	VCMPPS.BCST       $0x1e, VX_192, V6, K1 \
	KORTESTW          K1, K1            \
	JNZ               big               \
done:

// VEXPBIGV sets the lanes in K1 (|n| > 192, V2 = n) of V0 to +Inf where n > 0, else 0; clobbers V6.
#define VEXPBIGV(V0, V2, V6, done) \
	VXORPS       V6, V6, V6            \
	VMOVAPS      V6, K1, V0            \
	VCMPPS       $0x1e, V6, V2, K1, K2 \
	VBROADCASTSS VX_INF, K2, V0        \
	JMP          done

// VEXP sets Z0 = vexpf(Z0) on 16 lanes; clobbers Z1…Z7, K1, K2.
#define VEXP(big, done) VEXPV(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, big, done)

// VEXPBIG is VEXPBIGV for VEXP.
#define VEXPBIG(done) VEXPBIGV(Z0, Z2, Z6, done)

// VEXP2 sets Y8 = vexpf(Y0) on 8 lanes; clobbers Y1…Y13, needs Y14 = int64 1023 in each quadword. The steps
// of VEXP (vexp_amd64.h) to j and n, then j·2^n exactly in float64 (four lanes at a time) rounded once to
// float32, which is what VSCALEFPS's single rounding gives; lanes with |n| > 192 become 0 (n < 0) or +Inf,
// NaN stays NaN.
#define VEXP2 \
	VBROADCASTSS VX_SHIFT, Y1 \
	VBROADCASTSS VX_LOG2E, Y7 \
	VFMADD231PS  Y7, Y0, Y1 \
	VBROADCASTSS VX_SHIFT, Y7 \
	VSUBPS       Y7, Y1, Y2 \
	VMOVAPS      Y0, Y3 \
	VBROADCASTSS VX_LN2HI, Y7 \
	VFNMADD231PS Y7, Y2, Y3 \
	VBROADCASTSS VX_LN2LO, Y7 \
	VFNMADD231PS Y7, Y2, Y3 \
	VMULPS       Y3, Y3, Y4 \
	VBROADCASTSS VX_C4, Y5 \
	VBROADCASTSS VX_C5, Y7 \
	VFMADD231PS  Y7, Y3, Y5 \
	VBROADCASTSS VX_C2, Y6 \
	VBROADCASTSS VX_C3, Y7 \
	VFMADD231PS  Y7, Y3, Y6 \
	VFMADD213PS  Y6, Y4, Y5 \
	VBROADCASTSS VX_ONE, Y7 \
	VBROADCASTSS VX_C1, Y8 \
	VFMADD231PS  Y8, Y3, Y7 \
	VFMADD213PS  Y7, Y4, Y5 \
	VCVTPS2DQ    Y2, Y6 \
	VCVTPS2PD    X5, Y8 \
	VPMOVSXDQ    X6, Y9 \
	VPADDQ       Y14, Y9, Y9 \
	VPSLLQ       $52, Y9, Y9 \
	VMULPD       Y9, Y8, Y8 \
	VCVTPD2PSY   Y8, X8 \
	VEXTRACTF128 $1, Y5, X10 \
	VCVTPS2PD    X10, Y10 \
	VEXTRACTI128 $1, Y6, X11 \
	VPMOVSXDQ    X11, Y11 \
	VPADDQ       Y14, Y11, Y11 \
	VPSLLQ       $52, Y11, Y11 \
	VMULPD       Y11, Y10, Y10 \
	VCVTPD2PSY   Y10, X10 \
	VINSERTF128  $1, X10, Y8, Y8 \
	VBROADCASTSS VX_ABS, Y7 \
	VANDPS       Y7, Y2, Y12 \
	VBROADCASTSS VX_192, Y7 \
	VCMPPS       $0x1e, Y7, Y12, Y12 \
	VXORPS       Y13, Y13, Y13 \
	VCMPPS       $0x1e, Y13, Y2, Y13 \
	VBROADCASTSS VX_INF, Y7 \
	VANDPS       Y7, Y13, Y13 \
	VBLENDVPS    Y12, Y13, Y8, Y8 \
	VCMPPS       $3, Y2, Y2, Y12 \
	VBLENDVPS    Y12, Y2, Y8, Y8
