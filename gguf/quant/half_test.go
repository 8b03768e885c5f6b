package quant

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/x448/float16"
)

func TestF16RoundTripAllHalves(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := F16ToF32(uint16(h))
		if f != f { // NaN
			if got := F32ToF16(f); got&0x7fff != 0x7e00 || got&0x8000 != uint16(h)&0x8000 {
				t.Fatalf("NaN %#04x → %#04x, want quiet 0x7e00 with sign", h, got)
			}
			continue
		}
		if got := F32ToF16(f); got != uint16(h) {
			t.Fatalf("half %#04x → %v → %#04x", h, f, got)
		}
	}
}

// TestF16RoundsToNearestEven checks the midpoints between neighbouring halves and points just beside them.
func TestF16RoundsToNearestEven(t *testing.T) {
	for h := uint16(0); h < 0x7bff; h++ {
		lo, hi := F16ToF32(h), F16ToF32(h+1)
		mid := float32((float64(lo) + float64(hi)) / 2) // exact in float32
		even := h
		if h&1 == 1 {
			even = h + 1
		}
		if got := F32ToF16(mid); got != even {
			t.Fatalf("midpoint of %#04x and %#04x → %#04x, want %#04x", h, h+1, got, even)
		}
		if got := F32ToF16(math.Nextafter32(mid, 0)); got != h {
			t.Fatalf("just below midpoint of %#04x → %#04x", h, got)
		}
		if got := F32ToF16(math.Nextafter32(mid, 1e9)); got != h+1 {
			t.Fatalf("just above midpoint of %#04x → %#04x", h, got)
		}
	}
	cases := []struct {
		f float32
		h uint16
	}{
		{65504, 0x7bff}, {65519.996, 0x7bff}, {65520, 0x7c00}, {1e10, 0x7c00}, {-1e10, 0xfc00},
		{float32(math.Inf(1)), 0x7c00}, {float32(math.Copysign(0, -1)), 0x8000}, {1e-10, 0}, {-1, 0xbc00},
	}
	for _, c := range cases {
		if got := F32ToF16(c.f); got != c.h {
			t.Errorf("F32ToF16(%v) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
}

// TestQuantizeBF16: a row's conversion (vectors where the CPU has them) gives F32ToBF16 of every element: random
// bit patterns (NaNs of both signs, infinities, subnormals, ties among them) and a tail after the vectors.
func TestQuantizeBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	src := make([]float32, 1<<16+7)
	for i := range src {
		u := r.Uint32()
		switch i % 4 {
		case 1:
			u &^= 0x7fff // a tie, or below it: the rounding's edge
			u |= 0x8000
		case 2:
			u = u&0x807fffff | 0x7f800000 // Inf or NaN
		case 3:
			u &= 0x807fffff // subnormal or zero
		}
		src[i] = math.Float32frombits(u)
	}
	dst := make([]byte, 2*len(src))
	QuantizeBF16(src, dst)
	for i, f := range src {
		if got, want := uint16(dst[2*i])|uint16(dst[2*i+1])<<8, F32ToBF16(f); got != want {
			t.Fatalf("element %d (%#08x): %#04x, F32ToBF16 %#04x", i, math.Float32bits(f), got, want)
		}
	}
}

// TestQuantizeF16T: the F16 Gemm's activations (vectors where the CPU has them) are F32ToF16's values widened
// back, element by element: random bit patterns over the F16 range's edges (ties, subnormals, overflow to
// infinity), and a row with a NaN (which the vectors leave to the scalar path).
func TestQuantizeF16T(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	src := make([]float32, 1<<16+5)
	for i := range src {
		e := uint32(96 + r.IntN(64)) // exponents 2^-31 … 2^32: below, across and above F16's
		u := r.Uint32()&0x807fffff | e<<23
		if i%3 == 1 {
			u = u&^0x1fff | 0x1000 // a tie at F16's precision
		}
		src[i] = math.Float32frombits(u)
	}
	check := func(name string) {
		dst := make([]byte, 4*len(src))
		quantizeF16T(src, dst)
		for i, f := range src {
			got := binary.LittleEndian.Uint32(dst[4*i:])
			if want := math.Float32bits(F16ToF32(F32ToF16(f))); got != want && f == f {
				t.Fatalf("%s: element %d (%#08x): %#08x, F32ToF16 gives %#08x", name, i, math.Float32bits(f), got, want)
			}
		}
	}
	check("finite")
	src[100] = float32(math.NaN())
	check("with a NaN")
}

func TestBF16(t *testing.T) {
	cases := []struct {
		bits uint32
		want uint16
	}{
		{0x3f800000, 0x3f80}, // 1
		{0x3f808000, 0x3f80}, // tie, even stays
		{0x3f818000, 0x3f82}, // tie, odd rounds up
		{0x3f808001, 0x3f81}, // above tie
		{0x7f7fffff, 0x7f80}, // max float rounds to +Inf
		{0x00000001, 0x0000}, // smallest subnormal rounds to zero, not flushed first
		{0x00008000, 0x0000}, // subnormal tie to even
		{0x00018000, 0x0002}, // subnormal tie rounds up to even
		{0x7f800001, 0x7fc0}, // signalling NaN becomes quiet
		{0xffc00000, 0xffc0}, // quiet NaN keeps sign
		{0xff800000, 0xff80}, // -Inf
		{math.Float32bits(-2), 0xc000},
	}
	for _, c := range cases {
		if got := F32ToBF16(math.Float32frombits(c.bits)); got != c.want {
			t.Errorf("F32ToBF16(%#08x) = %#04x, want %#04x", c.bits, got, c.want)
		}
	}
	for h := 0; h < 1<<16; h++ {
		f := BF16ToF32(uint16(h))
		if f == f && F32ToBF16(f) != uint16(h) {
			t.Fatalf("bf16 %#04x does not round-trip", h)
		}
	}
}

// TestF32ToF16MatchesX448 compares with x448/float16 (verified on all 2^32 inputs by its author) on random
// bit patterns; NaNs differ by design (ggml's canonical quiet NaN).
func TestF32ToF16MatchesX448(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 1<<20; i++ {
		u := r.Uint32()
		if i%2 == 0 { // concentrate on the half range
			u = u&0x80000000 | (0x33000000 + u%0x15000000)
		}
		f := math.Float32frombits(u)
		if f != f {
			continue
		}
		if got, want := F32ToF16(f), float16.Fromfloat32(f).Bits(); got != want {
			t.Fatalf("F32ToF16(%#08x) = %#04x, x448 %#04x", u, got, want)
		}
	}
}

func TestRoundHelpers(t *testing.T) {
	for _, c := range []struct {
		f            float32
		away, toEven int
	}{
		{0.5, 1, 0}, {1.5, 2, 2}, {2.5, 3, 2}, {-0.5, -1, 0}, {-2.5, -3, -2}, {0.49999997, 0, 0},
		{-126.5, -127, -126}, {127.4, 127, 127}, {0, 0, 0}, {-3.75, -4, -4},
	} {
		if got := roundHalfAway(c.f); got != c.away {
			t.Errorf("roundHalfAway(%v) = %d, want %d", c.f, got, c.away)
		}
		if got := nearestInt(c.f); got != c.toEven {
			t.Errorf("nearestInt(%v) = %d, want %d", c.f, got, c.toEven)
		}
	}
}

// TestQuantizeF16 compares QuantizeF16 (its vector path where the CPU has one) with F32ToF16 value by value
// over a sweep of every 251st float32 bit pattern (subnormals, ties, overflow and NaNs among them), in rows of
// every length up to 40 (the vector path's tails), and rows with one NaN (which the vector path leaves to F32ToF16).
func TestQuantizeF16(t *testing.T) {
	check := func(src []float32) {
		t.Helper()
		dst := make([]byte, 2*len(src))
		QuantizeF16(src, dst)
		for i, v := range src {
			if got, want := binary.LittleEndian.Uint16(dst[2*i:]), F32ToF16(v); got != want {
				t.Fatalf("QuantizeF16 of %d values: value %d (%#08x) = %#04x, F32ToF16 %#04x", len(src), i, math.Float32bits(v), got, want)
			}
		}
	}
	row := make([]float32, 0, 4096)
	for u := uint64(0); u < 1<<32; u += 251 {
		if f := math.Float32frombits(uint32(u)); f == f { // NaN rows below
			row = append(row, f)
		}
		if len(row) == cap(row) {
			check(row)
			row = row[:0]
		}
	}
	check(row)
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 40; n++ {
		src := make([]float32, n)
		for i := range src {
			src[i] = float32(r.NormFloat64() * 1e3)
		}
		check(src)
		if n > 0 {
			src[r.IntN(n)] = math.Float32frombits(0x7fc12345)
			check(src)
		}
	}
}
