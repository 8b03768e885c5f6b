// Shared by gemm_stored_k5_amd64.s and gemm_stored_k6_amd64.s (AVX-512 VNNI).

// KPAIR multiplies two groups of unsigned quants (ZA, ZB) with their broadcast activation dwords at AA, AB
// (TA, TB: scratch; each sum at most 4·63·128 in magnitude, an int16), puts the two sums into the low and
// high word of each dword and multiply-adds them with the pair of int16 scales in SC into ACC (Z31: 0xffff
// in every dword).
#define KPAIR(AA, AB, ZA, ZB, TA, TB, SC, ACC) \
	VPXORD         TA, TA, TA                \
	VPXORD         TB, TB, TB                \
	VPDPBUSD.BCST  AA, ZA, TA                \
	VPDPBUSD.BCST  AB, ZB, TB                \
	VPSLLD         $16, TB, TB               \
	VPTERNLOGD     $0xf8, Z31, TA, TB        \
	VPDPWSSD       SC, TB, ACC
