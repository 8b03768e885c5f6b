package quant

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

var allTypes = Types()

func TestCanDequantizeQuantize(t *testing.T) {
	want := []Type{F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q8_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K, IQ4_NL, IQ4_XS, MXFP4}
	for _, ty := range want {
		if !CanDequantize(ty) || !CanQuantize(ty) {
			t.Errorf("%s: CanDequantize %v, CanQuantize %v", ty, CanDequantize(ty), CanQuantize(ty))
		}
	}
	for _, ty := range []Type{IQ2_XXS, IQ1_S, TQ1_0, I8, Type(4), Type(1000)} {
		if CanDequantize(ty) || CanQuantize(ty) {
			t.Errorf("%s should not be supported", ty)
		}
	}
}

func TestConversionErrors(t *testing.T) {
	for _, ty := range allTypes {
		be, bb := max(1, ty.BlockElems()), ty.BlockBytes()
		if !CanDequantize(ty) {
			if err := Dequantize(ty, make([]byte, bb), make([]float32, be)); err == nil || !strings.Contains(err.Error(), "unsupported") {
				t.Errorf("%s: Dequantize error %v, want unsupported", ty, err)
			}
			if err := Quantize(ty, make([]float32, be), make([]byte, bb)); err == nil {
				t.Errorf("%s: Quantize of unsupported type succeeded", ty)
			}
			continue
		}
		if err := Dequantize(ty, make([]byte, 2*bb-1), make([]float32, 2*be)); err == nil {
			t.Errorf("%s: Dequantize with a short src succeeded", ty)
		}
		if err := Quantize(ty, make([]float32, 2*be), make([]byte, 2*bb-1)); err == nil {
			t.Errorf("%s: Quantize with a short dst succeeded", ty)
		}
		if be > 1 {
			if err := Dequantize(ty, make([]byte, 4*bb), make([]float32, be+1)); err == nil {
				t.Errorf("%s: Dequantize of a partial block succeeded", ty)
			}
			if err := Quantize(ty, make([]float32, be-1), make([]byte, 4*bb)); err == nil {
				t.Errorf("%s: Quantize of a partial block succeeded", ty)
			}
		}
		if err := Dequantize(ty, nil, nil); err != nil {
			t.Errorf("%s: empty Dequantize: %v", ty, err)
		}
	}
	if err := QuantizeActivation(Q4_0, make([]float32, 32), make([]byte, 18)); err == nil {
		t.Error("QuantizeActivation(Q4_0) succeeded")
	}
	if err := QuantizeActivation(Q8_K, make([]float32, 256), make([]byte, 291)); err == nil {
		t.Error("QuantizeActivation with a short dst succeeded")
	}
}

// TestRandomBytesNeverPanic feeds arbitrary bytes (NaN and Inf scales included) and odd lengths to the
// checked entry points.
func TestRandomBytesNeverPanic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, ty := range allTypes {
		for trial := 0; trial < 20; trial++ {
			src := make([]byte, r.IntN(3*max(1, ty.BlockBytes())+3))
			for i := range src {
				src[i] = byte(r.Uint32())
			}
			dst := make([]float32, r.IntN(3*max(1, ty.BlockElems())+3))
			_ = Dequantize(ty, src, dst)
			f := make([]float32, len(dst))
			for i := range f {
				f[i] = math.Float32frombits(r.Uint32())
			}
			_ = Quantize(ty, f, src)
			_ = QuantizeActivation(ty, f, src)
			_, _ = VecDot(ty, len(dst), src, src)
		}
	}
}

// TestQuantizeDequantizeRoundTrip checks every quantizer on data unlike the reference vectors: special
// blocks (all zero, constant, one spike) and random rows, against a per-type error bound.
func TestQuantizeDequantizeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	x := randRow(r, 2048)
	for i := 0; i < 256; i++ {
		x[i] = 0 // zero super-block
		x[256+i] = 0.25
		x[512+i] = 0
	}
	x[600] = -3                     // a lone spike
	maxRelRMSE := map[Type]float64{ // about 1.3 × what the quantizers reach on this row
		F32: 0, F16: 5e-4, BF16: 2e-3, Q8_0: 0.011, Q8_1: 0.011, Q8_K: 0.03,
		Q6_K: 0.03, Q5_1: 0.055, Q5_K: 0.055, Q5_0: 0.08, Q4_K: 0.11, Q4_1: 0.11,
		IQ4_NL: 0.14, IQ4_XS: 0.14, MXFP4: 0.16, Q4_0: 0.16, Q3_K: 0.27, Q2_K: 0.43,
	}
	var norm float64
	for _, v := range x {
		norm += float64(v) * float64(v)
	}
	norm = math.Sqrt(norm / float64(len(x)))
	for ty, bound := range maxRelRMSE {
		b := mustQuantize(t, ty, x, false)
		y := mustDequantize(t, ty, b, len(x))
		if e := rmse(x, y) / norm; e > bound {
			t.Errorf("%s: relative RMSE %.4f > %.4f", ty, e, bound)
		}
		for i := 0; i < 256; i++ {
			if y[i] != 0 {
				t.Fatalf("%s: zero block element %d → %v", ty, i, y[i])
			}
		}
	}
}

// TestNoAllocations checks the doc's promise: converting and dot products allocate nothing.
func TestNoAllocations(t *testing.T) {
	x := randRow(rand.New(rand.NewPCG(13, 14)), 512)
	y := make([]float32, len(x))
	for _, ty := range Types() {
		if !CanQuantize(ty) {
			continue
		}
		nb, _ := ty.RowBytes(len(x))
		b := make([]byte, nb)
		if n := testing.AllocsPerRun(3, func() { _ = Quantize(ty, x, b) }); n != 0 {
			t.Errorf("Quantize(%s) allocates %v times", ty, n)
		}
		if n := testing.AllocsPerRun(3, func() { _ = Dequantize(ty, b, y) }); n != 0 {
			t.Errorf("Dequantize(%s) allocates %v times", ty, n)
		}
	}
	for _, w := range dotWeightTypes {
		a := ActivationType(w)
		wb, ab := mustQuantize(t, w, x, false), mustQuantize(t, a, x, true)
		if n := testing.AllocsPerRun(3, func() {
			_ = QuantizeActivation(a, x, ab)
			_, _ = VecDot(w, len(x), wb, ab)
		}); n != 0 {
			t.Errorf("activation %s / dot %s allocate %v times", a, w, n)
		}
	}
}
