//go:build (!amd64 && !arm64) || noasm

package quant

// Without assembly (other architectures, or the noasm build tag) DotFunc returns the references.

// VecDotF32s is VecDotF32.
func VecDotF32s(x, y []float32) float32 { return VecDotF32(x, y) }

func cpuPath() string { return "generic" }
