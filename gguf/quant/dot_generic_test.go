//go:build (!amd64 && !arm64) || noasm

package quant

func archVariants() []dotVariant { return nil }
