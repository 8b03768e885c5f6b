// Shared by the amd64 kernels on stored layouts: prefetching (PREFETCHT0) runs of consecutive cache lines.

// PREFETCH3, PREFETCH5 and PREFETCH6 prefetch the 3, 5 and 6 cache lines from o(R).
#define PREFETCH3(o, R) \
	PREFETCHT0 o(R)     \
	PREFETCHT0 o+64(R)  \
	PREFETCHT0 o+128(R)

#define PREFETCH5(o, R)    \
	PREFETCH3(o, R)    \
	PREFETCHT0 o+192(R) \
	PREFETCHT0 o+256(R)

#define PREFETCH6(o, R)    \
	PREFETCH5(o, R)    \
	PREFETCHT0 o+320(R)
