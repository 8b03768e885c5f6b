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
