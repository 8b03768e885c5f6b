//go:build arm64 && !noasm

package quant

// archVariants are every arm64 kernel, not only those Dot picks on this CPU.
func archVariants() []dotVariant { return nil }
