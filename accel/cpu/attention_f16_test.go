package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/forma-llm/forma/gguf/quant"
)

// TestAttentionF16Loops checks the SIMD forms of attnStep.head's F16 loops (dotsF16Fast, valueF16Fast, where
// the CPU has them) against the scalar loops bit for bit: head sizes from 8 to 256, any number of cells,
// row strides wider than a row, values from tiny (subnormal products) to large.
func TestAttentionF16Loops(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, size := range []int{8, 16, 24, 64, 72, 128, 136, 256} {
		for _, n := range []int{1, 7, 8, 9, 16, 31, 40, 57, 64} {
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

// TestAttentionSoftmaxLoops checks the SIMD forms of head's softmax loops (scaleMaxFast, sum16Fast,
// mulRoundF16Fast, where the CPU has them) against the scalar loops bit for bit, for lengths around their
// vector widths and values from subnormal to beyond F16's range.
func TestAttentionSoftmaxLoops(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 33, 100, 257} {
		for _, scale := range []float64{1e-6, 1, 1e5} {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.NormFloat64() * scale)
			}
			// scores times the attention scale, and their maximum
			got, want := append([]float32(nil), x...), append([]float32(nil), x...)
			const s = 0.125
			done, m := scaleMaxFast(got, s, float32(math.Inf(-1)))
			wm := float32(math.Inf(-1))
			for j := range want {
				want[j] *= s
				wm = max(wm, want[j])
			}
			for j := done; j < n; j++ {
				got[j] *= s
				m = max(m, got[j])
			}
			if hasAVX2 && n >= 8 && done == 0 {
				t.Fatal("the SIMD score loop did not run")
			}
			if n > 0 && math.Float32bits(m) != math.Float32bits(wm) {
				t.Fatalf("n=%d scale=%g: max %v, reference %v", n, scale, m, wm)
			}
			assertBits(t, fmt.Sprintf("n=%d scale=%g: scaled", n, scale), got, want)
			// the exponentials and their sum in groups of 16 aligned at cell 0 (first = 0: the SIMD sum; 5: Go)
			var p []float32
			for _, first := range []int{0, 5} {
				p = append([]float32(nil), want...)
				gsum := softmaxExp(p, first, wm)
				w := append([]float32(nil), want...)
				vexpVec(w, w, wm)
				var wsum float64
				var grp [16]float32
				for j := range w {
					grp[(first+j)%16] = w[j]
					if (first+j)%16 == 15 || j == n-1 {
						wsum += float64(quant.Reduce16(&grp))
						grp = [16]float32{}
					}
				}
				if math.Float64bits(gsum) != math.Float64bits(wsum) {
					t.Fatalf("n=%d scale=%g first=%d: sum %v, reference %v", n, scale, first, gsum, wsum)
				}
				assertBits(t, fmt.Sprintf("n=%d scale=%g: exponentials", n, scale), p, w)
			}
			// probabilities rounded to F16
			got, want = append([]float32(nil), p...), append([]float32(nil), p...)
			const inv = 0.37
			for j := mulRoundF16Fast(got, inv); j < n; j++ {
				got[j] = f16Round(got[j] * inv)
			}
			for j := range want {
				want[j] = f16Round(want[j] * inv)
			}
			assertBits(t, fmt.Sprintf("n=%d scale=%g: probabilities", n, scale), got, want)
		}
	}
}

func assertBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for j := range want {
		if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
			t.Fatalf("%s %d = %v, reference %v", what, j, got[j], want[j])
		}
	}
}

// TestValueF32: the F32 cache's value sum (attnStep.valueF32, whose accumulators lie lane by lane for vector
// axpys) is tinyBLAS's order written out: per output, cell c fused into lane c mod 16 in cell order, the lanes
// added as _mm512_reduce_add_ps; for a range of cells not starting at 0, KV head 1 of 2, head sizes with and
// without a vector tail.
func TestValueF32(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, vs := range []int{8, 24, 128} {
		const kvHeads, g, first, n = 2, 1, 5, 70
		v := make([]float32, (first+n)*kvHeads*vs)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		probs := make([]float32, n)
		for i := range probs {
			probs[i] = float32(r.Float64())
		}
		inv := float32(0.37)
		s := &attnStep{v: unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)), vsize: vs, vstride: vs, kvHeads: kvHeads}
		got := make([]float32, vs)
		s.valueF32(0, got, probs, first, g, inv, make([]float32, vs*f32Lanes))
		for d := 0; d < vs; d++ {
			var lanes [f32Lanes]float32
			for j, e := range probs {
				c := first + j
				x := v[(c*kvHeads+g)*vs+d]
				lanes[c%f32Lanes] = float32(math.FMA(float64(e*inv), float64(x), float64(lanes[c%f32Lanes])))
			}
			var h [8]float32
			for l := range h {
				h[l] = lanes[l] + lanes[l+8]
			}
			for w := 4; w >= 1; w /= 2 {
				for l := 0; l < w; l++ {
					h[l] += h[l+w]
				}
			}
			if math.Float32bits(got[d]) != math.Float32bits(h[0]) {
				t.Fatalf("vsize %d, output %d: %g, want %g", vs, d, got[d], h[0])
			}
		}
	}
}
