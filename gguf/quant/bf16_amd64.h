// Shared by dotbf_amd64.s and gemm_float_amd64.s: AVX-512 BF16's VDPBF16PS, which Go's assembler does not know,
// encoded by bytes.

// VDPBF16PS(d, s1, s2) is VDPBF16PS Zs2, Zs1, Zd (Intel: vdpbf16ps zmm_d, zmm_s1, zmm_s2; EVEX.512.F3.0F38.W0
// 52 /r) for register numbers 0…31: lane j of Zd += s1[2j+1]·s2[2j+1], then += s1[2j]·s2[2j] (bf16 pairs),
// each exact product added with one rounding to nearest even, denormal inputs and results taken as zero. The
// four bytes after 0x62 are EVEX's P0 (R, X, B, R' inverted; map 0F38), P1 (vvvv = s1 inverted; F3), P2 (512
// bits, V' = s1's bit 4 inverted) and ModRM (register direct: reg = d, rm = s2).
#define VDPBF16PS(d, s1, s2) \
	BYTE $0x62; \
	BYTE $(0xF2 ^ ((d&8)<<4) ^ ((s2&16)<<2) ^ ((s2&8)<<2) ^ (d&16)); \
	BYTE $(0x7E ^ ((s1&15)<<3)); \
	BYTE $(0x48 ^ ((s1&16)>>1)); \
	BYTE $0x52; \
	BYTE $(0xC0 | ((d&7)<<3) | (s2&7))
