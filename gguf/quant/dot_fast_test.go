package quant

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// Tests of the SIMD dot products (DotFunc) against the scalar references (RefDotFunc) on the same data.
//
// The kernels must produce the reference's integer block sums exactly; only the float32 accumulation order
// may differ. Two kinds of test check that:
//
//   - Exact: every quant byte random (so −128, 127, 0 and 15 nibbles, all-ones high bits occur), every scale
//     field ±2^e with one e per row. Then every term is an integer times 2^(e_w+e_a), and as long as the
//     partial sums stay below 2^24 in magnitude (the row lengths are chosen for that) every float32 operation
//     of either implementation is exact, so both must return the same bits. An integer sum that is off by
//     one anywhere shows up.
//   - Realistic: rows quantized from random floats with real scales. Here the accumulation order matters, and
//     the test allows |fast − ref| ≤ 1e-6·Σ|w·a|. Each float32 rounding has relative error ≤ 2^-24 ≈ 6e-8;
//     a row of m block terms accumulated in different orders differs by a random walk of about √m such
//     errors of the terms' size, far below 1e-6·Σ|w·a| (≈ 16 units of rounding of the whole magnitude) for
//     the lengths tested, while a wrong scale, a wrong lane or a lost block is orders of magnitude larger.

// fastTypes are the weight types whose DotFunc is not the reference on this machine.
func fastTypes() []Type {
	var ts []Type
	for _, w := range dotWeightTypes {
		if reflect.ValueOf(DotFunc(w)).Pointer() != reflect.ValueOf(RefDotFunc(w)).Pointer() {
			ts = append(ts, w)
		}
	}
	return ts
}

// scaleField is a float field of a block: its offset and whether it is an f16 (else float32).
type scaleField struct {
	off int
	f16 bool
}

var scaleFields = map[Type][]scaleField{
	Q4_0: {{0, true}}, Q4_1: {{0, true}, {2, true}}, Q5_0: {{0, true}}, Q5_1: {{0, true}, {2, true}},
	Q8_0: {{0, true}}, Q8_1: {{0, true}, {2, true}}, Q8_K: {{0, false}},
	Q2_K: {{80, true}, {82, true}}, Q3_K: {{108, true}}, Q4_K: {{0, true}, {2, true}}, Q5_K: {{0, true}, {2, true}},
	Q6_K: {{208, true}}, IQ4_NL: {{0, true}}, IQ4_XS: {{0, true}},
}

// randBlocks fills a row of nb blocks of type t with fill, then sets every scale field to ±2^e (one e for the
// row, the sign random per field) and, for Q8_K, the bsums to the true sums of the quants.
func randBlocks(r *rand.Rand, t Type, nb int, fill func(i int) byte) []byte {
	bb := t.BlockBytes()
	b := make([]byte, nb*bb)
	for i := range b {
		b[i] = fill(i)
	}
	fields := scaleFields[t]
	e := r.IntN(7) - 3
	for ib := 0; ib < nb; ib++ {
		blk := b[ib*bb : (ib+1)*bb]
		for _, f := range fields {
			neg := r.IntN(2) == 1
			if f.f16 {
				h := uint16(e+15) << 10
				if neg {
					h |= 0x8000
				}
				binary.LittleEndian.PutUint16(blk[f.off:], h)
			} else {
				u := uint32(e+127) << 23
				if neg {
					u |= 1 << 31
				}
				binary.LittleEndian.PutUint32(blk[f.off:], u)
			}
		}
		if t == Q8_K {
			for k := 0; k < 16; k++ {
				s := 0
				for _, q := range blk[4+16*k : 20+16*k] {
					s += int(int8(q))
				}
				binary.LittleEndian.PutUint16(blk[260+2*k:], uint16(int16(s)))
			}
		}
	}
	return b
}

// smallFloats returns n little-endian values of type t (F32, F16, BF16) that are small integers, so that
// every product and partial sum is exact in float32.
func smallFloats(r *rand.Rand, t Type, n int) []byte {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.IntN(129) - 64)
	}
	b := make([]byte, n*t.BlockBytes())
	if err := Quantize(t, x, b); err != nil {
		panic(err)
	}
	return b
}

// unaligned returns a copy of b starting off bytes into a fresh buffer.
func unaligned(b []byte, off int) []byte {
	buf := make([]byte, len(b)+off)
	copy(buf[off:], b)
	return buf[off : off+len(b)]
}

func checkSame(t *testing.T, w Type, n int, wb, ab []byte, what string) {
	t.Helper()
	got, want := DotFunc(w)(n, wb, ab), RefDotFunc(w)(n, wb, ab)
	if math.Float32bits(got) != math.Float32bits(want) {
		t.Fatalf("%s, n=%d: fast %v, reference %v", what, n, got, want)
	}
}

func TestFastDotExact(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, w := range fastTypes() {
		t.Run(w.String(), func(t *testing.T) {
			a := ActivationType(w)
			be := w.BlockElems()
			switch w {
			case F32, F16, BF16:
				for _, n := range []int{1, 7, 31, 32, 33, 64, 100, 255, 1000, 4096} {
					wb, ab := smallFloats(r, w, n), smallFloats(r, a, n)
					checkSame(t, w, n, unaligned(wb, n%8), unaligned(ab, n%5), "small integers")
				}
				return
			}
			random := func(int) byte { return byte(r.Uint32()) }
			lengths := []int{1, 2, 3, 4, 5, 8, 17, 64}
			if be == QKK {
				lengths = lengths[:5] // a random Q6_K super-block sums to ~1.6e6 (σ): keep 3σ below 2^24
			}
			for _, nb := range lengths {
				for trial := 0; trial < 20; trial++ {
					wb, ab := randBlocks(r, w, nb, random), randBlocks(r, a, nb, random)
					checkSame(t, w, nb*be, unaligned(wb, trial%8), unaligned(ab, trial%7), "random bytes")
				}
			}
			// Extreme patterns, one or two blocks so that even the largest sums stay exact in float32.
			patterns := []struct {
				name string
				fill func(i int) byte
			}{
				{"zero", func(int) byte { return 0 }},
				{"0xff", func(int) byte { return 0xff }},
				{"0x80", func(int) byte { return 0x80 }},
				{"0x7f", func(int) byte { return 0x7f }},
				{"0x88", func(int) byte { return 0x88 }},
				{"alternating", func(i int) byte { return byte(0x80 - i%2) }},
			}
			for _, pw := range patterns {
				for _, pa := range patterns {
					for _, nb := range []int{1, 2} {
						wb, ab := randBlocks(r, w, nb, pw.fill), randBlocks(r, a, nb, pa.fill)
						checkSame(t, w, nb*be, wb, ab, fmt.Sprintf("weights %s, activations %s", pw.name, pa.name))
					}
				}
			}
		})
	}
}

func TestFastDotRealistic(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, w := range fastTypes() {
		t.Run(w.String(), func(t *testing.T) {
			a := ActivationType(w)
			for _, n := range []int{256, 512, 2048, 4096, 11008} {
				for trial := 0; trial < 4; trial++ {
					wb := mustQuantize(t, w, randRow(r, n), false)
					ab := mustQuantize(t, a, randRow(r, n), true)
					wd, ad := mustDequantize(t, w, wb, n), mustDequantize(t, a, ab, n)
					var mag float64
					for i := range wd {
						mag += math.Abs(float64(wd[i]) * float64(ad[i]))
					}
					got := DotFunc(w)(n, unaligned(wb, trial), unaligned(ab, 3-trial))
					want := RefDotFunc(w)(n, wb, ab)
					if d := math.Abs(float64(got) - float64(want)); d > 1e-6*mag {
						t.Fatalf("n=%d trial %d: fast %v, reference %v (|diff| %.3g, Σ|w·a| %.3g)", n, trial, got, want, d, mag)
					}
				}
			}
		})
	}
}

// TestFastDotShortRows checks that a fast kernel given rows shorter than n panics (index out of range)
// instead of reading past them.
func TestFastDotShortRows(t *testing.T) {
	for _, w := range fastTypes() {
		t.Run(w.String(), func(t *testing.T) {
			n := 2 * w.BlockElems()
			if w == F32 || w == F16 || w == BF16 {
				n = 64
			}
			wn, _ := w.RowBytes(n)
			an, _ := ActivationType(w).RowBytes(n)
			for _, c := range []struct{ w, a int }{{wn - 1, an}, {wn, an - 1}} {
				func() {
					defer func() {
						if recover() == nil {
							t.Errorf("rows of %d and %d bytes for n=%d: no panic", c.w, c.a, n)
						}
					}()
					DotFunc(w)(n, make([]byte, c.w), make([]byte, c.a))
				}()
			}
		})
	}
}
