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

// VEXP sets Z0 = vexpf(Z0); clobbers Z1…Z7, K1, K2. Step by step as vexpf: z = x·log2e + shift (Z1),
// n = z − shift (Z2), b = x − n·ln2hi − n·ln2lo (Z3), u = b² (Z4), j = ((c5·b + c4)·u + (c3·b + c2))·u +
// (c1·b + 1) (Z5), result j·2^n by VSCALEFPS. Lanes with |n| > 192 take the rarely used branch to big,
// which sets them to 0 (n < 0) or +Inf.
#define VEXP(big, done) \
	VBROADCASTSS      VX_SHIFT, Z1      \
	VFMADD231PS.BCST  VX_LOG2E, Z0, Z1  \
	VSUBPS.BCST       VX_SHIFT, Z1, Z2  \
	VMOVAPS           Z0, Z3            \
	VFNMADD231PS.BCST VX_LN2HI, Z2, Z3  \
	VFNMADD231PS.BCST VX_LN2LO, Z2, Z3  \
	VMULPS            Z3, Z3, Z4        \
	VBROADCASTSS      VX_C4, Z5         \
	VFMADD231PS.BCST  VX_C5, Z3, Z5     \
	VBROADCASTSS      VX_C2, Z6         \
	VFMADD231PS.BCST  VX_C3, Z3, Z6     \
	VFMADD213PS       Z6, Z4, Z5        \
	VBROADCASTSS      VX_ONE, Z7        \
	VFMADD231PS.BCST  VX_C1, Z3, Z7     \
	VFMADD213PS       Z7, Z4, Z5        \
	VSCALEFPS         Z2, Z5, Z0        \
	VANDPS.BCST       VX_ABS, Z2, Z6    \
	VCMPPS.BCST       $0x1e, VX_192, Z6, K1 \
	KORTESTW          K1, K1            \
	JNZ               big               \
done:

// VEXPBIG sets the lanes in K1 (|n| > 192, Z2 = n) to +Inf where n > 0, else 0.
#define VEXPBIG(done) \
	VXORPS       Z6, Z6, Z6            \
	VMOVAPS      Z6, K1, Z0            \
	VCMPPS       $0x1e, Z6, Z2, K1, K2 \
	VBROADCASTSS VX_INF, K2, Z0        \
	JMP          done
