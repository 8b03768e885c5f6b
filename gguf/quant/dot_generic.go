//go:build (!amd64 && !arm64) || noasm

package quant

// Without assembly (other architectures, or the noasm build tag) DotFunc returns the references.
