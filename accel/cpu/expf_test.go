package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExpfVec checks expfVec against expf bit for bit: vmathInputs, two million random float32 bit patterns
// of [−128, 0] and a sweep over [−104, 0] at a step that is no power of two, plus inputs whose exp lies
// closest to a float32 rounding boundary (the vector path must hand those to expf).
func TestExpfVec(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	sets := vmathInputs()
	x := make([]float32, 2_000_000)
	for i := range x {
		x[i] = -float32(math.Float32frombits(r.Uint32() % 0x43000000)) // |x| < 128
	}
	sets = append(sets, x)
	var sweep []float32
	for v := -104.0; v <= 0; v += 0.000731 {
		sweep = append(sweep, float32(v))
	}
	sets = append(sets, sweep)
	for _, x := range sets {
		y := make([]float32, len(x))
		expfVec(x, y)
		for i, v := range x {
			if want := expf(v); !sameFloat(y[i], want) {
				t.Fatalf("expf(%g) = %g (%#x), want %g (%#x)", v, y[i], math.Float32bits(y[i]), want, math.Float32bits(want))
			}
		}
	}
	// Every float32 in [−104, 0) whose exp lies within 1e-7 ulp of a float32 midpoint (found by a search over
	// all of them): the vector path must hand each to expf (its bound is 2^−40 relative, ~1.5e-5 ulp).
	near := make([]float32, 0, len(nearMidpoint)+8)
	for _, b := range nearMidpoint {
		near = append(near, math.Float32frombits(b))
	}
	for len(near)%8 != 0 {
		near = append(near, -1)
	}
	y := make([]float32, len(near))
	expfVec(near, y)
	for i, v := range near {
		if want := expf(v); !sameFloat(y[i], want) {
			t.Fatalf("near a midpoint: expf(%g) = %g, want %g", v, y[i], want)
		}
	}
	if got := expfVecLeft(near, y); got >= 0 && got != len(nearMidpoint) {
		t.Errorf("the vector path left %d of the %d inputs near a midpoint to expf", got, len(nearMidpoint))
	}
}

// nearMidpoint are the bits of the float32 x in [−104, 0) whose exp lies within 1e-7 ulp of a float32 midpoint.
var nearMidpoint = []uint32{
	0xc16912cd, 0xbbf0edf1, 0xc2b2e798, 0xbae0e25c, 0xbc2a461a, 0xc0781533, 0xbbb70ee8, 0xc13d6631,
	0xbcb8f40f, 0xb7f4c0ea, 0xbfbfa14b, 0xb7c9c09f, 0xbf81eadf, 0xba7242a6, 0xbf76fd92, 0xbdb393eb,
	0xc2b27dd9, 0xc0382e72, 0xc159fa1e, 0xc2b43fb7, 0xbee0e6cd, 0xb5d4000b, 0xb616000b, 0xb4200001,
	0xb4b00002, 0xb6b50020, 0xb3c00001, 0xb3000001, 0xc236e4b4, 0xbe67b559, 0xbce017bb, 0xbdf128eb,
	0xbfab7ce4, 0xbeed01af, 0xbb9cbb8e, 0xc2ae7135, 0xb3c00000, 0xbb9af86a, 0xbffc842d, 0xbb8d98f5,
	0xc03359cb, 0xbe5f667d, 0xbf157c82, 0xba525799, 0xbadd0ab0, 0xb9584db6,
}

func BenchmarkExpfVec(b *testing.B) {
	x, y := make([]float32, 4096), make([]float32, 4096)
	for i := range x {
		x[i] = -float32(i) / 100
	}
	b.Run("vec", func(b *testing.B) {
		b.SetBytes(4 * int64(len(x)))
		for b.Loop() {
			expfVec(x, y)
		}
	})
	b.Run("scalar", func(b *testing.B) {
		b.SetBytes(4 * int64(len(x)))
		for b.Loop() {
			for i, v := range x {
				y[i] = expf(v)
			}
		}
	})
}
