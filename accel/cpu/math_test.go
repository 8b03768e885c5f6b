package cpu

import (
	"math"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

// ulpDiff is |a - b| in units of float32 ulp at b.
func ulpDiff(a float32, b float64) float64 {
	ulp := math.Abs(float64(math.Nextafter32(float32(b), float32(math.Inf(1))) - float32(b)))
	return math.Abs(float64(a)-b) / ulp
}

// TestVexpf checks ggml_v_expf's accuracy (1.45 ulp for the polynomial, plus the final rounding; the AVX-512
// form reaches 2.1 ulp) over its whole range, including the
// scaled paths for results near overflow and underflow, and its saturation.
func TestVexpf(t *testing.T) {
	worst := 0.0
	for x := -87.0; x <= 88.5; x += 0.0173 {
		got, want := vexpf(float32(x)), math.Exp(float64(float32(x)))
		if d := ulpDiff(got, want); d > worst {
			worst = d
		}
	}
	if worst > 2.5 {
		t.Errorf("vexpf: worst error %.2f ulp in [-87, 88.5], want ≤ 2.5", worst)
	}
	for _, x := range []float32{-100, -95, -90, -88, 88.7, 88.72} {
		got, want := vexpf(x), math.Exp(float64(x))
		if want < 0x1p-126 { // subnormal results: absolute error of the smallest subnormals
			if math.Abs(float64(got)-want) > 0x1p-148 {
				t.Errorf("vexpf(%g) = %g, want %g", x, got, want)
			}
		} else if ulpDiff(got, want) > 2.5 {
			t.Errorf("vexpf(%g) = %g, want %g", x, got, want)
		}
	}
	cases := map[float32]float32{0: 1, -200: 0, 100: float32(math.Inf(1)), float32(math.Inf(-1)): 0}
	for x, want := range cases {
		if got := vexpf(x); got != want {
			t.Errorf("vexpf(%g) = %g, want %g", x, got, want)
		}
	}
	if got := vexpf(float32(math.NaN())); !math.IsNaN(float64(got)) {
		t.Errorf("vexpf(NaN) = %g", got)
	}
}

// TestGELUTable checks ggml's GGML_GELU_FP16 behaviour: saturation at ±10 and table values that are the F16
// rounding of the tanh approximation.
func TestGELUTable(t *testing.T) {
	tab := geluTable()
	for _, c := range []struct{ x, want float32 }{{-10, 0}, {-12.5, 0}, {10, 10}, {31.25, 31.25}, {0, 0}} {
		if got := geluF16(tab, c.x); got != c.want {
			t.Errorf("gelu(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	for x := float32(-9.9); x < 9.9; x += 0.0371 {
		h := quant.F32ToF16(x)
		xr := float64(quant.F16ToF32(h))
		want := 0.5 * xr * (1 + math.Tanh(math.Sqrt(2/math.Pi)*xr*(1+0.044715*xr*xr)))
		got := float64(geluF16(tab, x))
		if math.Abs(got-want) > 0x1p-11*math.Abs(want)+0x1p-22*math.Abs(xr)+1e-7 {
			t.Errorf("gelu(%g): table %g, want %g", x, got, want)
		}
		if geluF16(tab, x) != quant.F16ToF32(quant.F32ToF16(geluF16(tab, x))) {
			t.Errorf("gelu(%g) = %g is not an F16 value", x, got)
		}
	}
}

// TestYarnCorrDims checks ggml_rope_yarn_corr_dims on the values of a llama-2 YaRN setup: n_dims 128,
// n_ctx_orig 4096, base 10000, β 32 and 1 give the dimensions 20 and 46.
func TestYarnCorrDims(t *testing.T) {
	if got := yarnCorrDims(128, 4096, 10000, 32, 1); got != [2]float32{20, 46} {
		t.Errorf("corr dims = %v, want [20 46]", got)
	}
	// No original context: the start clamps to 0 and the end to -Inf, as in ggml.
	if got := yarnCorrDims(64, 0, 10000, 32, 1); got[0] != 0 || !math.IsInf(float64(got[1]), -1) {
		t.Errorf("corr dims without n_ctx_orig = %v", got)
	}
}

// TestVexpfScale checks vexpf's final scaling (a float64 product by 2^n, rounded once) against math.Ldexp over
// every result range, subnormal results included, so the shortcut keeps _mm512_scalef_ps's single rounding.
func TestVexpfScale(t *testing.T) {
	for x := float32(-104); x <= 89; x = math.Nextafter32(x, 100) + 0.0007 {
		z := fma32(x, expLog2e, expShift)
		n := z - expShift
		if n > expOver || n < -expOver {
			continue
		}
		b := fma32(-n, expLn2Lo, fma32(-n, expLn2Hi, x))
		u := float32(b * b)
		j := fma32(fma32(fma32(expC5, b, expC4), u, fma32(expC3, b, expC2)), u, fma32(expC1, b, 1))
		if got, want := vexpf(x), float32(math.Ldexp(float64(j), int(n))); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("vexpf(%g) = %g, ldexp %g", x, got, want)
		}
	}
}
