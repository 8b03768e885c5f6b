//go:build amd64 && !noasm

package quant

// archVariants are every amd64 kernel, not only those Dot picks on this CPU.
func archVariants() []dotVariant {
	return []dotVariant{
		{F32, OrderVecDot, "avx2", dotF32Vec, hasAVX2},
		{F16, OrderVecDot, "avx2", dotF16Vec, hasAVX2},
		{F32, OrderTiled, "avx2", dotF32Tiled, hasAVX2},
		{F16, OrderTiled, "avx2", dotF16Tiled, hasAVX2},
		{Q4_0, OrderVecDot, "avx2", dotQ4_0Fast, hasAVX2},
		{Q4_1, OrderVecDot, "avx2", dotQ4_1Fast, hasAVX2},
		{Q5_0, OrderVecDot, "avx2", dotQ5_0Fast, hasAVX2},
		{Q5_1, OrderVecDot, "avx2", dotQ5_1Fast, hasAVX2},
		{Q8_0, OrderVecDot, "avx2", dotQ8_0Fast, hasAVX2},
		{Q8_0, OrderVecDot, "vnni", dotQ8_0FastVNNI, hasVNNI},
		{Q4_0, OrderRepacked, "avx2", dotQ4_0RepackedFast, hasAVX2},
		{Q2_K, OrderVecDot, "avx2", dotQ2_KFast, hasAVX2},
		{Q3_K, OrderVecDot, "avx2", dotQ3_KFast, hasAVX2},
		{Q4_K, OrderVecDot, "avx2", dotQ4_KFast, hasAVX2},
		{Q5_K, OrderVecDot, "avx2", dotQ5_KFast, hasAVX2},
		{Q6_K, OrderVecDot, "avx2", dotQ6_KFast, hasAVX2},
		{IQ4_NL, OrderVecDot, "avx2", dotIQ4_NLFast, hasAVX2},
		{IQ4_XS, OrderVecDot, "avx2", dotIQ4_XSFast, hasAVX2},
	}
}
