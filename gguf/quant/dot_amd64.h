// Shared by the amd64 dot kernels (doti_amd64.s, dotk_amd64.s, dotbf_amd64.s) and gemm_float_amd64.s.

// ADD8 adds the eight float32 of Y0 to X10, lane 0 first, each rounded (the references' sequential adds).
// Clobbers X0, X1.
#define ADD8 \
	VADDSS       X0, X10, X10  \
	VMOVSHDUP    X0, X1        \
	VADDSS       X1, X10, X10  \
	VMOVHLPS     X0, X0, X1    \
	VADDSS       X1, X10, X10  \
	VPSHUFD      $0xff, X0, X1 \
	VADDSS       X1, X10, X10  \
	VEXTRACTF128 $1, Y0, X0    \
	VADDSS       X0, X10, X10  \
	VMOVSHDUP    X0, X1        \
	VADDSS       X1, X10, X10  \
	VMOVHLPS     X0, X0, X1    \
	VADDSS       X1, X10, X10  \
	VPSHUFD      $0xff, X0, X1 \
	VADDSS       X1, X10, X10

// HSUM8 leaves hsum_float_8(Y0) in X0: lanes i and i+4, then (0+2) + (1+3). Clobbers X1, X2.
#define HSUM8 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPS       X0, X1, X1 \
	VMOVHLPS     X1, X1, X2 \
	VADDPS       X2, X1, X1 \
	VMOVSHDUP    X1, X2     \
	VADDSS       X2, X1, X0
