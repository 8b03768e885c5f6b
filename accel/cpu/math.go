package cpu

import (
	"math"
	"sync"

	"github.com/forma-llm/forma/gguf/quant"
)

// fma32 is a float32 fused multiply-add, a·b+c rounded once, as the FMA instructions ggml's vector code uses.
// (It is computed in float64 and rounded to float32; the double rounding differs from a true float32 FMA
// only when the float64 result falls exactly halfway between two float32 values, which random data never hits.)
func fma32(a, b, c float32) float32 {
	return float32(math.FMA(float64(a), float64(b), float64(c)))
}

// Coefficients of ggml_v_expf (ggml-cpu/vec.h, "adapted from arm limited optimized routine").
const (
	expShift = 0x1.8p23       // 1.5·2^23: adding it rounds to an integer in the low mantissa bits
	expLog2e = 0x1.715476p+0  // log2(e)
	expLn2Hi = 0x1.62e4p-1    // ln(2), high part
	expLn2Lo = 0x1.7f7d1cp-20 // ln(2), low part
	expC1    = 0x1.ffffecp-1  // polynomial coefficients of exp(b)-1 on |b| ≤ ln(2)/2
	expC2    = 0x1.fffdb6p-2  //
	expC3    = 0x1.555e66p-3  //
	expC4    = 0x1.573e2ep-5  //
	expC5    = 0x1.0e4020p-7  //
	expOver  = 192            // |n| above which the result is 0 or +Inf
)

// vexpf is ggml_v_expf as the reference build (x86-64, AVX-512) computes it for softmax, SiLU and SwiGLU:
// n = round(x·log2 e), b = x - n·ln 2 in two parts, j = 1 + b·c1 + b²·(…) with the "1 +" folded into the
// last fused multiply-add, and the result j·2^n by _mm512_scalef_ps (one rounding, also for subnormal
// results); |n| > 192 gives 0 or +Inf. (The AVX2 and NEON variants round k + k·j instead, which differs in
// the last bit for some inputs.)
func vexpf(x float32) float32 {
	z := fma32(x, expLog2e, expShift)
	n := z - expShift
	b := fma32(-n, expLn2Hi, x)
	b = fma32(-n, expLn2Lo, b)
	u := float32(b * b)
	j := fma32(fma32(fma32(expC5, b, expC4), u, fma32(expC3, b, expC2)), u, fma32(expC1, b, 1))
	if n != n { // NaN in, NaN out (scalef propagates it)
		return n
	}
	if !(n <= expOver && n >= -expOver) {
		if n <= 0 {
			return 0
		}
		return float32(math.Inf(1))
	}
	// j·2^n exactly in float64 (|n| ≤ 192 keeps the power of two normal there), rounded once to float32
	return float32(float64(j) * math.Float64frombits(uint64(int64(n)+1023)<<52))
}

// expf stands for the C library's expf, which ggml uses for the elements after the last full vector: the
// correctly rounded value, which glibc's expf (error under 0.51 ulp) returns for all but rare arguments.
func expf(x float32) float32 { return float32(math.Exp(float64(x))) }

// siluTail is ggml_silu_f32: x / (1 + expf(-x)).
func siluTail(x float32) float32 { return x / float32(1+expf(-x)) }

// silu is ggml_v_silu: x / (1 + exp(-x)).
func silu(x float32) float32 {
	return x / float32(1+vexpf(-x))
}

// GELU constants of ggml (vec.h).
const (
	geluCoefA    float32 = 0.044715
	sqrt2OverPi  float32 = 0.79788456080286535587989211986876
	geluSaturate float32 = 10 // beyond ±10 ggml's table lookup is skipped
)

// gelu32 is ggml_gelu_f32, the tanh approximation evaluated in float32.
func gelu32(x float32) float32 {
	inner := float32(1 + float32(float32(geluCoefA*x)*x))
	t := float32(math.Tanh(float64(float32(float32(sqrt2OverPi*x) * inner))))
	return float32(float32(0.5*x) * float32(1+t))
}

// geluTable returns ggml_table_gelu_f16: for every F16 bit pattern h, F16(gelu(h)). It is built once.
var geluTable = sync.OnceValue(func() *[1 << 16]uint16 {
	var t [1 << 16]uint16
	for i := range t {
		t[i] = quant.F32ToF16(gelu32(quant.F16ToF32(uint16(i))))
	}
	return &t
})

// geluF16 is ggml_vec_gelu_f32 with GGML_GELU_FP16: the table lookup of x rounded to F16.
func geluF16(tab *[1 << 16]uint16, x float32) float32 {
	switch {
	case x <= -geluSaturate:
		return 0
	case x >= geluSaturate:
		return x
	}
	return quant.F16ToF32(tab[quant.F32ToF16(x)])
}

// f16Round rounds x to the nearest F16 value (ties to even) and widens it back.
func f16Round(x float32) float32 { return quant.F16ToF32(quant.F32ToF16(x)) }

// sqrtf is a correctly rounded float32 square root.
func sqrtf(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// expfVec sets y[i] = expf(x[i]) (len(y) ≥ len(x)).
func expfVec(x, y []float32) {
	for i := expfVecFast(x, y); i < len(x); i++ {
		y[i] = expf(x[i])
	}
}
