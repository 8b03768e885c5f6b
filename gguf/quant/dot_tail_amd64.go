//go:build amd64 && !noasm

package quant

// dotF16Tail adds the products of n halves (n a multiple of 4) at w and a to sum in order, as DotF16F16's
// scalar tail (dotf_amd64.s).
//
//go:noescape
func dotF16Tail(n int, w, a *byte, sum float64) float64
