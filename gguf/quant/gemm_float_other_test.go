//go:build !amd64 || noasm

package quant

// bf16Kernel is one of the BF16 kernels this CPU can run (gemm_float_amd64_test.go).
type bf16Kernel struct {
	name string
	use  func() (restore func())
}

// bf16Kernels: only the installed one here.
func bf16Kernels() []bf16Kernel {
	return []bf16Kernel{{"installed", func() func() { return func() {} }}}
}
