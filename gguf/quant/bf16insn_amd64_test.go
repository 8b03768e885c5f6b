//go:build amd64 && !noasm

package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBFStepInsn holds bfStep to VDPBF16PS itself on this CPU: 200,000 random steps of 16 lanes, half of them
// in the range where sums cross 2^-126, with denormal, zero, infinite and NaN inputs and accumulators, every
// lane bit for bit (any NaN matching any NaN). Then the cases that tell the rules apart.
func TestBFStepInsn(t *testing.T) {
	if !hasBF16 {
		t.Skip("no AVX-512 BF16 on this CPU")
	}
	r := rand.New(rand.NewPCG(41, 42))
	var w, a [2 * f32Lanes]uint16
	wb, ab := make([]byte, 4*f32Lanes), make([]byte, 4*f32Lanes)
	for trial := 0; trial < 200000; trial++ {
		tiny := trial%2 == 1
		var got, want [f32Lanes]float32
		for j := range got {
			got[j] = randF32Edge(r, tiny)
		}
		want = got
		for i := range w {
			w[i], a[i] = randBF16Edge(r, tiny, true), randBF16Edge(r, tiny, true)
			wb[2*i], wb[2*i+1], ab[2*i], ab[2*i+1] = byte(w[i]), byte(w[i]>>8), byte(a[i]), byte(a[i]>>8)
		}
		in := got
		vdpbf16ps(&got, &w, &a)
		bfStep(&want, wb, ab, 0)
		for j := range got {
			if !sameBits(got[j], want[j]) {
				t.Fatalf("trial %d lane %d: acc %#08x, w %#04x %#04x, a %#04x %#04x: instruction %#08x, bfStep %#08x",
					trial, j, math.Float32bits(in[j]), w[2*j+1], w[2*j], a[2*j+1], a[2*j],
					math.Float32bits(got[j]), math.Float32bits(want[j]))
			}
		}
	}
	bf := func(f float32) uint16 { return uint16(math.Float32bits(f) >> 16) }
	for _, c := range []struct {
		name           string
		acc            float32
		w1, a1, w0, a0 float32
		want           uint32
	}{
		{"denormal accumulator", math.Float32frombits(0x00400000), 0, 0, 0, 0, 0},
		{"denormal weight", 0, math.Float32frombits(0x00400000), 0x1p100, 0, 0, 0},
		{"tiny product flushed, its sign kept until the next add", 0, -0x1p-70, 0x1p-70, float32(math.Copysign(0, -1)), 1, 0x80000000},
		{"tiny first sum flushed", 0x1p-126, -0x1p-64, 0x1p-63, 0x1p-64, 0x1p-63, 0},
		{"product beyond float32's range", -math.MaxFloat32, 0x1p64, 0x1p64, 0, 0, 0x73800000},
		{"tiny before rounding, normal after", 0x1p-126, 0x1p-76, -0x1p-76, 0, 0, 0x00800000},
		{"normal in float32's denormal rounding, tiny after 24-bit rounding", 0x1p-126, 0x1p-76, -0x1p-74 * 0.75, 0, 0, 0},
	} {
		var l, lr [f32Lanes]float32
		var w, a [2 * f32Lanes]uint16
		l[0] = c.acc
		w[1], a[1], w[0], a[0] = bf(c.w1), bf(c.a1), bf(c.w0), bf(c.a0)
		lr = l
		vdpbf16ps(&l, &w, &a)
		for i := range w {
			wb[2*i], wb[2*i+1], ab[2*i], ab[2*i+1] = byte(w[i]), byte(w[i]>>8), byte(a[i]), byte(a[i]>>8)
		}
		bfStep(&lr, wb, ab, 0)
		if got := math.Float32bits(l[0]); got != c.want || math.Float32bits(lr[0]) != c.want {
			t.Errorf("%s: instruction %#08x, bfStep %#08x, want %#08x", c.name, got, math.Float32bits(lr[0]), c.want)
		}
	}
}
