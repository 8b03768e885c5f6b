// Shared by the amd64 Gemm kernels: clearing accumulator registers.

// ZERO8 clears eight vector registers.
#define ZERO8(A0, A1, A2, A3, A4, A5, A6, A7) \
	VPXORD A0, A0, A0 \
	VPXORD A1, A1, A1 \
	VPXORD A2, A2, A2 \
	VPXORD A3, A3, A3 \
	VPXORD A4, A4, A4 \
	VPXORD A5, A5, A5 \
	VPXORD A6, A6, A6 \
	VPXORD A7, A7, A7

// ZERO16 clears the accumulators Z0…Z15.
#define ZERO16 \
	ZERO8(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7) \
	ZERO8(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)

// ZERO8Y clears eight 256-bit registers (AVX2: VEX encoding, no AVX-512 needed).
#define ZERO8Y(A0, A1, A2, A3, A4, A5, A6, A7) \
	VXORPS A0, A0, A0 \
	VXORPS A1, A1, A1 \
	VXORPS A2, A2, A2 \
	VXORPS A3, A3, A3 \
	VXORPS A4, A4, A4 \
	VXORPS A5, A5, A5 \
	VXORPS A6, A6, A6 \
	VXORPS A7, A7, A7
