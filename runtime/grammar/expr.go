package grammar

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxRune is the largest code point; surrogates (U+D800-U+DFFF) are never part of a class.
const MaxRune = utf8.MaxRune

// RuneRange is an inclusive range of code points.
type RuneRange struct{ Lo, Hi rune }

// Pos is a place in a grammar's source: 1-based line and column (in characters). The zero Pos means an
// expression built in code.
type Pos struct{ Line, Col int }

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

type op uint8

const (
	opEmpty   op = iota // the empty string
	opNothing           // no string at all
	opLit               // a byte string
	opClass             // one code point of a set, as UTF-8
	opRef               // a rule
	opToken             // one token of a set (or of its complement)
	opSeq
	opAlt
	opRepeat
	opAnd // strings both kids match (both must be regular: no rules, no tokens)
)

// Expr is the right-hand side of a rule, or a part of one. Exprs are immutable; build them with the functions
// below (Lit, Class, Seq, ...), from GBNF (Parse) or from a regular expression (Regex).
type Expr struct {
	op       op
	text     string      // opLit
	ranges   []RuneRange // opClass: sorted, disjoint, not adjacent, no surrogates
	name     string      // opRef
	toks     []TokenRef  // opToken
	neg      bool        // opToken: any token but these
	kids     []*Expr     // opSeq, opAlt, opAnd; opRepeat has one
	min, max int         // opRepeat; max < 0 is unbounded
	pos      Pos
}

// TokenRef names one token of the vocabulary: by id (ID >= 0) or by its exact text.
type TokenRef struct {
	ID   int32
	Text string
}

var (
	empty   = &Expr{op: opEmpty}
	nothing = &Expr{op: opNothing}
)

// Empty matches the empty string.
func Empty() *Expr { return empty }

// Nothing matches no string (an alternative that can never be taken).
func Nothing() *Expr { return nothing }

// Lit matches the bytes of s.
func Lit(s string) *Expr {
	if s == "" {
		return empty
	}
	return &Expr{op: opLit, text: s}
}

// Class matches one code point in any of the ranges (as its UTF-8 bytes). Surrogates are left out.
func Class(ranges ...RuneRange) *Expr {
	r := normRanges(ranges)
	if len(r) == 0 {
		return nothing
	}
	return &Expr{op: opClass, ranges: r}
}

// NotClass matches one code point in none of the ranges.
func NotClass(ranges ...RuneRange) *Expr { return Class(Complement(ranges)...) }

// AnyChar matches any one code point.
func AnyChar() *Expr { return Class(RuneRange{0, MaxRune}) }

// Ref matches the rule named name.
func Ref(name string) *Expr { return &Expr{op: opRef, name: name} }

// Tokens matches one token of the set; with neg, one text token not in it (control tokens only where named).
func Tokens(neg bool, toks ...TokenRef) *Expr {
	return &Expr{op: opToken, toks: slices.Clone(toks), neg: neg}
}

// Seq matches its parts one after the other.
func Seq(parts ...*Expr) *Expr {
	var kids []*Expr
	for _, p := range parts {
		switch p.op {
		case opEmpty:
			continue
		case opNothing:
			return nothing
		case opSeq:
			kids = append(kids, p.kids...)
			continue
		}
		kids = append(kids, p)
	}
	// Join adjacent literals: fewer NFA states, and the GBNF form reads better.
	out := kids[:0:0]
	for _, k := range kids {
		if n := len(out); n > 0 && k.op == opLit && out[n-1].op == opLit && out[n-1].pos == k.pos {
			out[n-1] = &Expr{op: opLit, text: out[n-1].text + k.text, pos: out[n-1].pos}
			continue
		}
		out = append(out, k)
	}
	switch len(out) {
	case 0:
		return empty
	case 1:
		return out[0]
	}
	return &Expr{op: opSeq, kids: out}
}

// Alt matches any one of its alternatives.
func Alt(alts ...*Expr) *Expr {
	var kids []*Expr
	for _, a := range alts {
		switch a.op {
		case opNothing:
			continue
		case opAlt:
			kids = append(kids, a.kids...)
			continue
		}
		kids = append(kids, a)
	}
	switch len(kids) {
	case 0:
		return nothing
	case 1:
		return kids[0]
	}
	return &Expr{op: opAlt, kids: kids}
}

// Repeat matches e at least min and at most max times; max < 0 means no limit.
func Repeat(e *Expr, min, max int) *Expr {
	switch {
	case max >= 0 && max < min:
		return nothing
	case max == 0 || e.op == opEmpty:
		return empty
	case min == 1 && max == 1:
		return e
	case e.op == opNothing:
		if min == 0 {
			return empty
		}
		return nothing
	}
	return &Expr{op: opRepeat, kids: []*Expr{e}, min: min, max: max}
}

// Opt matches e or nothing.
func Opt(e *Expr) *Expr { return Repeat(e, 0, 1) }

// Star matches e any number of times.
func Star(e *Expr) *Expr { return Repeat(e, 0, -1) }

// Plus matches e one or more times.
func Plus(e *Expr) *Expr { return Repeat(e, 1, -1) }

// And matches the strings both a and b match. Both must be regular: no rule references and no tokens.
func And(a, b *Expr) *Expr {
	if a.op == opNothing || b.op == opNothing {
		return nothing
	}
	return &Expr{op: opAnd, kids: []*Expr{a, b}}
}

// at returns e with its source position set (for errors).
func (e *Expr) at(p Pos) *Expr {
	if e == empty || e == nothing {
		return e
	}
	c := *e
	c.pos = p
	return &c
}

// regular reports whether e refers to no rule and no token.
func (e *Expr) regular() bool {
	switch e.op {
	case opRef, opToken:
		return false
	}
	for _, k := range e.kids {
		if !k.regular() {
			return false
		}
	}
	return true
}

// normRanges sorts and merges ranges, clips them to valid code points and removes surrogates.
func normRanges(in []RuneRange) []RuneRange {
	var r []RuneRange
	for _, x := range in {
		lo, hi := max(x.Lo, 0), min(x.Hi, MaxRune)
		if lo > hi {
			continue
		}
		if lo < 0xD800 && hi > 0xDFFF {
			r = append(r, RuneRange{lo, 0xD7FF}, RuneRange{0xE000, hi})
			continue
		}
		if lo >= 0xD800 && hi <= 0xDFFF {
			continue
		}
		if lo >= 0xD800 && lo <= 0xDFFF {
			lo = 0xE000
		}
		if hi >= 0xD800 && hi <= 0xDFFF {
			hi = 0xD7FF
		}
		r = append(r, RuneRange{lo, hi})
	}
	slices.SortFunc(r, func(a, b RuneRange) int { return int(a.Lo) - int(b.Lo) })
	out := r[:0]
	for _, x := range r {
		if n := len(out); n > 0 && x.Lo <= out[n-1].Hi+1 {
			out[n-1].Hi = max(out[n-1].Hi, x.Hi)
			continue
		}
		out = append(out, x)
	}
	// 0xD7FF and 0xE000 are neighbours once surrogates are gone.
	merged := out[:0]
	for _, x := range out {
		if n := len(merged); n > 0 && merged[n-1].Hi == 0xD7FF && x.Lo == 0xE000 {
			merged[n-1].Hi = x.Hi
			continue
		}
		merged = append(merged, x)
	}
	return merged
}

// Complement returns the code points (surrogates aside) in none of the ranges.
func Complement(ranges []RuneRange) []RuneRange {
	r := normRanges(ranges)
	var out []RuneRange
	next := rune(0)
	for _, x := range r {
		if x.Lo > next {
			out = append(out, RuneRange{next, x.Lo - 1})
		}
		next = x.Hi + 1
	}
	if next <= MaxRune {
		out = append(out, RuneRange{next, MaxRune})
	}
	return normRanges(out)
}

// String writes e in GBNF.
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b, 0)
	return b.String()
}

// write appends e; prec is the binding of the context: 0 alternation, 1 sequence, 2 postfix operand.
func (e *Expr) write(b *strings.Builder, prec int) {
	switch e.op {
	case opEmpty:
		b.WriteString(`""`)
	case opNothing:
		b.WriteString(`[^\x00-\U0010FFFF]`)
	case opLit:
		b.WriteByte('"')
		for _, r := range e.text {
			writeChar(b, r, '"')
		}
		b.WriteByte('"')
	case opClass:
		writeClass(b, e.ranges)
	case opRef:
		b.WriteString(e.name)
	case opToken:
		writeTokens(b, e.toks, e.neg)
	case opSeq, opAlt, opAnd:
		sep, p := " ", 1
		if e.op == opAlt {
			sep, p = " | ", 0
		} else if e.op == opAnd {
			sep, p = " & ", 1
		}
		if prec > p || e.op == opAnd {
			b.WriteByte('(')
		}
		for i, k := range e.kids {
			if i > 0 {
				b.WriteString(sep)
			}
			k.write(b, p+1)
		}
		if prec > p || e.op == opAnd {
			b.WriteByte(')')
		}
	case opRepeat:
		e.kids[0].write(b, 3)
		switch {
		case e.min == 0 && e.max == 1:
			b.WriteByte('?')
		case e.min == 0 && e.max < 0:
			b.WriteByte('*')
		case e.min == 1 && e.max < 0:
			b.WriteByte('+')
		case e.max < 0:
			fmt.Fprintf(b, "{%d,}", e.min)
		case e.min == e.max:
			fmt.Fprintf(b, "{%d}", e.min)
		default:
			fmt.Fprintf(b, "{%d,%d}", e.min, e.max)
		}
	}
}

func writeTokens(b *strings.Builder, toks []TokenRef, neg bool) {
	for i, t := range toks {
		if i > 0 {
			b.WriteString(" | ")
		}
		if neg {
			b.WriteByte('!')
		}
		if t.Text == "" {
			fmt.Fprintf(b, "<[%d]>", t.ID)
		} else {
			b.WriteString(t.Text)
		}
	}
}

func writeClass(b *strings.Builder, r []RuneRange) {
	b.WriteByte('[')
	if len(r) > 0 && r[0].Lo == 0 && r[len(r)-1].Hi == MaxRune && len(r) > 1 {
		// Shorter negated: the ranges between.
		b.WriteByte('^')
		r = Complement(r)
	}
	for _, x := range r {
		writeChar(b, x.Lo, ']')
		if x.Hi > x.Lo {
			if x.Hi > x.Lo+1 {
				b.WriteByte('-')
			}
			writeChar(b, x.Hi, ']')
		}
	}
	b.WriteByte(']')
}

func writeChar(b *strings.Builder, r rune, quote byte) {
	switch {
	case r == '\\' || r == rune(quote) || (quote == ']' && r == '['):
		b.WriteByte('\\')
		b.WriteRune(r)
	case quote == ']' && (r == '^' || r == '-'):
		fmt.Fprintf(b, `\x%02X`, r) // llama.cpp knows no \^ or \- escape
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\t':
		b.WriteString(`\t`)
	case r < 0x20 || r == 0x7F:
		fmt.Fprintf(b, `\x%02X`, r)
	case r > 0xFFFF:
		fmt.Fprintf(b, `\U%08X`, r)
	case r >= 0x80 && !printable(r):
		fmt.Fprintf(b, `\u%04X`, r)
	default:
		b.WriteRune(r)
	}
}

func printable(r rune) bool {
	return r >= 0xA0 && r != 0xAD && (r < 0x2000 || r > 0x206F) && r < 0xFFF0
}

// Size estimates the automaton states e unrolls into (repetitions count their copies).
func (e *Expr) Size() int {
	switch e.op {
	case opEmpty, opNothing:
		return 0
	case opLit:
		return len(e.text)
	case opClass:
		return len(e.ranges) + 1
	case opRepeat:
		n := e.max
		if n < 0 {
			n = e.min + 1
		}
		return e.kids[0].Size() * max(n, 1)
	}
	n := 1
	for _, k := range e.kids {
		n += k.Size()
	}
	return n
}
