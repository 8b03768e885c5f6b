package quant

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func randHalves(r *rand.Rand, n int) []byte {
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		h := F32ToF16(float32(r.NormFloat64()))
		b[2*i], b[2*i+1] = byte(h), byte(h>>8)
	}
	return b
}

// TestF16Rows compares DotF16Rows and AddWeightedF16Rows with their in-order references. The fast kernels
// add in several float32 lanes; the tolerance is 1e-6 of Σ|terms| (see dot_fast_test.go).
func TestF16Rows(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, n := range []int{1, 7, 8, 24, 64, 72, 128, 256} {
		for _, rows := range []int{1, 3, 4, 5, 17, 64} {
			for _, pad := range []int{0, 8, 3} {
				stride := n + pad
				kv := unaligned(randHalves(r, rows*stride), rows%3)
				q := make([]float32, n)
				for i := range q {
					q[i] = F16ToF32(F32ToF16(float32(r.NormFloat64())))
				}
				what := fmt.Sprintf("n=%d rows=%d stride=%d", n, rows, stride)
				got, want := make([]float32, rows), make([]float32, rows)
				DotF16Rows(q, kv, stride, got)
				dotF16RowsRef(q, kv, stride, want)
				for j := range got {
					mag := 0.0
					for d := 0; d < n; d++ {
						mag += math.Abs(float64(q[d] * f16at(kv, 2*(j*stride+d))))
					}
					if math.Abs(float64(got[j]-want[j])) > 1e-6*mag {
						t.Fatalf("DotF16Rows %s: out[%d] = %v, reference %v", what, j, got[j], want[j])
					}
				}
				p := make([]float32, rows)
				for i := range p {
					p[i] = r.Float32()
				}
				acc, ref := make([]float32, n), make([]float32, n)
				for i := range acc {
					acc[i] = float32(r.NormFloat64())
					ref[i] = acc[i]
				}
				AddWeightedF16Rows(acc, p, kv, stride)
				addWeightedF16RowsRef(ref, p, kv, stride)
				for d := range acc {
					mag := math.Abs(float64(acc[d]))
					for j := 0; j < rows; j++ {
						mag += math.Abs(float64(p[j] * f16at(kv, 2*(j*stride+d))))
					}
					if math.Abs(float64(acc[d]-ref[d])) > 1e-6*mag {
						t.Fatalf("AddWeightedF16Rows %s: out[%d] = %v, reference %v", what, d, acc[d], ref[d])
					}
				}
			}
		}
	}
}

func TestF16RowsBounds(t *testing.T) {
	kv := make([]byte, 2*(3*10+8)-1) // one half short of 4 rows of 8 at stride 10
	for name, f := range map[string]func(){
		"DotF16Rows":         func() { DotF16Rows(make([]float32, 8), kv, 10, make([]float32, 4)) },
		"AddWeightedF16Rows": func() { AddWeightedF16Rows(make([]float32, 8), make([]float32, 4), kv, 10) },
		"short stride":       func() { DotF16Rows(make([]float32, 8), make([]byte, 100), 4, make([]float32, 2)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkF16Rows: one query against 512 cached rows of 64 (bytes = cache bytes read).
func BenchmarkF16Rows(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, rows, stride = 64, 512, 4 * 64
	kv := randHalves(r, rows*stride)
	q, out, p := make([]float32, n), make([]float32, rows), make([]float32, rows)
	for i := range p {
		p[i] = 1.0 / rows
	}
	b.Run("dot", func(b *testing.B) {
		b.SetBytes(2 * n * rows)
		loopCPU(b, func() { DotF16Rows(q, kv, stride, out) })
	})
	b.Run("dot/ref", func(b *testing.B) {
		b.SetBytes(2 * n * rows)
		loopCPU(b, func() { dotF16RowsRef(q, kv, stride, out) })
	})
	acc := make([]float32, n)
	b.Run("weighted", func(b *testing.B) {
		b.SetBytes(2 * n * rows)
		loopCPU(b, func() { AddWeightedF16Rows(acc, p, kv, stride) })
	})
	b.Run("weighted/ref", func(b *testing.B) {
		b.SetBytes(2 * n * rows)
		loopCPU(b, func() { addWeightedF16RowsRef(acc, p, kv, stride) })
	})
}
