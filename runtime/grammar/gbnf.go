package grammar

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Parse reads a grammar in llama.cpp's GBNF: rules `name ::= alternatives`, with string literals ("..."),
// character classes ([a-z], [^\n]), '.' (any character), rule references, grouping, '|', the postfix
// operators * + ? {m} {m,} {m,n}, tokens (<[id]>, <text>, and their negations !<...>), escapes \x \u \U \t \r
// \n \\ \" \[ \], and '#' comments. The root rule is "root". An error names the line:column of the problem.
func Parse(src string) (*Grammar, error) {
	p := &gbnfParser{src: src, b: NewBuilder()}
	if err := p.parse(); err != nil {
		return nil, err
	}
	g, err := p.b.Grammar("root")
	if err != nil {
		return nil, err
	}
	return g, nil
}

type gbnfParser struct {
	src string
	i   int
	b   *Builder
}

// parseError is a syntax error at a byte offset of the source.
type parseError struct {
	pos Pos
	msg string
}

func (e *parseError) Error() string { return fmt.Sprintf("grammar: %s: %s", e.pos, e.msg) }

func (p *gbnfParser) errAt(i int, format string, args ...any) error {
	return &parseError{pos: posOf(p.src, i), msg: fmt.Sprintf(format, args...)}
}

// posOf converts a byte offset to a line and a column counted in characters.
func posOf(src string, i int) Pos {
	line, col := 1, 1
	for j, r := range src {
		if j >= i {
			break
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return Pos{line, col}
}

func (p *gbnfParser) parse() error {
	p.space(true)
	for p.i < len(p.src) {
		if err := p.rule(); err != nil {
			return err
		}
		p.space(true)
	}
	if len(p.b.rules) == 0 {
		return p.errAt(p.i, "the grammar has no rules")
	}
	if !p.b.Has("root") {
		return p.errAt(0, "no rule named root")
	}
	return p.b.err
}

// space skips blanks and comments, and newlines when nl is set.
func (p *gbnfParser) space(nl bool) {
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == ' ' || c == '\t':
			p.i++
		case c == '#':
			for p.i < len(p.src) && p.src[p.i] != '\n' && p.src[p.i] != '\r' {
				p.i++
			}
		case (c == '\n' || c == '\r') && nl:
			p.i++
		default:
			return
		}
	}
}

func (p *gbnfParser) name() (string, int) {
	start := p.i
	for p.i < len(p.src) && isWordChar(p.src[p.i]) {
		p.i++
	}
	return p.src[start:p.i], start
}

func (p *gbnfParser) rule() error {
	name, start := p.name()
	if name == "" {
		return p.errAt(p.i, "expecting a rule name, found %s", p.found())
	}
	p.space(false)
	if !hasPrefixAt(p.src, p.i, "::=") {
		return p.errAt(p.i, "expecting ::= after %s, found %s", name, p.found())
	}
	p.i += 3
	p.space(true)
	e, err := p.alternates(false)
	if err != nil {
		return err
	}
	switch {
	case p.i >= len(p.src):
	case p.src[p.i] == '\r' || p.src[p.i] == '\n':
		p.i++
	default:
		return p.errAt(p.i, "expecting a newline or the end of the input, found %s", p.found())
	}
	pos := posOf(p.src, start)
	if i, ok := p.b.index[name]; ok {
		return p.errAt(start, "rule %s is already defined at %s", name, p.b.rules[i].pos)
	}
	p.b.define(name, e, pos)
	return p.b.err
}

func (p *gbnfParser) found() string {
	if p.i >= len(p.src) {
		return "the end of the input"
	}
	r, _ := utf8.DecodeRuneInString(p.src[p.i:])
	return strconv.QuoteRune(r)
}

func (p *gbnfParser) alternates(nested bool) (*Expr, error) {
	var alts []*Expr
	for {
		s, err := p.sequence(nested)
		if err != nil {
			return nil, err
		}
		alts = append(alts, s)
		if p.i >= len(p.src) || p.src[p.i] != '|' {
			break
		}
		p.i++
		p.space(true)
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &Expr{op: opAlt, kids: alts}, nil // kept as written, empty alternatives included
}

func (p *gbnfParser) sequence(nested bool) (*Expr, error) {
	var items []*Expr
	for p.i < len(p.src) {
		c, start := p.src[p.i], p.i
		pos := posOf(p.src, start)
		var item *Expr
		switch {
		case c == '"':
			p.i++
			s, err := p.literal()
			if err != nil {
				return nil, err
			}
			item = Lit(s).at(pos)
		case c == '[':
			p.i++
			e, err := p.class()
			if err != nil {
				return nil, err
			}
			item = e.at(pos)
		case c == '.':
			p.i++
			item = AnyChar().at(pos)
		case c == '(':
			p.i++
			p.space(true)
			e, err := p.alternates(true)
			if err != nil {
				return nil, err
			}
			if p.i >= len(p.src) || p.src[p.i] != ')' {
				return nil, p.errAt(p.i, "expecting ')' to close the group opened at %s, found %s", pos, p.found())
			}
			p.i++
			item = e
		case c == '<' || c == '!':
			e, err := p.token()
			if err != nil {
				return nil, err
			}
			item = e.at(pos)
		case isWordChar(c):
			name, _ := p.name()
			item = Ref(name).at(pos)
		case c == '*' || c == '+' || c == '?' || c == '{':
			if len(items) == 0 {
				return nil, p.errAt(start, "%q has nothing before it to repeat", c)
			}
			min, max, err := p.repetition()
			if err != nil {
				return nil, err
			}
			items[len(items)-1] = (&Expr{op: opRepeat, kids: []*Expr{items[len(items)-1]}, min: min, max: max}).at(pos)
			p.space(nested)
			continue
		default:
			return seqOf(items), nil
		}
		items = append(items, item)
		p.space(nested)
	}
	return seqOf(items), nil
}

// seqOf keeps a sequence as written (no literal merging across positions).
func seqOf(items []*Expr) *Expr {
	switch len(items) {
	case 0:
		return empty
	case 1:
		return items[0]
	}
	return &Expr{op: opSeq, kids: items}
}

func (p *gbnfParser) repetition() (min, max int, err error) {
	c := p.src[p.i]
	p.i++
	switch c {
	case '*':
		return 0, -1, nil
	case '+':
		return 1, -1, nil
	case '?':
		return 0, 1, nil
	}
	open := p.i - 1
	p.space(true)
	if min, err = p.int(); err != nil {
		return 0, 0, err
	}
	p.space(true)
	max = min
	if p.i < len(p.src) && p.src[p.i] == ',' {
		p.i++
		p.space(true)
		max = -1
		if p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
			if max, err = p.int(); err != nil {
				return 0, 0, err
			}
			p.space(true)
		}
	}
	if p.i >= len(p.src) || p.src[p.i] != '}' {
		return 0, 0, p.errAt(p.i, "expecting '}' to close the repetition opened at %s, found %s", posOf(p.src, open), p.found())
	}
	p.i++
	if max >= 0 && max < min {
		return 0, 0, p.errAt(open, "repetition {%d,%d}: the maximum is below the minimum", min, max)
	}
	return min, max, nil
}

func (p *gbnfParser) int() (int, error) {
	start := p.i
	for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		p.i++
	}
	if start == p.i {
		return 0, p.errAt(p.i, "expecting a number, found %s", p.found())
	}
	n, err := strconv.Atoi(p.src[start:p.i])
	if err != nil || n > maxRepeat {
		return 0, p.errAt(start, "repetition count %s is too large (at most %d)", p.src[start:p.i], maxRepeat)
	}
	return n, nil
}

// maxRepeat bounds the counts of {m,n}: each count is unrolled into states.
const maxRepeat = 100000

// literal reads the rest of a "..." literal.
func (p *gbnfParser) literal() (string, error) {
	var out []byte
	for {
		if p.i >= len(p.src) {
			return "", p.errAt(p.i, "unexpected end of input in a string literal")
		}
		if p.src[p.i] == '"' {
			p.i++
			return string(out), nil
		}
		r, err := p.char()
		if err != nil {
			return "", err
		}
		out = utf8.AppendRune(out, r)
	}
}

// char reads one character, escaped or not.
func (p *gbnfParser) char() (rune, error) {
	start := p.i
	c := p.src[p.i]
	if c != '\\' {
		r, n := utf8.DecodeRuneInString(p.src[p.i:])
		if r == utf8.RuneError && n <= 1 {
			return 0, p.errAt(start, "the grammar is not valid UTF-8")
		}
		p.i += n
		return r, nil
	}
	if p.i+1 >= len(p.src) {
		return 0, p.errAt(start, "unexpected end of input after '\\'")
	}
	e := p.src[p.i+1]
	p.i += 2
	switch e {
	case 'x', 'u', 'U':
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
		if p.i+n > len(p.src) {
			return 0, p.errAt(start, "\\%c needs %d hexadecimal digits", e, n)
		}
		v, err := strconv.ParseUint(p.src[p.i:p.i+n], 16, 32)
		if err != nil {
			return 0, p.errAt(start, "\\%c needs %d hexadecimal digits", e, n)
		}
		if v > MaxRune || (v >= 0xD800 && v <= 0xDFFF) {
			return 0, p.errAt(start, "\\%c%s is not a Unicode scalar value", e, p.src[p.i:p.i+n])
		}
		p.i += n
		return rune(v), nil
	case 't':
		return '\t', nil
	case 'r':
		return '\r', nil
	case 'n':
		return '\n', nil
	case '\\', '"', '[', ']', '-', '^':
		return rune(e), nil
	}
	return 0, p.errAt(start, "unknown escape \\%c", e)
}

// class reads the rest of a [...] class.
func (p *gbnfParser) class() (*Expr, error) {
	open := p.i - 1
	neg := p.i < len(p.src) && p.src[p.i] == '^'
	if neg {
		p.i++
	}
	var ranges []RuneRange
	for {
		if p.i >= len(p.src) {
			return nil, p.errAt(open, "unterminated character class")
		}
		if p.src[p.i] == ']' {
			p.i++
			break
		}
		lo, err := p.char()
		if err != nil {
			return nil, err
		}
		hi := lo
		if p.i+1 < len(p.src) && p.src[p.i] == '-' && p.src[p.i+1] != ']' {
			p.i++
			at := p.i
			if hi, err = p.char(); err != nil {
				return nil, err
			}
			if hi < lo {
				return nil, p.errAt(at, "range %q-%q is reversed", lo, hi)
			}
		}
		ranges = append(ranges, RuneRange{lo, hi})
	}
	if neg {
		return NotClass(ranges...), nil
	}
	return Class(ranges...), nil
}

// token reads <[id]>, <text> or their negation with '!'.
func (p *gbnfParser) token() (*Expr, error) {
	start := p.i
	neg := p.src[p.i] == '!'
	if neg {
		p.i++
	}
	if p.i >= len(p.src) || p.src[p.i] != '<' {
		return nil, p.errAt(start, "expecting '<' after '!'")
	}
	p.i++
	end := p.i
	for end < len(p.src) && p.src[end] != '>' && p.src[end] != '\n' {
		end++
	}
	if end >= len(p.src) || p.src[end] != '>' {
		return nil, p.errAt(start, "unterminated token: expecting '>'")
	}
	body := p.src[p.i:end]
	p.i = end + 1
	if len(body) >= 2 && body[0] == '[' && body[len(body)-1] == ']' {
		id, err := strconv.ParseInt(body[1:len(body)-1], 10, 32)
		if err != nil || id < 0 {
			return nil, p.errAt(start, "token id %q is not a non-negative number", body[1:len(body)-1])
		}
		return Tokens(neg, TokenRef{ID: int32(id)}), nil
	}
	if body == "" {
		return nil, p.errAt(start, "empty token <>")
	}
	return Tokens(neg, TokenRef{ID: -1, Text: "<" + body + ">"}), nil
}

func hasPrefixAt(s string, i int, prefix string) bool {
	return len(s)-i >= len(prefix) && s[i:i+len(prefix)] == prefix
}
