package quant

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloatDotLayouts checks the AVX-512 layouts against each other (byte and float32 forms), against a float64
// sum, and the lane structure on a case where it decides the result.
func TestFloatDotLayouts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{8, 16, 64, 172, 256, 320} {
		x, y := randRow(r, n), randRow(r, n)
		xb, yb := make([]byte, 4*n), make([]byte, 4*n)
		var ref, mag float64
		for i := range x {
			binary.LittleEndian.PutUint32(xb[4*i:], math.Float32bits(x[i]))
			binary.LittleEndian.PutUint32(yb[4*i:], math.Float32bits(y[i]))
			ref += float64(x[i]) * float64(y[i])
			mag += math.Abs(float64(x[i]) * float64(y[i]))
		}
		v := VecDotF32(x, y)
		if b := DotF32F32(n, xb, yb); b != v {
			t.Errorf("n=%d: DotF32F32 %v, VecDotF32 %v", n, b, v)
		}
		if math.Abs(float64(v)-ref) > 1e-6*mag {
			t.Errorf("n=%d: VecDotF32 %v, float64 %v", n, v, ref)
		}
		if n%16 == 0 {
			tl := TiledDotF32(x, y)
			if b := DotF32F32Tiled(n, xb, yb); b != tl {
				t.Errorf("n=%d: DotF32F32Tiled %v, TiledDotF32 %v", n, b, tl)
			}
			if math.Abs(float64(tl)-ref) > 1e-6*mag {
				t.Errorf("n=%d: TiledDotF32 %v, float64 %v", n, tl, ref)
			}
		}
	}
	// Lane structure: 1 in lane 0 and 2^-24 in lanes 1 and 3 survive the pairwise reduction (lane 0 meets them
	// only after they have been added together), unlike a sequential sum.
	x := make([]float32, 16)
	y := make([]float32, 16)
	for i := range y {
		y[i] = 1
	}
	x[0], x[1], x[3] = 1, 0x1p-24, 0x1p-24
	if got, want := TiledDotF32(x, y), float32(1+0x1p-23); got != want {
		t.Errorf("TiledDotF32 lanes: %v, want %v", got, want)
	}
}

// TestVecDotF32Tail checks the reference build's order for the elements after the last 64-element step:
// products rounded in blocks of 16 and 8, fused multiply-adds for the last fewer than 8. Two elements at i and
// i+1 carry -(1+2^-11) and (1+2^-12)² = 1+2^-11+2^-24: a fused multiply-add keeps the 2^-24 the rounded
// product loses.
func TestVecDotF32Tail(t *testing.T) {
	for _, c := range []struct {
		n, i  int
		fused bool // element i+1 is added by a fused multiply-add
	}{
		{2, 0, true}, {7, 5, true}, {8, 6, false}, {9, 7, true}, {15, 13, true}, {16, 14, false},
		{18, 16, true}, {24, 22, false}, {31, 29, true}, {40, 38, false}, {47, 45, true}, {64 + 2, 64, true},
		{64 + 8, 70, false}, {64 + 63, 64 + 61, true}, {64 + 62, 64 + 54, false}, {64, 62, false},
	} {
		x, y := make([]float32, c.n), make([]float32, c.n)
		x[c.i], y[c.i] = -1, 1+0x1p-11
		x[c.i+1], y[c.i+1] = 1+0x1p-12, 1+0x1p-12
		want := float32(0)
		if c.fused {
			want = 0x1p-24
		}
		if got := VecDotF32(x, y); got != want {
			t.Errorf("n=%d, elements %d and %d: %g, want %g", c.n, c.i, c.i+1, got, want)
		}
		xb, yb := make([]byte, 4*c.n), make([]byte, 4*c.n)
		for k := range x {
			binary.LittleEndian.PutUint32(xb[4*k:], math.Float32bits(x[k]))
			binary.LittleEndian.PutUint32(yb[4*k:], math.Float32bits(y[k]))
		}
		if got := Dot(F32, OrderVecDot)(c.n, xb, yb); got != want {
			t.Errorf("n=%d, elements %d and %d: Dot(F32) %g, want %g", c.n, c.i, c.i+1, got, want)
		}
	}
}
