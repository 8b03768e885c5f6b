// Software prefetches of the lane attention kernels (attn_amd64.s, attn_lanes_avx2_amd64.s). A KV
// head's keys and values are rows of one head among the cache's heads (2 KiB apart for 8 heads of 128), which
// the hardware prefetchers follow poorly: a decode step at 4096 cells waited on memory for most of its time.
// The kernels take the distance (pf bytes) from the driver: 16 cells where a block alone reads rows spanning
// 1 MiB or more (a decode step: qwen3-0.6b's shape at 4608 cells, six layers' caches, 3.2–3.5 → 1.7–2.3 ms a
// layer; distances of 8 to 64 cells measured alike), 0 (no prefetch) where other blocks read them too and the
// rows come from the caches (prefetches 16 cells on then evicted the rows in use: a prefill 20% slower).

// PREFETCHROW prefetches the LEN bytes of the row at ROW, a cache line at a time (TMP scratch), unless the
// distance PF is 0 (rows the caches hold: a row of a small head took five more instructions to convert).
#define PREFETCHROW(ROW, LEN, TMP, PF, loop, done) \
	TESTQ      PF, PF        \
	JZ         done          \
	XORQ       TMP, TMP      \
loop:                            \
	PREFETCHT0 (ROW)(TMP*1)  \
	ADDQ       $64, TMP      \
	CMPQ       TMP, LEN      \
	JLT        loop          \
done:
