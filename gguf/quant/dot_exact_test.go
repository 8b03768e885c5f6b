package quant

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Tests that every fast dot product returns its reference's bits (RefDot(w, o)) for every input: random
// bytes (every quant value, −128 included) with random finite scales, rows quantized from random floats,
// extreme byte patterns, unaligned rows, every length class the kernels treat differently. Equality is
// bitwise; no tolerance.

// scaleField is a float field of a block: its offset and whether it is an f16 (else float32).
type scaleField struct {
	off int
	f16 bool
}

var scaleFields = map[Type][]scaleField{
	Q4_0: {{0, true}}, Q4_1: {{0, true}, {2, true}}, Q5_0: {{0, true}}, Q5_1: {{0, true}, {2, true}},
	Q8_0: {{0, true}}, Q8_1: {{0, true}, {2, true}}, Q8_K: {{0, false}},
	Q2_K: {{80, true}, {82, true}}, Q3_K: {{108, true}}, Q4_K: {{0, true}, {2, true}}, Q5_K: {{0, true}, {2, true}},
	Q6_K: {{208, true}}, IQ4_NL: {{0, true}}, IQ4_XS: {{0, true}}, MXFP4: nil,
}

// randScale returns a random finite scale of varying magnitude and sign.
func randScale(r *rand.Rand) float32 {
	return float32(r.NormFloat64() * math.Pow(10, r.Float64()*5-4))
}

// fillBlocks returns nb blocks of type t filled with fill(i), every scale field a random finite number, and
// for Q8_K the bsums set to the true sums of the quants.
func fillBlocks(r *rand.Rand, t Type, nb int, fill func(i int) byte) []byte {
	bb := t.BlockBytes()
	b := make([]byte, nb*bb)
	for i := range b {
		b[i] = fill(i)
	}
	for ib := 0; ib < nb; ib++ {
		blk := b[ib*bb : (ib+1)*bb]
		for _, f := range scaleFields[t] {
			if f.f16 {
				binary.LittleEndian.PutUint16(blk[f.off:], F32ToF16(randScale(r)))
			} else {
				putF32(blk, f.off, randScale(r))
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

// randScaled returns nb blocks of random bytes with random finite scales.
func randScaled(r *rand.Rand, t Type, nb int) []byte {
	return fillBlocks(r, t, nb, func(int) byte { return byte(r.Uint32()) })
}

// randFloats returns n random values of type t (F32, F16) of varying magnitude.
func randFloats(r *rand.Rand, t Type, n int) []byte {
	x := make([]float32, n)
	for i := range x {
		x[i] = randScale(r)
	}
	b := make([]byte, n*t.BlockBytes())
	if err := Quantize(t, x, b); err != nil {
		panic(err)
	}
	return b
}

// randBF16Edge returns a random bf16 for the BF16 numerics tests: denormals (a quarter), zeros, infinities
// and NaNs (when special is set), values whose products land near float32's smallest normal 2^-126 (when tiny
// is set), else normal values of moderate exponent.
func randBF16Edge(r *rand.Rand, tiny, special bool) uint16 {
	sign := uint16(r.IntN(2)) << 15
	m := uint16(r.IntN(128))
	switch k := r.IntN(100); {
	case k < 25:
		return sign | max(m, 1) // denormal
	case k < 30:
		return sign
	case special && k < 32:
		return sign | 0x7f80
	case special && k < 34:
		return sign | 0x7f80 | max(m, 1) // NaN, quiet or signalling
	case tiny:
		return sign | uint16(58+r.IntN(13))<<7 | m // products 2^-138 … 2^-112
	default:
		return sign | uint16(112+r.IntN(30))<<7 | m
	}
}

// randF32Edge returns a random float32 accumulator: denormals, zeros, values near 2^-126 (when tiny), else
// moderate ones.
func randF32Edge(r *rand.Rand, tiny bool) float32 {
	sign := uint32(r.IntN(2)) << 31
	m := r.Uint32() & 0x7fffff
	switch k := r.IntN(100); {
	case k < 20:
		return math.Float32frombits(sign | max(m, 1))
	case k < 30:
		return math.Float32frombits(sign)
	case k < 32:
		return math.Float32frombits(sign | 0x7f800000)
	case tiny:
		return math.Float32frombits(sign | uint32(1+r.IntN(6))<<23 | m)
	default:
		return math.Float32frombits(sign | uint32(112+r.IntN(30))<<23 | m)
	}
}

// randBF16Row returns n random bf16 (randBF16Edge) as bytes.
func randBF16Row(r *rand.Rand, n int, tiny, special bool) []byte {
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		h := randBF16Edge(r, tiny, special)
		b[2*i], b[2*i+1] = byte(h), byte(h>>8)
	}
	return b
}

// randBF16Pairs returns rows of n bf16 (wRows weight rows, aRows activation rows) in which denormals meet
// large values (2^93 … 2^113) at the same elements of every row, so that their products (2^-40 … 2^-7 unless
// taken as zero) are not lost among the others (moderate values, 2^-7 … 2^7).
func randBF16Pairs(r *rand.Rand, n, wRows, aRows int) (w, a []byte) {
	w, a = make([]byte, 2*n*wRows), make([]byte, 2*n*aRows)
	put := func(b []byte, i int, h uint16) { b[2*i], b[2*i+1] = byte(h), byte(h>>8) }
	val := func(e0, ne int) uint16 { return uint16(r.IntN(2))<<15 | uint16(e0+r.IntN(ne))<<7 | uint16(r.IntN(128)) }
	den := func() uint16 { return uint16(r.IntN(2))<<15 | uint16(1+r.IntN(127)) }
	for i := 0; i < n; i++ {
		k := r.IntN(10)
		for _, m := range []struct {
			b          []byte
			rows       int
			den, large bool
		}{{w, wRows, k < 2, k >= 2 && k < 4}, {a, aRows, k >= 2 && k < 4, k < 2}} {
			for row := 0; row < m.rows; row++ {
				switch {
				case m.den:
					put(m.b, row*n+i, den())
				case m.large:
					put(m.b, row*n+i, val(220, 21))
				default:
					put(m.b, row*n+i, val(120, 15))
				}
			}
		}
	}
	return w, a
}

// unaligned returns a copy of b starting off bytes into a fresh buffer.
func unaligned(b []byte, off int) []byte {
	buf := make([]byte, len(b)+off)
	copy(buf[off:], b)
	return buf[off : off+len(b)]
}

// sameBits reports whether a and b are the same float32, every NaN counting as the same.
func sameBits(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// dotVariant is one implementation of an order's dot product, for the exactness tests.
type dotVariant struct {
	w    Type
	o    Order
	name string
	f    DotFn
	ok   bool // the CPU has what it needs
}

// installedVariants are the dot products Dot returns on this CPU.
func installedVariants() []dotVariant {
	var vs []dotVariant
	for o := Order(0); o < numOrders; o++ {
		for _, w := range dotWeightTypes {
			if f := Dot(w, o); f != nil {
				vs = append(vs, dotVariant{w, o, "installed", f, true})
			}
		}
	}
	return vs
}

// checkVariant compares v with its reference on many rows.
func checkVariant(t *testing.T, v dotVariant) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(v.w), uint64(v.o)+100))
	ref := RefDot(v.w, v.o)
	at := ActivationType(v.w)
	check := func(n int, wb, ab []byte, what string) {
		t.Helper()
		got := v.f(n, unaligned(wb, n%7), unaligned(ab, n%5))
		if want := ref(n, wb, ab); !sameBits(got, want) {
			t.Fatalf("%s, n=%d: %v (%#08x), reference %v (%#08x)", what, n, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
	if v.w == F32 || v.w == F16 {
		lengths := []int{1, 7, 15, 16, 31, 32, 48, 63, 64, 65, 100, 127, 128, 129, 172, 255, 256, 1000, 4096}
		for _, n := range lengths {
			if v.o == OrderTiled && n%f32Lanes != 0 {
				continue
			}
			for trial := 0; trial < 5; trial++ {
				check(n, randFloats(r, v.w, n), randFloats(r, at, n), "random floats")
			}
		}
		return
	}
	be := v.w.BlockElems()
	lengths := []int{1, 2, 3, 4, 5, 8, 17, 64, 100}
	if be == QKK {
		lengths = []int{1, 2, 3, 7, 16}
	}
	if v.w == BF16 {
		lengths = append(lengths, 128, 200, 1024)
	}
	for _, nb := range lengths {
		for trial := 0; trial < 10; trial++ {
			check(nb*be, randScaled(r, v.w, nb), randScaled(r, at, nb), "random bytes")
		}
		n := nb * be
		check(n, mustQuantizeB(v.w, randRow(r, n)), mustQuantizeA(at, randRow(r, n)), "quantized rows")
		if v.w == BF16 { // the instruction's flushes: denormal inputs, sums near 2^-126, infinities and NaNs
			for trial := 0; trial < 10; trial++ {
				wd, ad := randBF16Pairs(r, n, 1, 1)
				check(n, wd, ad, "denormals")
				check(n, randBF16Row(r, n, true, false), randBF16Row(r, n, true, false), "tiny sums")
			}
			check(n, randBF16Row(r, n, false, true), randBF16Row(r, n, false, true), "infinities and NaNs")
		}
		if v.w == BF16 && n >= 64 { // lane 0's sum is 2^-126 - 2^-152, normal after rounding; lane 1's tiny after it
			wb, ab := make([]byte, 2*n), make([]byte, 2*n)
			put := func(b []byte, i int, f float32) { h := F32ToBF16(f); b[2*i], b[2*i+1] = byte(h), byte(h>>8) }
			put(wb, 1, 0x1p-63)
			put(ab, 1, 0x1p-63)
			put(wb, 0, 0x1p-76)
			put(ab, 0, -0x1p-76)
			put(wb, 3, 0x1p-63)
			put(ab, 3, 0x1p-63)
			put(wb, 2, 0x1p-76)
			put(ab, 2, -0x1p-74*0.75)
			check(n, wb, ab, "sums at 2^-126")
		}
	}
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
			for _, nb := range []int{1, 3} {
				wb, ab := fillBlocks(r, v.w, nb, pw.fill), fillBlocks(r, at, nb, pa.fill)
				check(nb*be, wb, ab, fmt.Sprintf("weights %s, activations %s", pw.name, pa.name))
			}
		}
	}
}

func TestDotExact(t *testing.T) {
	for _, v := range append(installedVariants(), archVariants()...) {
		t.Run(fmt.Sprintf("%s/%s/%s", v.o, v.w, v.name), func(t *testing.T) {
			if !v.ok {
				t.Skip("not on this CPU")
			}
			checkVariant(t, v)
		})
	}
}

// TestDotShortRows checks that a dot product given rows shorter than n panics (index out of range)
// instead of reading past them.
func TestDotShortRows(t *testing.T) {
	for _, v := range append(installedVariants(), archVariants()...) {
		if !v.ok {
			continue
		}
		n := 2 * v.w.BlockElems()
		if v.w == F32 || v.w == F16 || v.w == BF16 {
			n = 64
		}
		wn, _ := v.w.RowBytes(n)
		an, _ := ActivationType(v.w).RowBytes(n)
		for _, c := range []struct{ w, a int }{{wn - 1, an}, {wn, an - 1}} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s/%s/%s: rows of %d and %d bytes for n=%d: no panic", v.o, v.w, v.name, c.w, c.a, n)
					}
				}()
				v.f(n, make([]byte, c.w), make([]byte, c.a))
			}()
		}
	}
}

func TestVecDotF32s(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 63, 64, 65, 128, 200, 1024} {
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = randScale(r), randScale(r)
		}
		if got, want := VecDotF32s(x, y), VecDotF32(x, y); !sameBits(got, want) {
			t.Fatalf("n=%d: %v, VecDotF32 %v", n, got, want)
		}
	}
}

// TestDotRowsExact checks DotRows against Dot row by row, bit for bit, for every weight type: row
// counts around the kernels' groups of four, padded row strides, and lengths with and without a tail after
// the float kernels' steps of 64 (the F16 kernel's four-row tails), values spanning the F16 range. (A swap of
// two of a tail's float64 additions seldom shows in the float32 result, so the kernel keeps the reference's
// order by construction; a lost, doubled or misplaced product does show.)
func TestDotRowsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	fill := func(x []float32) {
		for i := range x {
			x[i] = float32(r.NormFloat64() * math.Ldexp(1, r.IntN(38)-24))
		}
	}
	for _, w := range WeightTypes() {
		ns := []int{2 * w.BlockElems(), 3 * w.BlockElems()}
		if w.BlockElems() == 1 {
			ns = []int{1, 3, 4, 60, 64, 67, 100, 128, 172, 196, 259}
		}
		for _, n := range ns {
			checkRows(t, r, w, n, fill)
		}
	}
}

// checkRows compares DotRows(w, o) with Dot(w, o) on 1 … 13 rows of n elements filled by fill and 1, 2, 3 and 5
// activation rows (padded rows and outputs), for each order.
func checkRows(t *testing.T, r *rand.Rand, w Type, n int, fill func([]float32)) {
	x := make([]float32, n)
	// count rows of type typ, padded, each of random values
	padded := func(typ Type, count int, quantize func(Type, []float32, []byte) error) ([]byte, int) {
		b := mustRowBytes(t, typ, n)
		stride := b + 2*r.IntN(5)
		rows := make([]byte, count*stride)
		for j := range count {
			fill(x)
			if err := quantize(typ, x, rows[j*stride:j*stride+b]); err != nil {
				t.Fatal(err)
			}
		}
		return rows, stride
	}
	rows, stride := padded(w, 13, Quantize)
	acts, aRow := padded(ActivationType(w), 5, QuantizeActivation)
	for o := range numOrders {
		dot := Dot(w, o)
		if dot == nil || (o == OrderTiled && n%f32Lanes != 0) {
			continue
		}
		for cnt := 1; cnt <= 13; cnt++ {
			for _, m := range []int{1, 2, 3, 5} {
				outRow := cnt + r.IntN(3)
				out := make([]float32, m*outRow)
				DotRows(w, o)(n, rows, stride, cnt, acts, aRow, m, out, outRow)
				for i := range m {
					for j := range cnt {
						want := dot(n, rows[j*stride:], acts[i*aRow:])
						if got := out[i*outRow+j]; math.Float32bits(got) != math.Float32bits(want) {
							t.Errorf("%s %s n=%d, %d rows, %d activations: row %d, activation %d = %g, Dot %g", w, o, n,
								cnt, m, j, i, got, want)
						}
					}
				}
			}
		}
	}
}

func mustRowBytes(t *testing.T, w Type, n int) int {
	b, err := w.RowBytes(n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
