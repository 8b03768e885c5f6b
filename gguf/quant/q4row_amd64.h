// Shared by gemm_amd64.s and gemm_stored_amd64.s (AVX-512 VNNI).

// Q4ROW16 adds one Q4_0 block of 16 rows against one Q8_0S column to Z0, DotQ4_0Q8_0Interleaved's step for
// each lane: Z1 holds the rows' scales as float32, Z2…Z5 quant dwords 0…3 of the 16 rows, Z30 the nibble mask,
// DI the column's block (scale, correction, quant groups). The block sum runs in two dependency chains (low
// and high nibbles; the integer sums are exact, so their order does not matter). Clobbers Z1…Z8.
#define Q4ROW16 \
	VMULPS.BCST   0(DI), Z1, Z1   \
	VPBROADCASTD  4(DI), Z6       \
	VPXORD        Z8, Z8, Z8      \
	VPANDD        Z30, Z2, Z7     \
	VPDPBUSD.BCST 8(DI), Z7, Z6   \
	VPSRLD        $4, Z2, Z2      \
	VPANDD        Z30, Z2, Z2     \
	VPDPBUSD.BCST 24(DI), Z2, Z8  \
	VPANDD        Z30, Z3, Z7     \
	VPDPBUSD.BCST 12(DI), Z7, Z6  \
	VPSRLD        $4, Z3, Z3      \
	VPANDD        Z30, Z3, Z3     \
	VPDPBUSD.BCST 28(DI), Z3, Z8  \
	VPANDD        Z30, Z4, Z7     \
	VPDPBUSD.BCST 16(DI), Z7, Z6  \
	VPSRLD        $4, Z4, Z4      \
	VPANDD        Z30, Z4, Z4     \
	VPDPBUSD.BCST 32(DI), Z4, Z8  \
	VPANDD        Z30, Z5, Z7     \
	VPDPBUSD.BCST 20(DI), Z7, Z6  \
	VPSRLD        $4, Z5, Z5      \
	VPANDD        Z30, Z5, Z5     \
	VPDPBUSD.BCST 36(DI), Z5, Z8  \
	VPADDD        Z8, Z6, Z6      \
	VCVTDQ2PS     Z6, Z6          \
	VFMADD231PS   Z1, Z6, Z0
