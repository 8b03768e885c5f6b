//go:build arm64 && !noasm

package quant

import "unsafe"

// dotF16Tail adds the products of n halves at w and a to sum in order, as DotF16F16's scalar tail.
func dotF16Tail(n int, w, a *byte, sum float64) float64 {
	ws, as := unsafe.Slice(w, 2*n), unsafe.Slice(a, 2*n)
	for i := 0; i < n; i++ {
		sum += float64(f16at(ws, 2*i) * f16at(as, 2*i))
	}
	return sum
}
