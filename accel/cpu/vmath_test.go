package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// vmathInputs covers vexpf's whole range (both of its paths, overflow and underflow), special values and
// lengths that are not multiples of the vector width.
func vmathInputs() [][]float32 {
	r := rand.New(rand.NewPCG(7, 8))
	var sets [][]float32
	for _, n := range []int{1, 15, 16, 17, 100, 1000} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.Float64()*300 - 200)
		}
		sets = append(sets, x)
	}
	sweep := make([]float32, 0, 20000)
	for v := -110.0; v <= 95; v += 0.0131 {
		sweep = append(sweep, float32(v))
	}
	special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), 88.72, 88.73, -87.33, -87.34, -103.97, -103.98, 1e-30, -1e-30, 126, -126}
	for len(special)%16 != 3 {
		special = append(special, float32(r.NormFloat64()*50))
	}
	return append(sets, sweep, special)
}

func sameFloat(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// TestVectorMath checks expSum, siluVec and swiGLUVec against the scalar functions element by element, bit
// for bit; expSum's float64 total may differ in order only.
func TestVectorMath(t *testing.T) {
	for _, x := range vmathInputs() {
		n := len(x)
		y := make([]float32, n)
		var want float64
		for _, m := range []float32{0, 3.5, -20} {
			sum := expSum(x, y, m)
			want = 0
			for i, v := range x {
				e := vexpf(v - m)
				want += float64(e)
				if !sameFloat(y[i], e) {
					t.Fatalf("expSum: exp(%v − %v) = %v, vexpf %v", v, m, y[i], e)
				}
			}
			if d := math.Abs(sum - want); !(d <= 1e-12*math.Abs(want)) && !(math.IsNaN(sum) && math.IsNaN(want)) &&
				!(math.IsInf(sum, 1) && math.IsInf(want, 1)) {
				t.Fatalf("expSum total %v, in order %v", sum, want)
			}
		}
		siluVec(x, y)
		for i, v := range x {
			if !sameFloat(y[i], silu(v)) {
				t.Fatalf("siluVec(%v) = %v, silu %v", v, y[i], silu(v))
			}
		}
		u := make([]float32, n)
		for i := range u {
			u[i] = float32(i%7) - 2.5
		}
		swiGLUVec(x, u, y)
		for i, v := range x {
			if w := silu(v) * u[i]; !sameFloat(y[i], w) {
				t.Fatalf("swiGLUVec(%v, %v) = %v, want %v", v, u[i], y[i], w)
			}
		}
	}
}

func BenchmarkVectorMath(b *testing.B) {
	x := vmathInputs()[5]
	y := make([]float32, len(x))
	b.Run("expSum", func(b *testing.B) {
		b.SetBytes(4 * int64(len(x)))
		for b.Loop() {
			expSum(x, y, 1)
		}
	})
	b.Run("expSum/scalar", func(b *testing.B) {
		b.SetBytes(4 * int64(len(x)))
		for b.Loop() {
			var s float64
			for i, v := range x {
				y[i] = vexpf(v - 1)
				s += float64(y[i])
			}
		}
	})
	b.Run("swiglu", func(b *testing.B) {
		b.SetBytes(4 * int64(len(x)))
		for b.Loop() {
			swiGLUVec(x, x, y)
		}
	})
}

// TestScaleMaxAndRoundF16 checks scaleMaxVec and roundF16Vec against the scalar expressions bit for bit on
// finite input, including F16 rounding ties, F16 subnormals and values past the F16 range.
func TestScaleMaxAndRoundF16(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{1, 15, 16, 17, 100, 1000} {
		x := make([]float32, n)
		for i := range x {
			switch i % 5 {
			case 0:
				x[i] = float32(r.NormFloat64() * 100)
			case 1:
				x[i] = float32(r.NormFloat64() * 1e-6) // F16 subnormals
			case 2:
				x[i] = float32(int(r.IntN(2048))) + 0.5 // ties above 1024: F16 spacing 1
			case 3:
				x[i] = float32(r.NormFloat64() * 1e5) // past 65504
			default:
				x[i] = math.Float32frombits(r.Uint32() & 0xbf7fffff) // any finite bits
			}
		}
		y := append([]float32(nil), x...)
		roundF16Vec(y)
		for i := range x {
			if want := f16Round(x[i]); math.Float32bits(y[i]) != math.Float32bits(want) {
				t.Fatalf("roundF16Vec(%v) = %v, want %v", x[i], y[i], want)
			}
		}
		y = append(y[:0], x...)
		m := scaleMaxVec(y, 0.125)
		want := float32(math.Inf(-1))
		for i := range x {
			v := x[i] * 0.125
			want = max(want, v)
			if math.Float32bits(y[i]) != math.Float32bits(v) {
				t.Fatalf("scaleMaxVec: %v·0.125 = %v, want %v", x[i], y[i], v)
			}
		}
		if m != want {
			t.Fatalf("scaleMaxVec max %v, want %v", m, want)
		}
	}
}
