package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestQuantizeQ8Exact checks QuantizeQ8_0 and QuantizeQ8_1 (and so the Gemm's activations, which share
// their block kernel) against quantizeQ8x86 bit for bit, on finite input: random rows at many scales, exact
// rounding ties, zero and denormal blocks, the largest floats.
func TestQuantizeQ8Exact(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	var blocks [][]float32
	for e := -140; e <= 120; e += 13 {
		blocks = append(blocks, scaled(randRow(r, QK), float32(math.Pow(2, float64(e)))))
	}
	ties := make([]float32, QK) // amax 127: x·(127/amax) = x, every x a tie
	for i := range ties {
		ties[i] = float32(i-16) + 0.5
	}
	ties[31] = 127
	blocks = append(blocks, ties, scaled(ties, -1), make([]float32, QK))
	one := make([]float32, QK)
	one[7] = -3
	denorm := make([]float32, QK)
	for i := range denorm {
		denorm[i] = math.Float32frombits(uint32(r.IntN(1 << 23)))
	}
	huge := make([]float32, QK)
	for i := range huge {
		huge[i] = math.MaxFloat32 * (r.Float32()*2 - 1)
	}
	negZero := make([]float32, QK)
	for i := range negZero {
		negZero[i] = float32(math.Copysign(0, -1))
	}
	blocks = append(blocks, one, denorm, huge, negZero)
	var src []float32
	for _, b := range blocks {
		src = append(src, b...)
	}
	for len(src) < 100*QK { // more than one chunk
		src = append(src, scaled(randRow(r, QK), r.Float32()*100)...)
	}
	for _, nb := range []int{1, 2, 7, len(blocks), len(src) / QK} {
		x := src[:nb*QK]
		for _, c := range []struct {
			stride int
			f      func([]float32, []byte)
			header func([]byte, float32, int)
		}{{34, QuantizeQ8_0, q8_0Header}, {36, QuantizeQ8_1, q8_1Header}} {
			got, want := make([]byte, nb*c.stride), make([]byte, nb*c.stride)
			c.f(x, got)
			for i := 0; i < nb; i++ {
				b := want[i*c.stride:]
				d, s := quantizeQ8x86(x[i*QK:(i+1)*QK], b[c.stride-QK:c.stride])
				c.header(b, d, s)
			}
			for i := 0; i < nb; i++ {
				if g, w := got[i*c.stride:(i+1)*c.stride], want[i*c.stride:(i+1)*c.stride]; string(g) != string(w) {
					t.Fatalf("nb=%d stride %d: block %d (%v…) = %v, reference %v", nb, c.stride, i, x[i*QK], g, w)
				}
			}
		}
	}
}

func scaled(x []float32, s float32) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = v * s
	}
	return y
}

// TestQuantizeQ8KExact checks QuantizeQ8_K against its portable reference bit for bit on finite input:
// many scales, blocks where +max and −max both occur (the first decides the sign), exact ties, zero,
// denormal and tiny blocks.
func TestQuantizeQ8KExact(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	var src []float32
	for e := -130; e <= 120; e += 10 {
		src = append(src, scaled(randRow(r, QKK), float32(math.Pow(2, float64(e))))...)
	}
	for _, first := range []float32{5, -5} { // both signs of the largest magnitude, in either order,
		for _, second := range []int{19, 200} { // in the same 8 elements and far apart
			b := scaled(randRow(r, QKK), 0.1)
			b[17], b[second] = first, -first
			src = append(src, b...)
		}
	}
	ties := make([]float32, QKK) // max −127: iscale 1, every x.5 a tie
	for i := range ties {
		ties[i] = float32(i%200-100) + 0.5
	}
	ties[255] = -127
	src = append(src, ties...)
	src = append(src, make([]float32, QKK)...)
	for len(src)/QKK < 40 {
		src = append(src, scaled(randRow(r, QKK), r.Float32()*10)...)
	}
	nb := len(src) / QKK
	got, want := make([]byte, nb*292), make([]byte, nb*292)
	for i := range got {
		got[i] = 0xa5 // every byte must be written
	}
	QuantizeQ8_K(src, got)
	quantizeQ8KRef(src, want)
	for i := 0; i < nb; i++ {
		if g, w := got[i*292:(i+1)*292], want[i*292:(i+1)*292]; string(g) != string(w) {
			t.Fatalf("block %d differs:\n got %v\nwant %v", i, g, w)
		}
	}
}
