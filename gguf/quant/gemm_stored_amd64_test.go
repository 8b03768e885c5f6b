//go:build amd64 && !noasm

package quant

import "testing"

// TestGemmStoredIQ4_XSNoVBMI runs the IQ4_XS Gemm with the single-column kernel of CPUs without VBMI, which
// this CPU may not pick.
func TestGemmStoredIQ4_XSNoVBMI(t *testing.T) {
	g := GemmFor(IQ4_XS, OrderRepacked)
	if g == nil {
		t.Skip("no IQ4_XS Gemm on this CPU")
	}
	saved := ix4Vec
	defer func() { ix4Vec = saved }()
	ix4Vec = gemv1IQ4x
	testGemmStoredExact(t, []*Gemm{g})
}
