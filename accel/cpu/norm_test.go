package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRMSNorm4: sumSquares4Fast's float64 sums are those of the squares added in order, and rmsNorm, and four
// rows normalised together by rmsNorm4, are bit-identical to ggml_compute_forward_rms_norm_f32's loops written
// out (refRMSNorm), for row lengths with and without a remainder after the vectors.
func TestRMSNorm4(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, cols := range []int{1, 7, 64, 128, 1000, 2048} {
		x := make([]float32, 4*cols)
		for i := range x {
			// rows 0 and 1 of like magnitudes; rows 2 and 3 spread over 10^-6 … 10^6, whose float64 sums round
			x[i] = float32(rng.NormFloat64())
			if i >= 2*cols {
				x[i] *= float32(math.Pow(10, float64(rng.IntN(13)-6)))
			}
		}
		// the sums themselves, whose float64 bits the rounding to the float32 mean would mostly hide
		var sums [4]float64
		done := sumSquares4Fast(x, cols, &sums)
		for r := range sums {
			var want float64
			for _, v := range x[r*cols : r*cols+done] {
				want += float64(float32(v * v))
			}
			if math.Float64bits(sums[r]) != math.Float64bits(want) {
				t.Fatalf("cols %d: row %d's sum of %d squares is %v, in order %v", cols, r, done, sums[r], want)
			}
		}
		got, one, want := make([]float32, len(x)), make([]float32, len(x)), make([]float32, len(x))
		rmsNorm4(x, got, cols, 1e-6)
		for r := 0; r < 4; r++ {
			rmsNorm(x[r*cols:(r+1)*cols], one[r*cols:(r+1)*cols], 1e-6)
			refRMSNorm(x[r*cols:(r+1)*cols], want[r*cols:(r+1)*cols], 1e-6)
		}
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) || math.Float32bits(one[i]) != math.Float32bits(want[i]) {
				t.Fatalf("cols %d: element %d: rmsNorm4 %g, rmsNorm %g, reference %g", cols, i, got[i], one[i], want[i])
			}
		}
	}
}

// refRMSNorm is ggml's rms_norm for one row: each square a float32, summed in float64 (ggml_float) in order,
// the mean rounded to float32, every element times 1/sqrtf(mean + eps).
func refRMSNorm(x, y []float32, eps float32) {
	var sum float64
	for _, v := range x {
		sum += float64(float32(v * v))
	}
	scale := 1 / float32(math.Sqrt(float64(float32(sum/float64(len(x)))+eps)))
	for i, v := range x {
		y[i] = v * scale
	}
}

// BenchmarkRMSNorm is a 512-token prefill's norm of 1024-wide rows, one row at a time and four together.
func BenchmarkRMSNorm(b *testing.B) {
	const rows, cols = 512, 1024
	x, y := make([]float32, rows*cols), make([]float32, rows*cols)
	for i := range x {
		x[i] = float32(i%97) - 48
	}
	b.Run("one", func(b *testing.B) {
		b.SetBytes(4 * rows * cols)
		for b.Loop() {
			for r := 0; r < rows; r++ {
				rmsNorm(x[r*cols:(r+1)*cols], y[r*cols:(r+1)*cols], 1e-6)
			}
		}
	})
	b.Run("four", func(b *testing.B) {
		b.SetBytes(4 * rows * cols)
		for b.Loop() {
			for r := 0; r < rows; r += 4 {
				rmsNorm4(x[r*cols:(r+4)*cols], y[r*cols:(r+4)*cols], cols, 1e-6)
			}
		}
	})
}
