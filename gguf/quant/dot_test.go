package quant

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// dotWeightTypes are all weight types with a dot product.
var dotWeightTypes = []Type{F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS, MXFP4}

func randRow(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		// varying magnitude per 32 elements, an occasional outlier
		scale := float32(math.Exp2(float64(i/32%7) - 3))
		x[i] = float32(r.NormFloat64()) * scale
		if r.IntN(97) == 0 {
			x[i] *= 8
		}
	}
	return x
}

func mustQuantize(t *testing.T, ty Type, x []float32, activation bool) []byte {
	t.Helper()
	nb, err := ty.RowBytes(len(x))
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, nb)
	if activation {
		err = QuantizeActivation(ty, x, b)
	} else {
		err = Quantize(ty, x, b)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustDequantize(t *testing.T, ty Type, b []byte, n int) []float32 {
	t.Helper()
	y := make([]float32, n)
	if err := Dequantize(ty, b, y); err != nil {
		t.Fatal(err)
	}
	return y
}

// q8_1Correction returns, for weights with an offset (Q4_1, Q5_1), the difference between what the kernel
// uses for the offset term (m·s, s rounded to f16) and what the dequantized rows give (m·d·Σq).
func q8_1Correction(w Type, wb, ab []byte, n int) float64 {
	if w != Q4_1 && w != Q5_1 {
		return 0
	}
	bb := w.BlockBytes()
	var c float64
	for ib := 0; ib < n/QK; ib++ {
		m := float64(f16at(wb[ib*bb:], 2))
		y := ab[ib*36 : ib*36+36]
		sq := 0
		for _, q := range y[4:36] {
			sq += int(int8(q))
		}
		c += m * (float64(f16at(y, 2)) - float64(f16at(y, 0))*float64(sq))
	}
	return c
}

func TestDotMatchesDequantizedProduct(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 1024
	for _, w := range dotWeightTypes {
		t.Run(w.String(), func(t *testing.T) {
			a := ActivationType(w)
			f := DotFunc(w)
			if f == nil {
				t.Fatal("no dot function")
			}
			for trial := 0; trial < 8; trial++ {
				wb := mustQuantize(t, w, randRow(r, n), false)
				ab := mustQuantize(t, a, randRow(r, n), true)
				wd, ad := mustDequantize(t, w, wb, n), mustDequantize(t, a, ab, n)
				var ref, mag float64
				for i := range wd {
					p := float64(wd[i]) * float64(ad[i])
					ref += p
					mag += math.Abs(p)
				}
				ref += q8_1Correction(w, wb, ab, n)
				got := f(n, wb, ab)
				if d := math.Abs(float64(got) - ref); d > 1e-6*mag {
					t.Fatalf("trial %d: dot %v, float64 reference %v (|diff| %.3g, Σ|w·a| %.3g)", trial, got, ref, d, mag)
				}
				if v, err := VecDot(w, n, wb, ab); err != nil || math.Float32bits(v) != math.Float32bits(got) {
					t.Fatalf("VecDot = %v, %v; want %v", v, err, got)
				}
			}
		})
	}
}

// TestDotBlockMath checks the float association of single-block dots exactly: with one block the x86 lane
// order is all that is left — eight lanes of four products, each scaled by dw·da, added as hsum_float_8 —
// and the interleaved (repacked) kernel scales the whole block sum once.
func TestDotBlockMath(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x, y := randRow(r, QK), randRow(r, QK)
	wb := mustQuantize(t, Q4_0, x, false)
	ab := mustQuantize(t, Q8_0, y, true)
	d := f16at(wb, 0) * f16at(ab, 0)
	var lane [8]float32
	total := 0
	for j := 0; j < QK; j++ {
		var wq int
		if j < 16 {
			wq = int(wb[2+j]&15) - 8
		} else {
			wq = int(wb[2+j-16]>>4) - 8
		}
		p := wq * int(int8(ab[2+j]))
		lane[j/4] += float32(p) // exact: small integers
		total += p
	}
	for i := range lane {
		lane[i] *= d
	}
	want := ((lane[0] + lane[4]) + (lane[2] + lane[6])) + ((lane[1] + lane[5]) + (lane[3] + lane[7]))
	if got := DotQ4_0Q8_0(QK, wb, ab); got != want {
		t.Fatalf("DotQ4_0Q8_0 = %v, want %v", got, want)
	}
	if got, want := DotQ4_0Q8_0Interleaved(QK, wb, ab), float32(total)*d; got != want {
		t.Fatalf("DotQ4_0Q8_0Interleaved = %v, want %v", got, want)
	}
}

func TestActivationType(t *testing.T) {
	want := map[Type]Type{
		Q4_0: Q8_0, Q5_0: Q8_0, Q8_0: Q8_0, IQ4_NL: Q8_0, MXFP4: Q8_0,
		Q4_1: Q8_1, Q5_1: Q8_1,
		Q2_K: Q8_K, Q3_K: Q8_K, Q4_K: Q8_K, Q5_K: Q8_K, Q6_K: Q8_K, IQ4_XS: Q8_K,
		F16: F16, BF16: BF16, F32: F32,
	}
	for w, a := range want {
		if got := ActivationType(w); got != a {
			t.Errorf("ActivationType(%s) = %s, want %s", w, got, a)
		}
	}
	if DotFunc(IQ2_XXS) != nil || ActivationType(IQ2_XXS) != F32 {
		t.Error("IQ2_XXS should have no dot product and fall back to F32")
	}
}

func TestVecDotErrors(t *testing.T) {
	w := make([]byte, 18*2)
	a := make([]byte, 34*2)
	cases := []struct {
		name string
		ty   Type
		n    int
		w, a []byte
	}{
		{"unsupported", IQ2_XXS, 256, w, a},
		{"not a block multiple", Q4_0, 48, w, a},
		{"short weights", Q4_0, 64, w[:35], a},
		{"short activations", Q4_0, 64, w, a[:67]},
		{"negative n", Q4_0, -32, w, a},
	}
	for _, c := range cases {
		if _, err := VecDot(c.ty, c.n, c.w, c.a); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if v, err := VecDot(Q4_0, 64, w, a); err != nil || v != 0 {
		t.Errorf("zero rows: %v, %v", v, err)
	}
}

func TestActivationQuantizers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := randRow(r, 1024)
	x[300] = 0 // keep an exact zero
	for i := 512; i < 768; i++ {
		x[i] = 0 // one all-zero Q8_K block
	}
	t.Run("Q8_K", func(t *testing.T) {
		b := mustQuantize(t, Q8_K, x, true)
		y := mustDequantize(t, Q8_K, b, len(x))
		for i := 0; i < len(x)/QKK; i++ {
			blk := b[i*292 : i*292+292]
			d := f32at(blk, 0)
			for k := 0; k < 16; k++ {
				s := 0
				for _, q := range blk[4+16*k : 20+16*k] {
					s += int(int8(q))
				}
				if got := int(int16(binary.LittleEndian.Uint16(blk[260+2*k:]))); got != s {
					t.Fatalf("block %d bsums[%d] = %d, want %d", i, k, got, s)
				}
			}
			for j := i * QKK; j < (i+1)*QKK; j++ {
				if math.Abs(float64(y[j]-x[j])) > 0.5001*math.Abs(float64(d)) {
					t.Fatalf("element %d: %v → %v with d %v", j, x[j], y[j], d)
				}
			}
		}
		if zero := b[2*292 : 3*292]; f32at(zero, 0) != 0 || string(zero) != string(make([]byte, 292)) {
			t.Fatal("all-zero block not all zero")
		}
	})
	for _, ty := range []Type{Q8_0, Q8_1} {
		t.Run(ty.String(), func(t *testing.T) {
			b := mustQuantize(t, ty, x, true)
			y := mustDequantize(t, ty, b, len(x))
			bb, off := ty.BlockBytes(), ty.BlockBytes()-QK
			ref := mustQuantize(t, ty, x, false) // ggml's scalar reference
			for i := 0; i < len(x)/QK; i++ {
				blk := b[i*bb : (i+1)*bb]
				d := f16at(blk, 0)
				sq := 0
				for j, q := range blk[off:] {
					sq += int(int8(q))
					if e := math.Abs(float64(y[i*QK+j] - x[i*QK+j])); e > 0.51*float64(d) {
						t.Fatalf("block %d element %d: %v → %v with d %v", i, j, x[i*QK+j], y[i*QK+j], d)
					}
					if diff := int(int8(q)) - int(int8(ref[i*bb+off+j])); diff < -1 || diff > 1 {
						t.Fatalf("block %d element %d: q %d vs reference %d", i, j, int8(q), int8(ref[i*bb+off+j]))
					}
				}
				// s uses the float32 scale, before it is rounded to f16
				d32 := absMax(x[i*QK:(i+1)*QK]) / 127
				if ty == Q8_1 && binary.LittleEndian.Uint16(blk[2:]) != F32ToF16(d32*float32(sq)) {
					t.Fatalf("block %d: s = %v, want f16(d·Σq) = %v", i, f16at(blk, 2), d32*float32(sq))
				}
			}
		})
	}
}
