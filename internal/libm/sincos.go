package libm

import "math"

// Sinf and Cosf are the C library's float sine and cosine as the reference build calls them for RoPE
// (ggml's rope cache takes cosf and sinf of each angle): GNU libc's (2.28 and later, x86-64 FMA variant)
// evaluation in float64, which is not correctly rounded — rounding math.Cos to float32 differs from it in the
// last bit for about one angle in a hundred. The argument is reduced to r in [-π/4, π/4] and a quadrant n
// (for |x| < 120 by one fused multiply-subtract of n·π/2, beyond by a 192-bit fixed-point 2/π), then sin r or
// cos r is an odd or even polynomial in r evaluated in float64 with fused multiply-adds, the sign and the
// choice of polynomial set by the quadrant, and the result rounded to float32 once.
func Sinf(x float32) float32 { return sincosf(x, false) }

// Cosf is the C library's cosf (see Sinf).
func Cosf(x float32) float32 { return sincosf(x, true) }

// sincosPoly holds the polynomial coefficients (cosine c0…c4, sine s1…s3); the second set serves quadrants
// 2 and 3 with the cosine's signs flipped.
type sincosPoly struct{ c0, c1, c2, c3, c4, s1, s2, s3 float64 }

var sincosPolys = [2]sincosPoly{
	{0x1p0, -0x1.ffffffd0c621cp-2, 0x1.55553e1068f19p-5, -0x1.6c087e89a359dp-10, 0x1.99343027bf8c3p-16,
		-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
	{-0x1p0, 0x1.ffffffd0c621cp-2, -0x1.55553e1068f19p-5, 0x1.6c087e89a359dp-10, -0x1.99343027bf8c3p-16,
		-0x1.555545995a603p-3, 0x1.1107605230bc4p-7, -0x1.994eb3774cf24p-13},
}

const (
	halfPi       = 0x1.921fb54442d18p0
	invHalfPi24  = 0x1.45f306dc9c883p+23 // 2/π·2^24: the quadrant lands in bits 24…31
	twoPiOver264 = 0x1.921fb54442d18p-62 // 2π·2^-64
)

// fourOverPi is 4/π in 32-bit words, read at a bit offset chosen by the exponent (reduceLarge).
var fourOverPi = [24]uint32{
	0xa2, 0xa2f9, 0xa2f983, 0xa2f9836e, 0xf9836e4e, 0x836e4e44, 0x6e4e4415, 0x4e441529,
	0x441529fc, 0x1529fc27, 0x29fc2757, 0xfc2757d1, 0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0,
	0x34ddc0db, 0xddc0db62, 0xc0db6295, 0xdb629599, 0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041,
}

// top12 is the exponent field (and the top mantissa bit) of |x|.
func top12(x float32) uint32 { return math.Float32bits(x) >> 20 & 0x7ff }

func sincosf(y float32, cos bool) float32 {
	odd := 0 // 1: the cosine polynomial
	if cos {
		odd = 1
	}
	x := float64(y)
	switch {
	case top12(y) < top12(0x1.921fb6p-1): // |y| < π/4
		if top12(y) < top12(0x1p-12) {
			if cos {
				return 1
			}
			return y
		}
		return sincosEval(x, x*x, &sincosPolys[0], odd)
	case top12(y) < top12(120):
		v := x * invHalfPi24
		n := (int32(v) + 0x800000) >> 24
		r := math.FMA(-float64(n), halfPi, x)
		return sincosEval(r*quadrantSign(int(n)), r*r, &sincosPolys[n>>1&1], int(n)+odd)
	case top12(y) < top12(float32(math.Inf(1))):
		r, n := reduceLarge(math.Float32bits(y))
		q := int(n) + int(math.Float32bits(y)>>31)
		return sincosEval(r*quadrantSign(q), r*r, &sincosPolys[q>>1&1], int(n)+odd)
	}
	return float32(math.NaN())
}

// quadrantSign is the sign of the sine in quadrant n mod 4.
func quadrantSign(n int) float64 {
	if (n+1)&2 != 0 {
		return -1
	}
	return 1
}

// sincosEval is the sine polynomial of r (r2 = r²) for even n, the cosine polynomial for odd n.
func sincosEval(r, r2 float64, p *sincosPoly, n int) float32 {
	if n&1 == 0 {
		r3 := r * r2
		s1 := math.FMA(r2, p.s3, p.s2)
		r7 := r3 * r2
		s := math.FMA(r3, p.s1, r)
		return float32(math.FMA(r7, s1, s))
	}
	r4 := r2 * r2
	c2 := math.FMA(r2, p.c4, p.c3)
	c1 := math.FMA(r2, p.c1, p.c0)
	r6 := r4 * r2
	c := math.FMA(r4, p.c2, c1)
	return float32(math.FMA(r6, c2, c))
}

// reduceLarge reduces |x| ≥ 120 (the float's bits xi; the sign is ignored): x·4/π as a 2.62 fixed-point
// number from a 32×96-bit product, its nearest multiple of 4 taken off. It returns the remainder in radians and
// the quadrant.
func reduceLarge(xi uint32) (float64, uint64) {
	w := fourOverPi[xi>>26&15:]
	m := uint64(xi&0xffffff|0x800000) << (xi >> 23 & 7) & 0xffffffff
	r0 := uint64(uint32(m) * w[0]) // a 32-bit product: its high half is not needed
	r1 := m * uint64(w[4])
	r2 := m * uint64(w[8])
	r0 = r2>>32 | r0<<32
	r0 += r1
	n := (r0 + 1<<61) >> 62
	r0 -= n << 62
	return float64(int64(r0)) * twoPiOver264, n
}
