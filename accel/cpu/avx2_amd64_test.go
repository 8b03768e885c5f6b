//go:build amd64 && !noasm

package cpu

import "testing"

// TestAVX2Kernels: flash attention's value sums' and exponentials' tests again with the AVX2 kernels where the
// CPU has AVX-512 too (the native ones elsewhere).
func TestAVX2Kernels(t *testing.T) {
	if !hasAVX512 || !hasAVX2 {
		t.Skip("the tests above ran the AVX2 kernels (or none) already")
	}
	hasAVX512 = false
	defer func() { hasAVX512 = true }()
	t.Run("Axpy", TestAxpyExact)
	t.Run("AxpyQRows", TestAxpyQRowsExact)
	t.Run("AxpyHRows", TestAxpyHRowsExact)
	t.Run("ExpfVec", TestExpfVec)
}
