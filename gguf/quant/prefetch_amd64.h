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

// The stream of the one-column kernel gemv1Q4Kx is prefetched a distance ahead
// held in a register: STREAMAHEAD(d, I) sets I to d where the CPU gains from prefetching ahead and to 0 where
// touching each line as it is reached streams faster (streamAhead, prefetch_amd64.go), and PREFETCH3X and
// PREFETCH5X prefetch 3 and 5 cache lines from o(R) plus I (with I = 0, the lines about to be read).
#define STREAMAHEAD(d, I) \
	MOVQ   ·streamAhead(SB), I \
	IMUL3Q $d, I, I

#define PREFETCH3X(o, R, I)    \
	PREFETCHT0 o(R)(I*1)     \
	PREFETCHT0 o+64(R)(I*1)  \
	PREFETCHT0 o+128(R)(I*1)

#define PREFETCH5X(o, R, I)      \
	PREFETCH3X(o, R, I)      \
	PREFETCHT0 o+192(R)(I*1) \
	PREFETCHT0 o+256(R)(I*1)

// PREFETCH5I and PREFETCH6I prefetch the 5 and 6 cache lines from o(R) with prefetch instruction PF.
#define PREFETCH5I(PF, o, R) \
	PF o(R)              \
	PF o+64(R)           \
	PF o+128(R)          \
	PF o+192(R)          \
	PF o+256(R)

#define PREFETCH6I(PF, o, R) \
	PREFETCH5I(PF, o, R) \
	PF o+320(R)
