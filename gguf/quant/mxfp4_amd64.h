// Shared by the amd64 MXFP4 kernels (doti_amd64.s, gemm_stored_mx_amd64.s, gemm_avx2_mx_amd64.s): e8m0Half's
// bits from an exponent, and kvaluesMXFP4 + 12 as unsigned bytes for VPSHUFB.

DATA kMXOne<>+0(SB)/8, $0x0000000100000001
DATA kMXOne<>+8(SB)/8, $0x0000000100000001
DATA kMXOne<>+16(SB)/8, $0x0000000100000001
DATA kMXOne<>+24(SB)/8, $0x0000000100000001
GLOBL kMXOne<>(SB), RODATA|NOPTR, $32

// kMXSub is the bits of 2^-128 (subnormal): e8m0Half(e) for e < 2 is it shifted left by e.
DATA kMXSub<>+0(SB)/4, $0x00200000
GLOBL kMXSub<>(SB), RODATA|NOPTR, $4

// kMXU is kvaluesMXFP4 + 12 (0…24, unsigned) for VPSHUFB, in both 128-bit lanes.
DATA kMXU<>+0(SB)/8, $0x181412100f0e0d0c  // 12, 13, 14, 15, 16, 18, 20, 24
DATA kMXU<>+8(SB)/8, $0x00040608090a0b0c  // 12, 11, 10, 9, 8, 6, 4, 0
DATA kMXU<>+16(SB)/8, $0x181412100f0e0d0c
DATA kMXU<>+24(SB)/8, $0x00040608090a0b0c
GLOBL kMXU<>(SB), RODATA|NOPTR, $32

// MXSCALE leaves in the dwords of V2 the bits of e8m0Half(e) for the exponents e in the dwords of V4 (0…255):
// (e−1)<<23, or 2^-128<<e below 2 (AVX2). Clobbers V1, V3.
#define MXSCALE(V1, V2, V3, V4) \
	VPSUBD       kMXOne<>(SB), V4, V2 \
	VPSLLD       $23, V2, V2          \
	VPBROADCASTD kMXSub<>(SB), V1     \
	VPSLLVD      V4, V1, V1           \
	VPCMPGTD     kMXOne<>(SB), V4, V3 \
	VPBLENDVB    V3, V2, V1, V2
