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

// TestVectorMath checks vexpVec, siluVec and swiGLUVec against the scalar functions element by element,
// bit for bit.
func TestVectorMath(t *testing.T) {
	for _, x := range vmathInputs() {
		n := len(x)
		y := make([]float32, n)
		for _, m := range []float32{0, 3.5, -20} {
			vexpVec(x, y, m)
			for i, v := range x {
				if e := vexpf(v - m); !sameFloat(y[i], e) {
					t.Fatalf("vexpVec: exp(%v − %v) = %v, vexpf %v", v, m, y[i], e)
				}
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

func TestSegment(t *testing.T) {
	for _, cols := range []int{1, 15, 16, 17, 40, 64, 100} {
		for lo := 0; lo < 3*cols; lo += 7 {
			for hi := lo; hi <= 3*cols; hi += 5 {
				for a := lo; a < hi; {
					b, vec := segment(a, hi, cols)
					if b <= a || b > hi {
						t.Fatalf("cols %d [%d,%d): segment [%d,%d)", cols, lo, hi, a, b)
					}
					for i := a; i < b; i++ {
						if vec == vectorTail(i, cols) || i/cols != a/cols {
							t.Fatalf("cols %d [%d,%d): element %d in segment [%d,%d) vec=%v", cols, lo, hi, i, a, b, vec)
						}
					}
					a = b
				}
			}
		}
	}
}

func BenchmarkVectorMath(b *testing.B) {
	x := vmathInputs()[5]
	y := make([]float32, len(x))
	b.Run("vexp", func(b *testing.B) {
		b.SetBytes(4 * int64(len(x)))
		for b.Loop() {
			vexpVec(x, y, 1)
		}
	})
	b.Run("vexp/scalar", func(b *testing.B) {
		b.SetBytes(4 * int64(len(x)))
		for b.Loop() {
			for i, v := range x {
				y[i] = vexpf(v - 1)
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

// TestRoundF16 checks roundF16Vec against the scalar expressions bit for bit on
// finite input, including F16 rounding ties, F16 subnormals and values past the F16 range.
func TestRoundF16(t *testing.T) {
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
	}
}

// TestBinaryFast: the vector adds and multiplies (binaryFast, where the CPU has them) give a + b and a · b
// element by element on the elements they take, special values included, and take only whole vectors.
func TestBinaryFast(t *testing.T) {
	for _, x := range vmathInputs() {
		b := make([]float32, len(x))
		for i := range b {
			b[i] = x[len(x)-1-i] * 0.37
		}
		for _, add := range []bool{true, false} {
			y := make([]float32, len(x))
			for i := range y {
				y[i] = -7
			}
			n := binaryFast(add, x, b, y)
			if n%8 != 0 || n > len(x) || hasAVX2 && n != len(x)&^7 {
				t.Fatalf("len %d: took %d elements", len(x), n)
			}
			for i := range y {
				want := float32(-7)
				switch {
				case i >= n:
				case add:
					want = x[i] + b[i]
				default:
					want = x[i] * b[i]
				}
				if !sameFloat(y[i], want) {
					t.Fatalf("len %d, add %v, element %d: %v, want %v", len(x), add, i, y[i], want)
				}
			}
		}
	}
}
