// ggml_v_expf on 16 float32 lanes with AVX-512, shared by vmath_amd64.s and attn_amd64.s: the operations of
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
