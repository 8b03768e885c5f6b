//go:build amd64 && !noasm

package quant

// bf16Kernel is one of the BF16 kernels this CPU can run: use installs it until the returned function is called.
type bf16Kernel struct {
	name string
	use  func() (restore func())
}

// bf16Kernels are the BF16 Gemm kernels this CPU can run: VDPBF16PS itself where it has AVX-512 BF16, and its
// emulations with AVX-512F and with AVX2 (what CPUs without it run).
func bf16Kernels() []bf16Kernel {
	ks := []bf16Kernel{{"installed", func() func() { return func() {} }}}
	if !hasAVX512 || GemmFor(BF16, OrderVecDot) == nil {
		return ks
	}
	with := func(k func(int, *byte, int, *byte, int, int, *float64) bool, checked bool) func() func() {
		return func() func() {
			saved, savedChecked := bf16Tile, bf16Checked
			bf16Tile, bf16Checked = k, checked
			return func() { bf16Tile, bf16Checked = saved, savedChecked }
		}
	}
	ks = append(ks, bf16Kernel{"avx512", with(gemm4BF16, false)}, bf16Kernel{"avx2", with(gemm4BF16AVX2, true)})
	if hasBF16 {
		ks = append(ks, bf16Kernel{"bf16", with(gemm4BF16BF16, false)})
	}
	return ks
}
