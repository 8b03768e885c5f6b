package jsonschema

import (
	"fmt"

	g "github.com/forma-llm/forma/runtime/grammar"
)

// jsonChars encodes a set of characters as they appear inside a JSON string in canonical form: as themselves,
// except '"', '\\' and control characters, which are escaped (see escapeRune).
func jsonChars(ranges []g.RuneRange) *g.Expr {
	special := []g.RuneRange{{Lo: 0, Hi: 0x1F}, {Lo: '"', Hi: '"'}, {Lo: '\\', Hi: '\\'}}
	alts := []*g.Expr{g.Class(intersect(ranges, g.Complement(special))...)}
	var short []g.RuneRange   // the second character of the two-character escapes
	var long [2][]g.RuneRange // \u000X and \u001X: the last hex digit
	for _, r := range []rune{'"', '\\', '\b', '\f', '\n', '\r', '\t'} {
		if inRanges(ranges, r) {
			c := rune(escapeRune(r)[1])
			short = append(short, g.RuneRange{Lo: c, Hi: c})
		}
	}
	for r := rune(0); r < 0x20; r++ {
		if inRanges(ranges, r) && len(escapeRune(r)) == 6 {
			h := rune("0123456789abcdef"[r&15])
			long[r>>4] = append(long[r>>4], g.RuneRange{Lo: h, Hi: h})
		}
	}
	var esc []*g.Expr
	if len(short) > 0 {
		esc = append(esc, g.Class(short...))
	}
	for hi, l := range long {
		if len(l) > 0 {
			esc = append(esc, g.Seq(g.Lit(fmt.Sprintf("u00%d", hi)), g.Class(l...)))
		}
	}
	if len(esc) > 0 {
		alts = append(alts, g.Seq(g.Lit("\\"), g.Alt(esc...)))
	}
	return g.Alt(alts...)
}

func inRanges(rs []g.RuneRange, r rune) bool {
	for _, x := range rs {
		if x.Lo <= r && r <= x.Hi {
			return true
		}
	}
	return false
}

// intersect returns the code points in both sets.
func intersect(a, b []g.RuneRange) []g.RuneRange {
	var out []g.RuneRange
	for _, x := range a {
		for _, y := range b {
			lo, hi := max(x.Lo, y.Lo), min(x.Hi, y.Hi)
			if lo <= hi {
				out = append(out, g.RuneRange{Lo: lo, Hi: hi})
			}
		}
	}
	return out
}

var anyJSONChar = jsonChars([]g.RuneRange{{Lo: 0, Hi: g.MaxRune}})

// stringBody is the inside of a JSON string (without quotes) satisfying the string keywords of n.
func (c *converter) stringBody(n *node) (*g.Expr, error) {
	if n.maxLength >= 0 && n.minLength > n.maxLength {
		return nil, unsat(n.path, "minLength %d is above maxLength %d", n.minLength, n.maxLength)
	}
	var parts []*g.Expr
	if n.minLength > 0 || n.maxLength >= 0 || len(n.patterns) == 0 && n.format == "" {
		parts = append(parts, g.Repeat(anyJSONChar, n.minLength, n.maxLength))
	}
	for _, p := range n.patterns {
		e, err := g.Pattern(p, jsonChars)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.path, err)
		}
		parts = append(parts, e)
	}
	if n.format != "" {
		f, ok := formats[n.format]
		if !ok {
			return nil, fmt.Errorf("%s: format %q cannot be enforced (supported: %s)", n.path, n.format, formatNames())
		}
		parts = append(parts, f)
	}
	e := parts[0]
	for _, p := range parts[1:] {
		e = g.And(e, p)
	}
	return e, nil
}

// keyNotIn is the inside of a JSON string whose value is none of names (for the keys of additional properties).
func keyNotIn(names []string) *g.Expr {
	type trie struct {
		kids map[rune]*trie
		keys []rune // in insertion order, for a stable grammar
		word bool
	}
	root := &trie{kids: map[rune]*trie{}}
	for _, n := range names {
		t := root
		for _, r := range n {
			k, ok := t.kids[r]
			if !ok {
				k = &trie{kids: map[rune]*trie{}}
				t.kids[r] = k
				t.keys = append(t.keys, r)
			}
			t = k
		}
		t.word = true
	}
	anyRest := g.Star(anyJSONChar)
	var build func(t *trie) *g.Expr
	build = func(t *trie) *g.Expr {
		var alts []*g.Expr
		if !t.word {
			alts = append(alts, g.Empty())
		}
		var taken []g.RuneRange
		for _, r := range t.keys {
			taken = append(taken, g.RuneRange{Lo: r, Hi: r})
			alts = append(alts, g.Seq(jsonChars(taken[len(taken)-1:]), build(t.kids[r])))
		}
		if other := g.Complement(taken); len(other) > 0 {
			alts = append(alts, g.Seq(jsonChars(other), anyRest))
		}
		return g.Alt(alts...)
	}
	return build(root)
}

// Formats: only valid values, in a common subset of each syntax.
var formats = map[string]*g.Expr{}

func formatNames() string {
	return "date, time, date-time, uuid, email, uri, hostname, ipv4"
}

func init() {
	d := func(lo, hi rune) *g.Expr { return g.Class(g.RuneRange{Lo: lo, Hi: hi}) }
	rep := func(e *g.Expr, n int) *g.Expr { return g.Repeat(e, n, n) }
	dig := d('0', '9')
	// Two digits forming a number divisible by 4 (00 included): even tens with 0/4/8, odd tens with 2/6.
	div4 := g.Alt(g.Seq(g.Class(g.RuneRange{Lo: '0', Hi: '0'}, g.RuneRange{Lo: '2', Hi: '2'}, g.RuneRange{Lo: '4', Hi: '4'},
		g.RuneRange{Lo: '6', Hi: '6'}, g.RuneRange{Lo: '8', Hi: '8'}), g.Class(g.RuneRange{Lo: '0', Hi: '0'}, g.RuneRange{Lo: '4', Hi: '4'}, g.RuneRange{Lo: '8', Hi: '8'})),
		g.Seq(g.Class(g.RuneRange{Lo: '1', Hi: '1'}, g.RuneRange{Lo: '3', Hi: '3'}, g.RuneRange{Lo: '5', Hi: '5'},
			g.RuneRange{Lo: '7', Hi: '7'}, g.RuneRange{Lo: '9', Hi: '9'}), g.Class(g.RuneRange{Lo: '2', Hi: '2'}, g.RuneRange{Lo: '6', Hi: '6'})))
	// Leap years: divisible by 4 and not by 100, or divisible by 400.
	notDiv4or00 := g.And(div4, g.Alt(g.Seq(d('1', '9'), dig), g.Seq(g.Lit("0"), d('1', '9'))))
	leap := g.Alt(g.Seq(dig, dig, notDiv4or00), g.Seq(div4, g.Lit("00")))
	year := rep(dig, 4)
	day28 := g.Alt(g.Seq(g.Lit("0"), d('1', '9')), g.Seq(g.Lit("1"), dig), g.Seq(g.Lit("2"), d('0', '8')))
	day30 := g.Alt(g.Seq(g.Lit("0"), d('1', '9')), g.Seq(d('1', '2'), dig), g.Lit("30"))
	day31 := g.Alt(day30, g.Lit("31"))
	lit := func(ss ...string) *g.Expr {
		var alts []*g.Expr
		for _, s := range ss {
			alts = append(alts, g.Lit(s))
		}
		return g.Alt(alts...)
	}
	date := g.Alt(
		g.Seq(year, g.Lit("-"), lit("01", "03", "05", "07", "08", "10", "12"), g.Lit("-"), day31),
		g.Seq(year, g.Lit("-"), lit("04", "06", "09", "11"), g.Lit("-"), day30),
		g.Seq(year, g.Lit("-02-"), day28),
		g.Seq(leap, g.Lit("-02-29")))
	hour := g.Alt(g.Seq(d('0', '1'), dig), g.Seq(g.Lit("2"), d('0', '3')))
	min60 := g.Seq(d('0', '5'), dig)
	offset := g.Alt(g.Lit("Z"), g.Seq(g.Class(g.RuneRange{Lo: '+', Hi: '+'}, g.RuneRange{Lo: '-', Hi: '-'}), hour, g.Lit(":"), min60))
	time := g.Seq(hour, g.Lit(":"), min60, g.Lit(":"), min60, g.Opt(g.Seq(g.Lit("."), g.Repeat(dig, 1, 9))), offset)
	hex := g.Class(g.RuneRange{Lo: '0', Hi: '9'}, g.RuneRange{Lo: 'A', Hi: 'F'}, g.RuneRange{Lo: 'a', Hi: 'f'})
	uuid := g.Seq(rep(hex, 8), g.Lit("-"), rep(hex, 4), g.Lit("-"), rep(hex, 4), g.Lit("-"), rep(hex, 4), g.Lit("-"), rep(hex, 12))
	alnum := g.Class(g.RuneRange{Lo: '0', Hi: '9'}, g.RuneRange{Lo: 'A', Hi: 'Z'}, g.RuneRange{Lo: 'a', Hi: 'z'})
	lower := g.Class(g.RuneRange{Lo: '0', Hi: '9'}, g.RuneRange{Lo: 'a', Hi: 'z'})
	label := g.Seq(alnum, g.Opt(g.Seq(g.Repeat(g.Alt(alnum, g.Lit("-")), 0, 20), alnum)))
	hostname := g.Seq(label, g.Repeat(g.Seq(g.Lit("."), label), 0, 4))
	atext := g.Class(g.RuneRange{Lo: '0', Hi: '9'}, g.RuneRange{Lo: 'A', Hi: 'Z'}, g.RuneRange{Lo: 'a', Hi: 'z'},
		g.RuneRange{Lo: '_', Hi: '_'}, g.RuneRange{Lo: '+', Hi: '+'}, g.RuneRange{Lo: '-', Hi: '-'})
	atom := g.Repeat(atext, 1, 15)
	email := g.Seq(atom, g.Repeat(g.Seq(g.Lit("."), atom), 0, 3), g.Lit("@"), label, g.Repeat(g.Seq(g.Lit("."), label), 1, 3))
	segChar := g.Class(g.RuneRange{Lo: '0', Hi: '9'}, g.RuneRange{Lo: 'A', Hi: 'Z'}, g.RuneRange{Lo: 'a', Hi: 'z'},
		g.RuneRange{Lo: '-', Hi: '.'}, g.RuneRange{Lo: '_', Hi: '_'}, g.RuneRange{Lo: '~', Hi: '~'})
	queryChar := g.Alt(segChar, g.Lit("="), g.Lit("&"))
	uri := g.Seq(d('a', 'z'), g.Repeat(g.Alt(lower, g.Lit("+"), g.Lit("-"), g.Lit(".")), 0, 9), g.Lit("://"), hostname,
		g.Repeat(g.Seq(g.Lit("/"), g.Repeat(segChar, 0, 20)), 0, 8),
		g.Opt(g.Seq(g.Lit("?"), g.Repeat(queryChar, 0, 40))), g.Opt(g.Seq(g.Lit("#"), g.Repeat(segChar, 0, 20))))
	octet := g.Alt(dig, g.Seq(d('1', '9'), dig), g.Seq(g.Lit("1"), dig, dig), g.Seq(g.Lit("2"), d('0', '4'), dig), g.Seq(g.Lit("25"), d('0', '5')))
	ipv4 := g.Seq(octet, rep(g.Seq(g.Lit("."), octet), 3))
	formats["date"] = date
	formats["time"] = time
	formats["date-time"] = g.Seq(date, g.Lit("T"), time)
	formats["uuid"] = uuid
	formats["email"] = email
	formats["uri"] = uri
	formats["hostname"] = hostname
	formats["ipv4"] = ipv4
}
