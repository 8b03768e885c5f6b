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

// TestAxpyQRowsExact: the several-row value sum (axpyQRowsFast, where the CPU has it) equals the rows added one
// at a time by the scalar reference, bit for bit, for 1–4 rows of 1–9 blocks (the kernel's chunks of four
// blocks and its single blocks) at a stride past the row.
func TestAxpyQRowsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, qt := range []quant.Type{quant.Q8_0, quant.Q4_0} {
		for nb := 1; nb <= 9; nb++ {
			for rows := 1; rows <= 4; rows++ {
				n := 32 * nb
				rb, _ := qt.RowBytes(n)
				stride := rb + 10
				x := make([]byte, rows*stride)
				deq := make([][]float32, rows)
				w := make([]float32, rows)
				for r := range deq {
					v := make([]float32, n)
					for i := range v {
						v[i] = float32(rng.NormFloat64() * math.Exp(rng.NormFloat64()))
					}
					if qt == quant.Q8_0 {
						quant.QuantizeQ8_0(v, x[r*stride:])
					} else {
						quant.QuantizeQ4_0(v, x[r*stride:])
					}
					deq[r] = make([]float32, n)
					if err := quant.Dequantize(qt, x[r*stride:r*stride+rb], deq[r]); err != nil {
						t.Fatal(err)
					}
					w[r] = float32(rng.Float64())
				}
				y := make([]float32, n)
				for i := range y {
					y[i] = float32(rng.NormFloat64())
				}
				want := append([]float32(nil), y...)
				for r := range deq {
					for i := range want {
						want[i] = fma32(deq[r][i], w[r], want[i])
					}
				}
				if !axpyQRowsFast(qt, x, stride, rows, y, w) {
					continue
				}
				for i := range y {
					if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s %d blocks, %d rows [%d]: %g, want %g", qt, nb, rows, i, y[i], want[i])
					}
				}
			}
		}
	}
}

// TestAxpyHRowsExact: the several-row F16 value sum (axpyHRowsFast, where the CPU has it) equals the rows added
// one at a time by axpyH, bit for bit, for 1–4 rows of 8–208 elements at a stride past the row.
func TestAxpyHRowsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 8; n <= 208; n += 8 {
		for rows := 1; rows <= 4; rows++ {
			stride := 2*n + 6
			x := make([]byte, rows*stride)
			w := make([]float32, rows)
			for r := range w {
				for i := 0; i < n; i++ {
					h := quant.F32ToF16(float32(rng.NormFloat64() * 3))
					x[r*stride+2*i], x[r*stride+2*i+1] = byte(h), byte(h>>8)
				}
				w[r] = float32(rng.Float64())
			}
			y := make([]float32, n)
			for i := range y {
				y[i] = f16Round(float32(rng.NormFloat64() * 4))
			}
			want := append([]float32(nil), y...)
			for r := range w {
				axpyH(u16s(x[r*stride:r*stride+2*n]), want, w[r])
			}
			if !axpyHRowsFast(x, stride, rows, y, w) {
				t.Skip("no several-row F16 kernel on this CPU")
			}
			for i := range y {
				if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n=%d, %d rows [%d]: %g, want %g", n, rows, i, y[i], want[i])
				}
			}
		}
	}
}
