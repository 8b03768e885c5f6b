package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

// TestAttentionF16Loops checks the SIMD forms of attnStep.head's F16 loops (dotsF16Fast, valueF16Fast, where
// the CPU has them) against the scalar loops bit for bit: head sizes from 8 to 256, any number of cells,
// row strides wider than a row, values from tiny (subnormal products) to large.
func TestAttentionF16Loops(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, size := range []int{8, 16, 24, 64, 72, 128, 136, 256} {
		for _, n := range []int{1, 7, 8, 9, 16, 31, 64} {
			for _, scale := range []float64{1e-4, 1, 300} {
				t.Run(fmt.Sprintf("size=%d/n=%d/scale=%g", size, n, scale), func(t *testing.T) {
					stride := size + 8*r.IntN(3)
					q := make([]float32, size)
					for d := range q {
						q[d] = f16Round(float32(r.NormFloat64() * scale))
					}
					k := u16s(randF16Bytes(r, (n-1)*stride+size, scale))
					got := make([]float32, n)
					done := dotsF16Fast(q, k, stride, got)
					if hasAVX2 && n >= 8 && done == 0 {
						t.Fatal("the SIMD scores did not run")
					}
					for j := 0; j < n; j++ {
						want := dotF16(q, k[j*stride:j*stride+size])
						if j < done && math.Float32bits(got[j]) != math.Float32bits(want) {
							t.Fatalf("score %d = %v, reference %v", j, got[j], want)
						}
					}
					p := make([]float32, n)
					for j := range p {
						p[j] = f16Round(float32(r.Float64()))
					}
					want, out := make([]float32, size), make([]float32, size)
					for d := range out {
						out[d] = float32(r.NormFloat64())
						want[d] = out[d]
					}
					for j, pj := range p {
						for d, x := range k[j*stride : j*stride+size] {
							want[d] += pj * quant.F16ToF32(x)
						}
					}
					if !valueF16Fast(out, p, k, stride) {
						if hasAVX2 {
							t.Fatal("the SIMD value sum did not run")
						}
						return
					}
					for d := range out {
						if math.Float32bits(out[d]) != math.Float32bits(want[d]) {
							t.Fatalf("value %d = %v, reference %v", d, out[d], want[d])
						}
					}
				})
			}
		}
	}
}
