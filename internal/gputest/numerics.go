package gputest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/libm"
)

// fma32 is a·b+c rounded once.
func fma32(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }

// vexpfRef is ggml_v_expf in the reference build's AVX-512 form (the CPU backend's copy of it), the reference for
// the shaders'.
func vexpfRef(x float32) float32 {
	z := fma32(x, 0x1.715476p+0, 0x1.8p23)
	n := z - 0x1.8p23
	b := fma32(-n, 0x1.62e4p-1, x)
	b = fma32(-n, 0x1.7f7d1cp-20, b)
	u := b * b
	j := fma32(fma32(fma32(0x1.0e4020p-7, b, 0x1.573e2ep-5), u, fma32(0x1.555e66p-3, b, 0x1.fffdb6p-2)), u, fma32(0x1.ffffecp-1, b, 1))
	if n != n {
		return n
	}
	if !(n <= 192 && n >= -192) {
		if n <= 0 {
			return 0
		}
		return float32(math.Inf(1))
	}
	return float32(math.Ldexp(float64(j), int(n)))
}

// Kernel runs numeric_check.comp's function fn (its specialization constant FN) over a, b and c (each as long
// as a) on a device and returns the results, failing t if it cannot.
type Kernel func(t *testing.T, fn uint32, a, b, c []float32) []float32

// Numerics runs numeric.glsl's functions through run and compares every result bit for bit with Go: correctly
// rounded tanh, square root and division, GNU libc's cosf and sinf (internal/libm), ggml's exponential, F16 and
// BF16 rounding. These are what make the shaders' results independent of the GPU's own (loosely specified)
// transcendentals; on Metal they check the MSL translation and the compile options (safe math, no contraction)
// as well.
func Numerics(t *testing.T, run Kernel) {
	r := rand.New(rand.NewPCG(9, 10))
	const n = 1 << 16
	gen := func(f func() float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(f())
		}
		return v
	}
	// Cancelling fused multiply-adds: c = -(a·b) perturbed in its last bits.
	fmaA, fmaB, fmaC := gen(r.NormFloat64), gen(r.NormFloat64), make([]float32, n)
	for i := range fmaC {
		fmaC[i] = math.Float32frombits(math.Float32bits(-fmaA[i]*fmaB[i]) + uint32(r.IntN(5)) - 2)
	}
	bfAcc, bfW, bfX := bf16MulAddArgs(r, n)
	cases := []struct {
		name    string
		fn      uint32
		a, b, c []float32
		ref     func(a, b, c float32) float32
	}{
		{"tanh", 0, gen(func() float64 { return r.NormFloat64() * math.Pow(10, r.Float64()*4-3) }), nil, nil,
			func(a, _, _ float32) float32 { return float32(math.Tanh(float64(a))) }},
		// Angles from 2^-13 to 10^6 of both signs: the polynomials alone, the short and the long reduction.
		{"cos", 1, gen(func() float64 { return r.NormFloat64() * math.Pow(10, r.Float64()*10-4) }), nil, nil,
			func(a, _, _ float32) float32 { return libm.Cosf(a) }},
		{"sin", 2, gen(func() float64 { return r.NormFloat64() * math.Pow(10, r.Float64()*10-4) }), nil, nil,
			func(a, _, _ float32) float32 { return libm.Sinf(a) }},
		// Down to e^-70: below about 1e-30 the exact product's low part would be subnormal, which GPUs flush,
		// and such terms vanish next to the 1 of a softmax or SiLU anyway.
		{"vexpf", 3, gen(func() float64 { return -r.Float64()*70 + 5*r.Float64() }), nil, nil, func(a, _, _ float32) float32 { return vexpfRef(a) }},
		{"expf", 9, gen(func() float64 { return r.Float64()*170 - 80 }), nil, nil,
			func(a, _, _ float32) float32 { return float32(math.Exp(float64(a))) }},
		{"fma", 8, gen(r.NormFloat64), gen(r.NormFloat64), gen(r.NormFloat64), fma32},
		// c close to -a·b: cancellation, where a split fused multiply-add goes wrong most.
		{"fma-cancel", 8, fmaA, fmaB, fmaC, fma32},
		{"sqrt", 4, gen(func() float64 { return r.ExpFloat64() * 10 }), nil, nil,
			func(a, _, _ float32) float32 { return float32(math.Sqrt(float64(a))) }},
		{"div", 5, gen(r.NormFloat64), gen(func() float64 { return r.NormFloat64() * 100 }), nil,
			func(a, b, _ float32) float32 { return a / b }},
		{"f16", 6, gen(func() float64 { return r.NormFloat64() * math.Pow(2, r.Float64()*40-25) }), nil, nil,
			func(a, _, _ float32) float32 { return float32(quant.F32ToF16(a)) }},
		{"bf16", 7, gen(func() float64 { return r.NormFloat64() * 1e3 }), nil, nil,
			func(a, _, _ float32) float32 { return quant.BF16ToF32(quant.F32ToBF16(a)) }},
		{"bf16-madd", bf16MaddFn, bfAcc, bfW, bfX, quant.BF16MulAdd},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.b == nil {
				c.b = c.a
			}
			if c.c == nil {
				c.c = c.a
			}
			got := run(t, c.fn, c.a, c.b, c.c)
			signed := c.fn == bf16MaddFn // zeros' signs count (else -0 matches +0), and any NaN matches any NaN
			bad := 0
			for i := range got {
				want := c.ref(c.a[i], c.b[i], c.c[i])
				same := math.Float32bits(got[i]) == math.Float32bits(want) || !signed && got[i] == 0 && want == 0 ||
					signed && got[i] != got[i] && want != want
				if !same {
					if bad < 5 {
						t.Errorf("%s(%g (%#x), %g (%#x), %g (%#x)) = %g (%#x), want %g (%#x)", c.name, c.a[i], math.Float32bits(c.a[i]),
							c.b[i], math.Float32bits(c.b[i]), c.c[i], math.Float32bits(c.c[i]), got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
					}
					bad++
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d results differ", bad, n)
			}
		})
	}
}

// bf16MaddFn is numeric_check.comp's bf16_madd.
const bf16MaddFn = 11

// bf16MulAddArgs returns n accumulators and n pairs of bf16 values (as float32) for bf16_madd: denormals,
// zeros, infinities and NaNs among them; a third of them with products and sums near 2^-126, a third with
// products beyond float32's range, the rest moderate.
func bf16MulAddArgs(r *rand.Rand, n int) (acc, w, x []float32) {
	acc, w, x = make([]float32, n), make([]float32, n), make([]float32, n)
	val := func(regime int, bits int) uint32 {
		sign := uint32(r.IntN(2)) << 31
		m := r.Uint32() & (1<<23 - 1) &^ (1<<(23-bits) - 1) // bits of significand: 7 for a bf16, 23 for a float32
		var e uint32
		switch k := r.IntN(100); {
		case k < 20:
			return sign | max(m, 1<<(23-bits)) // denormal
		case k < 26:
			return sign
		case k < 28:
			return sign | 0x7f800000
		case k < 30:
			return sign | 0x7fc00000 | m
		case regime == 0: // products 2^-138 … 2^-112, accumulators 2^-126 … 2^-120
			e = uint32(58 + r.IntN(13))
			if bits == 23 {
				e = uint32(1 + r.IntN(6))
			}
		case regime == 1: // products 2^126 … 2^254
			e = uint32(190 + r.IntN(64))
			if bits == 23 {
				e = uint32(240 + r.IntN(14))
			}
		default:
			e = uint32(112 + r.IntN(30))
		}
		return sign | e<<23 | m
	}
	for i := range acc {
		g := r.IntN(3)
		acc[i] = math.Float32frombits(val(g, 23))
		w[i] = math.Float32frombits(val(g, 7))
		x[i] = math.Float32frombits(val(g, 7))
	}
	// The cases that tell the rules apart (quant's TestBFStepInsn): 2^-126 − 2^-152 rounds up to 2^-126 and
	// stays; 2^-126 − 0.75·2^-150 stays under and flushes; a product beyond float32's range that a sum brings
	// back; a product under 2^-189 beside a normal and beside a zero accumulator.
	for i, c := range [][3]float32{{0x1p-126, 0x1p-76, -0x1p-76}, {0x1p-126, 0x1p-76, -0x1p-74 * 0.75},
		{-math.MaxFloat32, 0x1p64, 0x1p64}, {0x1p-120, 0x1p-100, 0x1p-100}, {0, -0x1p-100, 0x1p-100}} {
		acc[i], w[i], x[i] = c[0], c[1], c[2]
	}
	return acc, w, x
}

// ProbeFMA checks a backend's probe of the device's fma() (fused, its finding) on random arguments: the probe
// must say "fused" exactly when every one of them rounds once.
func ProbeFMA(t *testing.T, fused bool, run Kernel) {
	r := rand.New(rand.NewPCG(15, 16))
	const n = 1 << 14
	a, b, c := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i], c[i] = float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())
	}
	got := run(t, 10, a, b, c)
	all := true
	for i := range got {
		all = all && got[i] == fma32(a[i], b[i], c[i])
	}
	if fused != all {
		t.Errorf("probe says fused %v, random arguments say %v", fused, all)
	}
}
