//go:build amd64 && !noasm

package quant

import "encoding/binary"

// How the one-column kernels on stored groups (a decode step's stream of weights) prefetch depends on the core.
// On AMD's Zen 5 (family 0x1a) prefetching every line two super-blocks ahead into L1 (PREFETCHT0) streamed
// Q4_K 15–45% faster with one goroutine than the hardware prefetcher alone, and Q6_K 45–125% (the kernels'
// comments, BenchmarkStreamGemm); on Zen 4 (family 0x19, whose 512-bit operations are split in two) the same
// made all four AVX-512 kernels 15–30% slower than touching each line as they reach it. There the light kernel, Q4_K's, does
// best only touching each line as they reach it, and Q5_K's and Q6_K's, with more work per byte, prefetching
// ahead into L2 (PREFETCHT2): 5–25% faster than touching. (The AVX2 kernels stream as fast or faster
// prefetching into L1 on Zen 4 too, and keep their fixed distances.) BenchmarkStreamAhead measures both
// policies on the CPU at hand; the bits are the same either way (TestStreamAheadExact).
var (
	// streamAhead is 1 where gemv1Q4Kx prefetches two super-blocks ahead, 0
	// where it touches each line as they reach it (STREAMAHEAD, prefetch_amd64.h).
	streamAhead = 1
	// streamL2 is true where the Q5_K and Q6_K one-column kernels prefetch into L2 (gemv1Q5KxL2, gemv1Q6KxL2),
	// false where into L1.
	streamL2 = false
)

func init() {
	if isZen4(x86Family()) {
		streamAhead, streamL2 = 0, true
	}
}

// isZen4 reports whether a CPU of vendor (CPUID's vendor string) and family (base plus extended) is AMD's
// family 0x19 (Zen 3 and Zen 4; the kernels concerned need AVX-512, which of the two only Zen 4 has).
func isZen4(vendor string, family uint32) bool { return vendor == "AuthenticAMD" && family == 0x19 }

// x86Family returns the CPU's vendor string and family (CPUID leaves 0 and 1).
func x86Family() (string, uint32) {
	_, b, c, d := cpuid(0, 0)
	var v [12]byte
	binary.LittleEndian.PutUint32(v[0:], b)
	binary.LittleEndian.PutUint32(v[4:], d)
	binary.LittleEndian.PutUint32(v[8:], c)
	a, _, _, _ := cpuid(1, 0)
	family := a >> 8 & 0xf
	if family == 0xf {
		family += a >> 20 & 0xff
	}
	return string(v[:]), family
}

func cpuid(leaf, sub uint32) (a, b, c, d uint32)
