package toolcall

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// A small GBNF recognizer for the tests: it parses the grammars BuildConstraint writes and reports whether a
// text is in their language (all parses, by sets of end positions; fine for short texts).

type gnode struct {
	kind     byte // 'l' literal, 'c' class, 'r' rule, 's' sequence, 'a' alternation, '.' any
	lit      []rune
	ranges   [][2]rune
	negate   bool
	ref      string
	kids     []*gnode
	min, max int // repetition (max -1: unbounded); 1,1 for none
}

type ggrammar struct {
	rules map[string]*gnode
	memo  map[string]map[int][]int
	text  []rune
}

func parseGBNF(t testing.TB, src string) *ggrammar {
	t.Helper()
	g := &ggrammar{rules: map[string]*gnode{}}
	p := &gparser{s: []rune(src)}
	for {
		p.ws(true)
		if p.i >= len(p.s) {
			break
		}
		name := p.name()
		p.ws(true)
		if !p.eat("::=") {
			t.Fatalf("gbnf: want ::= after %q at %d: %q", name, p.i, string(p.s[p.i:min(p.i+30, len(p.s))]))
		}
		n, err := p.alt(false)
		if err != nil {
			t.Fatalf("gbnf rule %s: %v", name, err)
		}
		if _, dup := g.rules[name]; dup {
			t.Fatalf("gbnf: rule %s defined twice", name)
		}
		g.rules[name] = n
	}
	return g
}

type gparser struct {
	s []rune
	i int
}

func (p *gparser) ws(newlines bool) {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || (newlines && (c == '\n' || c == '\r')):
			p.i++
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

func (p *gparser) eat(s string) bool {
	if strings.HasPrefix(string(p.s[p.i:]), s) {
		p.i += utf8.RuneCountInString(s)
		return true
	}
	return false
}

func (p *gparser) name() string {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] < 128 && isRuleChar(byte(p.s[p.i])) {
		p.i++
	}
	return string(p.s[start:p.i])
}

// alt parses alternatives; inside a group newlines are spaces, at top level a newline ends the rule unless the
// next line does not start a new rule.
func (p *gparser) alt(nested bool) (*gnode, error) {
	a := &gnode{kind: 'a', min: 1, max: 1}
	for {
		s, err := p.seq(nested)
		if err != nil {
			return nil, err
		}
		a.kids = append(a.kids, s)
		p.ws(nested)
		if !p.eat("|") {
			return a, nil
		}
	}
}

func (p *gparser) seq(nested bool) (*gnode, error) {
	s := &gnode{kind: 's', min: 1, max: 1}
	for {
		p.ws(nested)
		if p.i >= len(p.s) {
			return s, nil
		}
		var n *gnode
		switch c := p.s[p.i]; {
		case c == '"':
			p.i++
			n = &gnode{kind: 'l'}
			for p.i < len(p.s) && p.s[p.i] != '"' {
				n.lit = append(n.lit, p.char())
			}
			p.i++
		case c == '[':
			p.i++
			n = &gnode{kind: 'c'}
			if p.s[p.i] == '^' {
				n.negate = true
				p.i++
			}
			for p.s[p.i] != ']' {
				lo := p.char()
				hi := lo
				if p.s[p.i] == '-' && p.s[p.i+1] != ']' {
					p.i++
					hi = p.char()
				}
				n.ranges = append(n.ranges, [2]rune{lo, hi})
			}
			p.i++
		case c == '(':
			p.i++
			var err error
			if n, err = p.alt(true); err != nil {
				return nil, err
			}
			p.ws(true)
			if !p.eat(")") {
				return nil, fmt.Errorf("want ) at %d", p.i)
			}
		case c == '.':
			p.i++
			n = &gnode{kind: '.'}
		case c < 128 && isRuleChar(byte(c)):
			save := p.i
			name := p.name()
			p.ws(false)
			if p.eat("::=") { // the next rule
				p.i = save
				return s, nil
			}
			n = &gnode{kind: 'r', ref: name}
		default:
			return s, nil
		}
		n.min, n.max = 1, 1
		switch {
		case p.eat("*"):
			n.min, n.max = 0, -1
		case p.eat("+"):
			n.min, n.max = 1, -1
		case p.eat("?"):
			n.min, n.max = 0, 1
		case p.i < len(p.s) && p.s[p.i] == '{':
			end := p.i
			for p.s[end] != '}' {
				end++
			}
			spec := string(p.s[p.i+1 : end])
			p.i = end + 1
			lo, hi, comma := strings.Cut(spec, ",")
			n.min, _ = strconv.Atoi(lo)
			n.max = n.min
			if comma {
				n.max = -1
				if hi != "" {
					n.max, _ = strconv.Atoi(hi)
				}
			}
		}
		s.kids = append(s.kids, n)
	}
}

func (p *gparser) char() rune {
	c := p.s[p.i]
	p.i++
	if c != '\\' {
		return c
	}
	e := p.s[p.i]
	p.i++
	switch e {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'x', 'u':
		size := 2
		if e == 'u' {
			size = 4
		}
		v, _ := strconv.ParseUint(string(p.s[p.i:p.i+size]), 16, 32)
		p.i += size
		return rune(v)
	}
	return e
}

// accepts reports whether the whole text matches rule root.
func (g *ggrammar) accepts(t testing.TB, text string) bool {
	g.text, g.memo = []rune(text), map[string]map[int][]int{}
	for _, e := range g.match(t, &gnode{kind: 'r', ref: "root", min: 1, max: 1}, 0) {
		if e == len(g.text) {
			return true
		}
	}
	return false
}

// match returns the end positions of n (with its repetition) from position at.
func (g *ggrammar) match(t testing.TB, n *gnode, at int) []int {
	cur := map[int]bool{at: true}
	var ends []int
	if n.min == 0 {
		ends = append(ends, at)
	}
	for k := 1; (n.max < 0 || k <= n.max) && len(cur) > 0; k++ {
		next := map[int]bool{}
		for pos := range cur {
			for _, e := range g.once(t, n, pos) {
				if e != pos || k == 1 {
					next[e] = true
				}
			}
		}
		for e := range next {
			if k >= n.min {
				ends = append(ends, e)
			}
		}
		cur = next
		if k > len(g.text)+1 {
			break
		}
	}
	return ends
}

func (g *ggrammar) once(t testing.TB, n *gnode, at int) []int {
	switch n.kind {
	case 'l':
		if at+len(n.lit) <= len(g.text) && string(g.text[at:at+len(n.lit)]) == string(n.lit) {
			return []int{at + len(n.lit)}
		}
	case 'c':
		if at < len(g.text) {
			in := false
			for _, r := range n.ranges {
				in = in || g.text[at] >= r[0] && g.text[at] <= r[1]
			}
			if in != n.negate {
				return []int{at + 1}
			}
		}
	case '.':
		if at < len(g.text) {
			return []int{at + 1}
		}
	case 'r':
		if m, ok := g.memo[n.ref][at]; ok {
			return m
		}
		r, ok := g.rules[n.ref]
		if !ok {
			t.Fatalf("gbnf: rule %q is not defined", n.ref)
		}
		if g.memo[n.ref] == nil {
			g.memo[n.ref] = map[int][]int{}
		}
		g.memo[n.ref][at] = nil
		out := g.match(t, r, at)
		g.memo[n.ref][at] = out
		return out
	case 'a':
		var out []int
		for _, k := range n.kids {
			out = append(out, g.match(t, k, at)...)
		}
		return dedup(out)
	case 's':
		pos := []int{at}
		for _, k := range n.kids {
			var next []int
			for _, p := range pos {
				next = append(next, g.match(t, k, p)...)
			}
			pos = dedup(next)
			if len(pos) == 0 {
				return nil
			}
		}
		return pos
	}
	return nil
}

func dedup(xs []int) []int {
	seen := map[int]bool{}
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
