// Shared by the amd64 dot kernels (doti_amd64.s, dotk_amd64.s).

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
