//go:build amd64 && !noasm

package quant

import "encoding/binary"

// streamAhead is 1 where the AVX-512 one-column kernels on stored groups (gemv1Q4Kx, gemv1Q5Kx, gemv1Q6Kx and
// the IQ4_XS ones: a decode step's stream of weights) prefetch their stream two super-blocks ahead, and 0 where
// they only touch each super-block's lines as they reach them (prefetch_amd64.h). Which streams faster depends on
// the core: on AMD's Zen 5 (family 0x1a) prefetching ahead streamed Q4_K 20–30% faster with one goroutine, on
// Zen 4 (family 0x19, whose 512-bit operations are split in two) 20–35% slower (two goroutines: 5–15%); the
// kernels' comments had recorded both findings, apparently from different hosts. (The AVX2 kernels stream as
// fast or faster prefetching ahead on Zen 4 too, so they keep their fixed distances.) BenchmarkStreamAhead
// measures both ways on the CPU at hand; the bits are the same either way (TestStreamAheadExact).
var streamAhead = aheadFor(x86Family())

// aheadFor returns streamAhead for a CPU of vendor (CPUID's vendor string) and family (base plus extended).
func aheadFor(vendor string, family uint32) int {
	if vendor == "AuthenticAMD" && family == 0x19 {
		return 0
	}
	return 1
}

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
