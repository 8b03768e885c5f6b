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
	with := func(k int) func() func() {
		return func() func() {
			saved := bf16Path
			bf16Path = k
			return func() { bf16Path = saved }
		}
	}
	ks = append(ks, bf16Kernel{"avx512", with(bf16AVX512)}, bf16Kernel{"avx2", with(bf16AVX2)})
	if hasBF16 {
		ks = append(ks, bf16Kernel{"bf16", with(bf16Insn)})
	}
	return ks
}
