package jsonschema

import (
	"fmt"
	"math/big"
	"strings"

	g "github.com/forma-llm/forma/runtime/grammar"
)

// Numbers are written without exponents when bounded, and with at most capDigits digits on a side that no
// bound limits (a bound with more digits raises the cap), so that a weak model cannot write digits forever.
const capDigits = 16

// bound is one end of a range: nil v means none.
type bound struct {
	v    *big.Rat
	excl bool
}

func parseRat(s string) (*big.Rat, bool) {
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

var (
	digit    = g.Class(g.RuneRange{Lo: '0', Hi: '9'})
	nonzero  = g.Class(g.RuneRange{Lo: '1', Hi: '9'})
	fracPart = g.Seq(g.Lit("."), g.Plus(digit))
)

func digits(lo, hi byte) *g.Expr {
	if lo > hi {
		return g.Nothing()
	}
	return g.Class(g.RuneRange{Lo: rune(lo), Hi: rune(hi)})
}

// anyNumber is a JSON number with capped digits.
func anyNumber() *g.Expr {
	return g.Seq(g.Opt(g.Lit("-")), g.Alt(g.Lit("0"), g.Seq(nonzero, g.Repeat(digit, 0, capDigits-1))),
		g.Opt(g.Seq(g.Lit("."), g.Repeat(digit, 1, capDigits))),
		g.Opt(g.Seq(g.Class(g.RuneRange{Lo: 'E', Hi: 'E'}, g.RuneRange{Lo: 'e', Hi: 'e'}),
			g.Opt(g.Class(g.RuneRange{Lo: '+', Hi: '+'}, g.RuneRange{Lo: '-', Hi: '-'})), g.Repeat(digit, 1, 2))))
}

// integerRange is the canonical integers (no leading zeros, no "-0") within lo and hi.
func integerRange(lo, hi bound) (*g.Expr, error) {
	var L, H *big.Int
	if lo.v != nil {
		L = ceilInt(lo.v)
		if lo.excl && lo.v.IsInt() {
			L.Add(L, big.NewInt(1))
		}
	}
	if hi.v != nil {
		H = floorInt(hi.v)
		if hi.excl && hi.v.IsInt() {
			H.Sub(H, big.NewInt(1))
		}
	}
	if L != nil && H != nil && L.Cmp(H) > 0 {
		return nil, fmt.Errorf("no integer lies within the bounds")
	}
	width := capDigits
	for _, x := range []*big.Int{L, H} {
		if x != nil {
			width = max(width, len(new(big.Int).Abs(x).String())+1)
		}
	}
	limit := new(big.Int).Sub(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(width)), nil), big.NewInt(1))
	if L == nil {
		L = new(big.Int).Neg(limit)
	}
	if H == nil {
		H = limit
	}
	var alts []*g.Expr
	zero, one := big.NewInt(0), big.NewInt(1)
	if L.Sign() < 0 {
		from := one
		if H.Sign() < 0 {
			from = new(big.Int).Neg(H)
		}
		alts = append(alts, g.Seq(g.Lit("-"), natRange(from.String(), new(big.Int).Neg(L).String())))
	}
	if H.Sign() >= 0 {
		from := zero
		if L.Sign() > 0 {
			from = L
		}
		alts = append(alts, natRange(from.String(), H.String()))
	}
	return g.Alt(alts...), nil
}

func floorInt(r *big.Rat) *big.Int {
	q, _ := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	return q // Euclidean division: the floor, for the positive denominator
}

func ceilInt(r *big.Rat) *big.Int {
	q := floorInt(r)
	if !r.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// natRange is the canonical decimal strings of the naturals from lo to hi (both canonical, lo <= hi).
func natRange(lo, hi string) *g.Expr {
	if len(lo) == len(hi) {
		return sameLen(lo, hi)
	}
	alts := []*g.Expr{sameLen(lo, strings.Repeat("9", len(lo)))}
	for n := len(lo) + 1; n < len(hi); n++ {
		alts = append(alts, g.Seq(nonzero, g.Repeat(digit, n-1, n-1)))
	}
	alts = append(alts, sameLen("1"+strings.Repeat("0", len(hi)-1), hi))
	return g.Alt(alts...)
}

// sameLen is the digit strings of the length of a and b from a to b.
func sameLen(a, b string) *g.Expr {
	if a == "" {
		return g.Empty()
	}
	if a[0] == b[0] {
		return g.Seq(g.Lit(a[:1]), sameLen(a[1:], b[1:]))
	}
	n := len(a) - 1
	return g.Alt(
		g.Seq(g.Lit(a[:1]), geTail(a[1:])),
		g.Seq(digits(a[0]+1, b[0]-1), g.Repeat(digit, n, n)),
		g.Seq(g.Lit(b[:1]), leTail(b[1:])))
}

// geTail is the digit strings of x's length that are >= x.
func geTail(x string) *g.Expr {
	if x == "" {
		return g.Empty()
	}
	n := len(x) - 1
	return g.Alt(g.Seq(g.Lit(x[:1]), geTail(x[1:])), g.Seq(digits(x[0]+1, '9'), g.Repeat(digit, n, n)))
}

// leTail is the digit strings of x's length that are <= x.
func leTail(x string) *g.Expr {
	if x == "" {
		return g.Empty()
	}
	n := len(x) - 1
	return g.Alt(g.Seq(g.Lit(x[:1]), leTail(x[1:])), g.Seq(digits('0', x[0]-1), g.Repeat(digit, n, n)))
}

// decimalRange is the plain decimals (no exponent, no "-0") within lo and hi.
func decimalRange(lo, hi bound) (*g.Expr, error) {
	if lo.v != nil && hi.v != nil {
		c := lo.v.Cmp(hi.v)
		if c > 0 || c == 0 && (lo.excl || hi.excl) {
			return nil, fmt.Errorf("no number lies within the bounds")
		}
	}
	zero := new(big.Rat)
	var alts []*g.Expr
	// Non-negative values: magnitudes from max(lo, 0) to hi.
	if hi.v == nil || hi.v.Sign() > 0 || hi.v.Sign() == 0 && !hi.excl {
		from := bound{zero, false}
		if lo.v != nil && lo.v.Sign() >= 0 {
			from = lo
		}
		alts = append(alts, magnitude(from, hi))
	}
	// Negative values: "-" and magnitudes from max(-hi, 0) (never 0 itself) to -lo.
	if lo.v == nil || lo.v.Sign() < 0 {
		from := bound{zero, true}
		if hi.v != nil && hi.v.Sign() < 0 {
			from = bound{new(big.Rat).Neg(hi.v), hi.excl}
		}
		to := bound{}
		if lo.v != nil {
			to = bound{new(big.Rat).Neg(lo.v), lo.excl}
		}
		alts = append(alts, g.Seq(g.Lit("-"), magnitude(from, to)))
	}
	return g.Alt(alts...), nil
}

// magnitude is the unsigned decimals int("."frac)? from lo (never nil) to hi.
func magnitude(lo, hi bound) *g.Expr {
	li, lf := decimalParts(lo.v)
	wi, wf := max(capDigits, len(li)+1), max(capDigits, len(lf)+1)
	var ge *g.Expr
	if lo.v.Sign() == 0 && !lo.excl {
		ge = nil // every magnitude is >= 0
	} else if lo.excl {
		ge = g.Alt(g.Seq(intAbove(li, wi), g.Opt(fracPart)), g.Seq(g.Lit(li), fracAbove(lf)))
	} else {
		ge = g.Alt(g.Seq(intAbove(li, wi), g.Opt(fracPart)), g.Seq(g.Lit(li), fracAtLeast(lf)))
	}
	var le *g.Expr
	if hi.v != nil {
		hi_, hf := decimalParts(hi.v)
		wi, wf = max(wi, len(hi_)+1), max(wf, len(hf)+1)
		if hi.excl {
			le = g.Alt(g.Seq(intBelow(hi_), g.Opt(fracPart)), g.Seq(g.Lit(hi_), fracBelow(hf)))
		} else {
			le = g.Alt(g.Seq(intBelow(hi_), g.Opt(fracPart)), g.Seq(g.Lit(hi_), fracAtMost(hf)))
		}
	}
	shape := g.Seq(g.Alt(g.Lit("0"), g.Seq(nonzero, g.Repeat(digit, 0, wi-1))),
		g.Opt(g.Seq(g.Lit("."), g.Repeat(digit, 1, wf))))
	e := shape
	if ge != nil {
		e = g.And(e, ge)
	}
	if le != nil {
		e = g.And(e, le)
	}
	return e
}

// decimalParts writes a non-negative rational with a finite decimal expansion (as every bound read from JSON
// has) as its canonical integer part and its fraction digits without trailing zeros.
func decimalParts(r *big.Rat) (string, string) {
	n := 0
	for _, p := range []int64{2, 5} {
		d, k := new(big.Int).Set(r.Denom()), 0
		for q, m := new(big.Int), new(big.Int); ; k++ {
			q.QuoRem(d, big.NewInt(p), m)
			if m.Sign() != 0 {
				break
			}
			d.Set(q)
		}
		n = max(n, k)
	}
	i, f, _ := strings.Cut(r.FloatString(n), ".")
	return i, strings.TrimRight(f, "0")
}

// intAbove is the canonical integers > i with at most w digits.
func intAbove(i string, w int) *g.Expr {
	from := new(big.Int)
	from.SetString(i, 10)
	from.Add(from, big.NewInt(1))
	top := strings.Repeat("9", w)
	if len(from.String()) > w {
		return g.Nothing()
	}
	return natRange(from.String(), top)
}

// intBelow is the canonical integers < i.
func intBelow(i string) *g.Expr {
	if i == "0" {
		return g.Nothing()
	}
	to := new(big.Int)
	to.SetString(i, 10)
	to.Sub(to, big.NewInt(1))
	return natRange("0", to.String())
}

// fracAtLeast is an optional fraction whose value is >= 0.f.
func fracAtLeast(f string) *g.Expr {
	if f == "" {
		return g.Opt(fracPart)
	}
	alts := []*g.Expr{g.Seq(g.Lit(f), g.Star(digit))}
	for k := 0; k < len(f); k++ {
		alts = append(alts, g.Seq(g.Lit(f[:k]), digits(f[k]+1, '9'), g.Star(digit)))
	}
	return g.Seq(g.Lit("."), g.Alt(alts...))
}

// fracAbove is an optional fraction whose value is > 0.f.
func fracAbove(f string) *g.Expr {
	someNonzero := g.Seq(g.Star(g.Lit("0")), nonzero, g.Star(digit))
	alts := []*g.Expr{g.Seq(g.Lit(f), someNonzero)}
	for k := 0; k < len(f); k++ {
		alts = append(alts, g.Seq(g.Lit(f[:k]), digits(f[k]+1, '9'), g.Star(digit)))
	}
	return g.Seq(g.Lit("."), g.Alt(alts...))
}

// fracAtMost is an optional fraction whose value is <= 0.f.
func fracAtMost(f string) *g.Expr {
	alts := []*g.Expr{g.Plus(g.Lit("0"))}
	for k := 0; k < len(f); k++ {
		alts = append(alts, g.Seq(g.Lit(f[:k]), digits('0', f[k]-1), g.Star(digit)))
		alts = append(alts, g.Seq(g.Lit(f[:k+1]), g.Star(g.Lit("0"))))
	}
	return g.Opt(g.Seq(g.Lit("."), g.Alt(alts...)))
}

// fracBelow is an optional fraction whose value is < 0.f (nothing when f is empty: no fraction is below 0).
func fracBelow(f string) *g.Expr {
	if f == "" {
		return g.Nothing()
	}
	alts := []*g.Expr{g.Plus(g.Lit("0"))}
	for k := 0; k < len(f); k++ {
		alts = append(alts, g.Seq(g.Lit(f[:k]), digits('0', f[k]-1), g.Star(digit)))
		if k+1 < len(f) {
			alts = append(alts, g.Seq(g.Lit(f[:k+1]), g.Star(g.Lit("0"))))
		}
	}
	return g.Opt(g.Seq(g.Lit("."), g.Alt(alts...)))
}
