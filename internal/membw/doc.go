// Package membw measures this machine's memory read bandwidth, the bound on decode speed: generating a
// token reads every weight once, so tokens/s ≤ bandwidth / bytes of weights (docs/performance.md). What
// BenchmarkStream reads is a floor of that bandwidth, not the ceiling: on the development machine the dot
// kernels of BenchmarkStreamDot, the stored-layout kernels of BenchmarkStreamGemm (what the CPU backend decodes
// with), and llama.cpp's F16 and BF16 decode, read faster.
//
// It has no API; run its benchmark:
//
//	go test -bench Stream ./internal/membw
package membw
