package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

// TestAxpyExact: the value sums of flash attention (assembly where the CPU has it) equal their scalar
// references bit for bit, F32 and F16 inputs, with and without the F16 rounding, on lengths with and without a
// tail.
func TestAxpyExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 15, 16, 32, 64, 80, 128, 131} {
		for trial := 0; trial < 50; trial++ {
			x, y0 := make([]float32, n), make([]float32, n)
			xh := make([]uint16, n)
			for i := range x {
				x[i] = float32(rng.NormFloat64() * math.Exp(rng.NormFloat64()))
				y0[i] = f16Round(float32(rng.NormFloat64() * 4))
				xh[i] = quant.F32ToF16(x[i])
			}
			a := float32(rng.Float64())
			for _, round := range []bool{false, true} {
				got := append([]float32(nil), y0...)
				axpy(x, got, a, round)
				for i := range x {
					want := fma32(x[i], a, y0[i])
					if round {
						want = f16Round(want)
					}
					if math.Float32bits(got[i]) != math.Float32bits(want) {
						t.Fatalf("axpy n=%d round=%v [%d]: %g, want %g", n, round, i, got[i], want)
					}
				}
			}
			for _, qt := range []quant.Type{quant.Q8_0, quant.Q4_0} {
				if n%32 != 0 {
					break
				}
				rb, _ := qt.RowBytes(n)
				qx, deq := make([]byte, rb), make([]float32, n)
				if qt == quant.Q8_0 {
					quant.QuantizeQ8_0(x, qx)
				} else {
					quant.QuantizeQ4_0(x, qx)
				}
				if err := quant.Dequantize(qt, qx, deq); err != nil {
					t.Fatal(err)
				}
				got := append([]float32(nil), y0...)
				axpyQ(qt, qx, got, make([]float32, n), a)
				for i := range deq {
					if want := fma32(deq[i], a, y0[i]); math.Float32bits(got[i]) != math.Float32bits(want) {
						t.Fatalf("axpyQ %s n=%d [%d]: %g, want %g", qt, n, i, got[i], want)
					}
				}
			}
			got := append([]float32(nil), y0...)
			axpyH(xh, got, a)
			for i := range xh {
				if want := f16Round(fma32(quant.F16ToF32(xh[i]), a, y0[i])); math.Float32bits(got[i]) != math.Float32bits(want) {
					t.Fatalf("axpyH n=%d [%d]: %g, want %g", n, i, got[i], want)
				}
			}
		}
	}
}
