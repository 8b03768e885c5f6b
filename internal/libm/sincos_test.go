package libm

import (
	"math"
	"testing"
)

// glibcSinCos are sinf and cosf of GNU libc 2.36 (x86-64, the reference build's C library) at angles where
// rounding the float64 sine or cosine to float32 gives another value: small angles, the fast reduction (|x| <
// 120) and the large one, both signs. Bits of x, Sinf(x), Cosf(x).
var glibcSinCos = [][3]uint32{
	{0x3c266832, 0x3c266777, 0x3f7ffc9f}, // 0.010156678
	{0x3c8e5a31, 0x3c8e585c, 0x3f7ff61b}, // 0.017376991
	{0x3f804d50, 0x3f57be08, 0x3f09cf0a}, // 1.00235939
	{0x3f81910f, 0x3f5917e3, 0x3f07aba8}, // 1.01223934
	{0x3f829fa7, 0x3f5a34cc, 0x3f05df8a}, // 1.0204972
	{0x41f03ed1, 0xbf7b9b2b, 0x3e3ce819}, // 30.0306721
	{0x41f05225, 0xbf7b2634, 0x3e466572}, // 30.0401096
	{0x41f0caf2, 0xbf77c9df, 0x3e80a2eb}, // 30.0990944
	{0x4349bc8c, 0x3f1fe3da, 0x3f47ed8d}, // 201.736511
	{0x434af1cc, 0x3f73a830, 0xbe9d1061}, // 202.944519
	{0x459dfc8c, 0xbf2db51d, 0xbf3c0c10}, // 5055.56836
	{0x459f2822, 0xbef32cfa, 0xbf61486e}, // 5093.0166
	{0xbf006a4e, 0xbef631c3, 0x3f607636}, // -0.501622081
	{0xbf01b2e2, 0xbef8712a, 0x3f5fd77e}, // -0.506635785
	{0xc041c161, 0xbde94d45, 0xbf7e5561}, // -3.02742791
	{0xc042d4ce, 0xbdc710fe, 0xbf7ec9ad}, // -3.04423857
	{0xc2b4b79e, 0xbf2e0aba, 0xbf3bbcd6}, // -90.3586273
	{0xc2b73f1c, 0x3efd19eb, 0xbf5e8873}, // -91.6232605
	{0xc47a9aa0, 0x3e7b50f6, 0xbf782b9a}, // -1002.41602
	{0xc47dde91, 0x3f2d3779, 0xbf3c7fd1}, // -1015.4776
	{0x49750246, 0xbe8651a5, 0x3f77089b}, // 1003556.38
	{0x497710f7, 0x3f5d7df1, 0x3f005d2d}, // 1011983.44
}

func TestSinCosGlibc(t *testing.T) {
	for _, c := range glibcSinCos {
		x := math.Float32frombits(c[0])
		if s, co := Sinf(x), Cosf(x); math.Float32bits(s) != c[1] || math.Float32bits(co) != c[2] {
			t.Errorf("x=%g: sinf %x cosf %x, want %x %x", x, math.Float32bits(s), math.Float32bits(co), c[1], c[2])
		}
	}
}

// TestSinCosAccuracy checks sinf and cosf within one float32 ulp of the float64 functions over a sweep of
// angles, and their special values.
func TestSinCosAccuracy(t *testing.T) {
	ulp := func(a float32, b float64) float64 {
		d := math.Abs(float64(a) - b)
		return d / float64(math.Nextafter32(float32(math.Abs(b)), float32(math.Inf(1)))-float32(math.Abs(b)))
	}
	for u := uint32(0); u < 0x7f800000; u += 104729 {
		for _, x := range []float32{math.Float32frombits(u), -math.Float32frombits(u)} {
			if e := ulp(Sinf(x), math.Sin(float64(x))); e > 1 {
				t.Fatalf("Sinf(%g) = %g, %.2f ulp from %g", x, Sinf(x), e, math.Sin(float64(x)))
			}
			if e := ulp(Cosf(x), math.Cos(float64(x))); e > 1 {
				t.Fatalf("Cosf(%g) = %g, %.2f ulp from %g", x, Cosf(x), e, math.Cos(float64(x)))
			}
		}
	}
	inf := float32(math.Inf(1))
	for _, x := range []float32{inf, -inf, float32(math.NaN())} {
		if s, c := Sinf(x), Cosf(x); s == s || c == c {
			t.Errorf("sinf, Cosf(%g) = %g, %g, want NaN", x, s, c)
		}
	}
	if s, c := Sinf(0), Cosf(0); s != 0 || c != 1 {
		t.Errorf("sinf, Cosf(0) = %g, %g", s, c)
	}
}
