//go:build arm64 && !noasm

package quant

// archVariants are every arm64 kernel, not only those Dot picks on this CPU: the SDOT variants where the
// CPU has dotprod (run the tests also on one without, e.g. QEMU_CPU=cortex-a72, to check what Dot picks
// there), the NEON variants everywhere.
func archVariants() []dotVariant {
	return []dotVariant{
		{F32, OrderVecDot, "neon", dotF32Vec, true},
		{F16, OrderVecDot, "neon", dotF16Vec, true},
		{F32, OrderTiled, "neon", dotF32Tiled, true},
		{F16, OrderTiled, "neon", dotF16Tiled, true},
		{Q4_0, OrderVecDot, "neon", dotQ4_0FastNEON, true},
		{Q4_1, OrderVecDot, "neon", dotQ4_1FastNEON, true},
		{Q5_0, OrderVecDot, "neon", dotQ5_0FastNEON, true},
		{Q5_1, OrderVecDot, "neon", dotQ5_1FastNEON, true},
		{Q8_0, OrderVecDot, "neon", dotQ8_0FastNEON, true},
		{Q4_0, OrderVecDot, "sdot", dotQ4_0FastSDOT, hasDotProd},
		{Q4_1, OrderVecDot, "sdot", dotQ4_1FastSDOT, hasDotProd},
		{Q5_0, OrderVecDot, "sdot", dotQ5_0FastSDOT, hasDotProd},
		{Q5_1, OrderVecDot, "sdot", dotQ5_1FastSDOT, hasDotProd},
		{Q8_0, OrderVecDot, "sdot", dotQ8_0FastSDOT, hasDotProd},
		{Q4_K, OrderVecDot, "neon", dotQ4_KFast, true},
		{Q5_K, OrderVecDot, "neon", dotQ5_KFast, true},
		{Q6_K, OrderVecDot, "neon", dotQ6_KFast, true},
	}
}
