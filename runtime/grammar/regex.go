package grammar

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Pattern compiles a regular expression in the dialect of JSON Schema's "pattern" (ECMA-262, without
// lookarounds or backreferences, which are refused by name) into an expression matching the strings in which
// the pattern finds a match: unanchored, as JSON Schema says, unless ^ and $ anchor it. encode maps each set of
// characters to the expression that writes one of them (nil: plain UTF-8), so that a pattern can constrain
// the inside of a JSON string, escapes and all.
func Pattern(pattern string, encode func([]RuneRange) *Expr) (*Expr, error) {
	p := &reParser{src: pattern}
	e, err := p.parse()
	if err != nil {
		return nil, err
	}
	alts, err := splitAnchors(e)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	if encode == nil {
		encode = func(r []RuneRange) *Expr { return Class(r...) }
	}
	anyStar := Star(encode([]RuneRange{{0, MaxRune}}))
	var out []*Expr
	for _, a := range alts {
		body := mapClasses(a.body, encode)
		pre, post := anyStar, anyStar
		if a.start {
			pre = empty
		}
		if a.end {
			post = empty
		}
		out = append(out, Seq(pre, body, post))
	}
	return Alt(out...), nil
}

// Regex compiles a regular expression that the whole output must match (as if between ^ and $).
func Regex(pattern string) (*Grammar, error) {
	e, err := Pattern("^(?:"+pattern+")$", nil)
	if err != nil {
		return nil, err
	}
	return FromExpr(e)
}

// Anchors are kept as marker expressions until splitAnchors moves them out.
var (
	anchorStart = &Expr{op: opRef, name: "^"}
	anchorEnd   = &Expr{op: opRef, name: "$"}
)

type anchored struct {
	start, end bool
	body       *Expr
}

// splitAnchors rewrites e as alternatives anchored or not at each end, with no anchor inside.
func splitAnchors(e *Expr) ([]anchored, error) {
	switch {
	case e == anchorStart:
		return []anchored{{start: true, body: empty}}, nil
	case e == anchorEnd:
		return []anchored{{end: true, body: empty}}, nil
	}
	switch e.op {
	case opAlt:
		var out []anchored
		for _, k := range e.kids {
			a, err := splitAnchors(k)
			if err != nil {
				return nil, err
			}
			out = append(out, a...)
		}
		return out, nil
	case opSeq:
		kids := e.kids
		firsts, err := splitAnchors(kids[0])
		if err != nil {
			return nil, err
		}
		if len(kids) == 1 {
			return firsts, nil
		}
		lasts, err := splitAnchors(kids[len(kids)-1])
		if err != nil {
			return nil, err
		}
		mid := kids[1 : len(kids)-1]
		for _, k := range mid {
			if hasAnchor(k) {
				return nil, fmt.Errorf("an anchor (^ or $) in the middle of the pattern is not supported")
			}
		}
		var out []anchored
		for _, f := range firsts {
			for _, l := range lasts {
				if f.end || l.start {
					// "a$b" or "a^b": matches nothing, unless what lies between is empty; refuse the oddity.
					return nil, fmt.Errorf("an anchor (^ or $) in the middle of the pattern is not supported")
				}
				out = append(out, anchored{f.start, l.end, Seq(append(append([]*Expr{f.body}, mid...), l.body)...)})
			}
		}
		return out, nil
	}
	if hasAnchor(e) {
		return nil, fmt.Errorf("an anchor (^ or $) inside a repetition is not supported")
	}
	return []anchored{{body: e}}, nil
}

func hasAnchor(e *Expr) bool {
	if e == anchorStart || e == anchorEnd {
		return true
	}
	for _, k := range e.kids {
		if hasAnchor(k) {
			return true
		}
	}
	return false
}

// mapClasses replaces every class of e by its encoding.
func mapClasses(e *Expr, encode func([]RuneRange) *Expr) *Expr {
	switch e.op {
	case opClass:
		return encode(e.ranges)
	case opSeq:
		kids := make([]*Expr, len(e.kids))
		for i, k := range e.kids {
			kids[i] = mapClasses(k, encode)
		}
		return Seq(kids...)
	case opAlt:
		kids := make([]*Expr, len(e.kids))
		for i, k := range e.kids {
			kids[i] = mapClasses(k, encode)
		}
		return Alt(kids...)
	case opRepeat:
		return Repeat(mapClasses(e.kids[0], encode), e.min, e.max)
	}
	return e
}

type reParser struct {
	src string
	i   int
}

func (p *reParser) errorf(format string, args ...any) error {
	return fmt.Errorf("pattern %q: at offset %d: %s", p.src, p.i, fmt.Sprintf(format, args...))
}

func (p *reParser) parse() (*Expr, error) {
	e, err := p.disjunction()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.src) {
		return nil, p.errorf("unmatched ')'")
	}
	return e, nil
}

func (p *reParser) more() bool        { return p.i < len(p.src) }
func (p *reParser) peek() byte        { return p.src[p.i] }
func (p *reParser) has(s string) bool { return strings.HasPrefix(p.src[p.i:], s) }

func (p *reParser) disjunction() (*Expr, error) {
	var alts []*Expr
	for {
		a, err := p.alternative()
		if err != nil {
			return nil, err
		}
		alts = append(alts, a)
		if !p.more() || p.peek() != '|' {
			break
		}
		p.i++
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return &Expr{op: opAlt, kids: alts}, nil
}

func (p *reParser) alternative() (*Expr, error) {
	var items []*Expr
	for p.more() && p.peek() != '|' && p.peek() != ')' {
		atom, err := p.term()
		if err != nil {
			return nil, err
		}
		items = append(items, atom)
	}
	return seqOf(items), nil
}

func (p *reParser) term() (*Expr, error) {
	switch c := p.peek(); c {
	case '^':
		p.i++
		return anchorStart, nil
	case '$':
		p.i++
		return anchorEnd, nil
	}
	atom, err := p.atom()
	if err != nil {
		return nil, err
	}
	return p.quantifier(atom)
}

func (p *reParser) quantifier(atom *Expr) (*Expr, error) {
	if !p.more() {
		return atom, nil
	}
	min, max := 1, 1
	switch p.peek() {
	case '*':
		min, max = 0, -1
	case '+':
		min, max = 1, -1
	case '?':
		min, max = 0, 1
	case '{':
		n, m, ok := p.braces()
		if !ok {
			return atom, nil // a literal '{', as ECMA-262 reads it outside unicode mode
		}
		min, max = n, m
		p.i-- // braces consumed through '}', the common step below skips one more
	default:
		return atom, nil
	}
	p.i++
	if p.more() && p.peek() == '?' {
		p.i++ // lazy: the same language
	}
	if atom == anchorStart || atom == anchorEnd {
		return nil, p.errorf("a quantifier after an anchor")
	}
	if max >= 0 && max < min {
		return nil, p.errorf("quantifier {%d,%d} is out of order", min, max)
	}
	if min > maxRepeat || max > maxRepeat {
		return nil, p.errorf("quantifier count is too large (at most %d)", maxRepeat)
	}
	return &Expr{op: opRepeat, kids: []*Expr{atom}, min: min, max: max}, nil
}

// braces reads {n}, {n,} or {n,m} and leaves p.i after '}'; ok is false (and p.i unchanged) for anything else.
func (p *reParser) braces() (min, max int, ok bool) {
	j := p.i + 1
	num := func() (int, bool) {
		s := j
		for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
			j++
		}
		if s == j {
			return 0, false
		}
		n, err := strconv.Atoi(p.src[s:j])
		if err != nil {
			n = maxRepeat + 1
		}
		return n, true
	}
	min, ok = num()
	if !ok {
		return 0, 0, false
	}
	max = min
	if j < len(p.src) && p.src[j] == ',' {
		j++
		max = -1
		if m, ok := num(); ok {
			max = m
		}
	}
	if j >= len(p.src) || p.src[j] != '}' {
		return 0, 0, false
	}
	p.i = j + 1
	return min, max, true
}

func (p *reParser) atom() (*Expr, error) {
	switch c := p.peek(); c {
	case '.':
		p.i++
		return NotClass(RuneRange{'\n', '\n'}, RuneRange{'\r', '\r'}, RuneRange{0x2028, 0x2029}), nil
	case '(':
		return p.group()
	case '[':
		p.i++
		return p.class()
	case '\\':
		return p.escape(false)
	case '*', '+', '?':
		return nil, p.errorf("%q has nothing before it to repeat", c)
	case ')':
		return nil, p.errorf("unmatched ')'")
	}
	r, n := utf8.DecodeRuneInString(p.src[p.i:])
	if r == utf8.RuneError && n <= 1 {
		return nil, p.errorf("the pattern is not valid UTF-8")
	}
	p.i += n
	return Class(RuneRange{r, r}), nil
}

func (p *reParser) group() (*Expr, error) {
	open := p.i
	p.i++
	switch {
	case p.has("?="):
		return nil, p.errorf("lookahead (?=...) is not supported")
	case p.has("?!"):
		return nil, p.errorf("negative lookahead (?!...) is not supported")
	case p.has("?<="):
		return nil, p.errorf("lookbehind (?<=...) is not supported")
	case p.has("?<!"):
		return nil, p.errorf("negative lookbehind (?<!...) is not supported")
	case p.has("?:"):
		p.i += 2
	case p.has("?<"):
		end := strings.IndexByte(p.src[p.i:], '>')
		if end < 0 {
			return nil, p.errorf("unterminated group name")
		}
		p.i += end + 1
	case p.has("?"):
		return nil, p.errorf("unknown group (?%s", p.src[p.i+1:min(p.i+2, len(p.src))])
	}
	e, err := p.disjunction()
	if err != nil {
		return nil, err
	}
	if !p.more() || p.peek() != ')' {
		p.i = open
		return nil, p.errorf("unclosed '('")
	}
	p.i++
	return e, nil
}

var (
	digitRanges = []RuneRange{{'0', '9'}}
	wordRanges  = []RuneRange{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}
	spaceRanges = []RuneRange{{'\t', '\r'}, {' ', ' '}, {0xA0, 0xA0}, {0x1680, 0x1680}, {0x2000, 0x200A},
		{0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFEFF, 0xFEFF}}
)

// escape reads a backslash escape; inClass selects the meaning of \b (backspace in a class).
func (p *reParser) escape(inClass bool) (*Expr, error) {
	start := p.i
	p.i++
	if !p.more() {
		return nil, p.errorf("'\\' at the end of the pattern")
	}
	c := p.peek()
	p.i++
	one := func(r rune) (*Expr, error) { return Class(RuneRange{r, r}), nil }
	switch c {
	case 'd':
		return Class(digitRanges...), nil
	case 'D':
		return NotClass(digitRanges...), nil
	case 'w':
		return Class(wordRanges...), nil
	case 'W':
		return NotClass(wordRanges...), nil
	case 's':
		return Class(spaceRanges...), nil
	case 'S':
		return NotClass(spaceRanges...), nil
	case 'p', 'P':
		r, err := p.property()
		if err != nil {
			return nil, err
		}
		if c == 'P' {
			return NotClass(r...), nil
		}
		return Class(r...), nil
	case 'b':
		if inClass {
			return one('\b')
		}
		p.i = start
		return nil, p.errorf("word boundary \\b is not supported")
	case 'B':
		p.i = start
		return nil, p.errorf("word boundary \\B is not supported")
	case 'k':
		p.i = start
		return nil, p.errorf("backreference \\k<...> is not supported")
	case 't':
		return one('\t')
	case 'n':
		return one('\n')
	case 'r':
		return one('\r')
	case 'v':
		return one('\v')
	case 'f':
		return one('\f')
	case '0':
		if p.more() && p.peek() >= '0' && p.peek() <= '9' {
			p.i = start
			return nil, p.errorf("octal escapes are not supported")
		}
		return one(0)
	case 'c':
		if p.more() && (p.peek()|0x20 >= 'a' && p.peek()|0x20 <= 'z') {
			r := rune(p.peek() % 32)
			p.i++
			return one(r)
		}
		return one('\\') // ECMA-262 annex B: "\c" not followed by a letter is a backslash and a 'c'
	case 'x':
		return p.hexEscape(2)
	case 'u':
		if p.more() && p.peek() == '{' {
			end := strings.IndexByte(p.src[p.i:], '}')
			if end < 0 {
				return nil, p.errorf("unterminated \\u{...}")
			}
			v, err := strconv.ParseUint(p.src[p.i+1:p.i+end], 16, 32)
			if err != nil || v > MaxRune {
				return nil, p.errorf("bad code point in \\u{...}")
			}
			p.i += end + 1
			return one(rune(v))
		}
		return p.hexEscape(4) // a surrogate pair written as two \u escapes is one code point
	}
	if c >= '1' && c <= '9' {
		p.i = start
		return nil, p.errorf("backreference \\%c is not supported", c)
	}
	r, n := utf8.DecodeRuneInString(p.src[p.i-1:])
	p.i += n - 1
	return one(r) // identity escape
}

func (p *reParser) hexEscape(n int) (*Expr, error) {
	if p.i+n > len(p.src) {
		return nil, p.errorf("\\%c needs %d hexadecimal digits", p.src[p.i-1], n)
	}
	v, err := strconv.ParseUint(p.src[p.i:p.i+n], 16, 32)
	if err != nil {
		return nil, p.errorf("\\%c needs %d hexadecimal digits", p.src[p.i-1], n)
	}
	if n == 4 && v >= 0xD800 && v <= 0xDBFF && p.i+n+6 <= len(p.src) && p.src[p.i+n:p.i+n+2] == `\u` {
		lo, err := strconv.ParseUint(p.src[p.i+n+2:p.i+n+6], 16, 32)
		if err == nil && lo >= 0xDC00 && lo <= 0xDFFF {
			p.i += n + 6
			r := rune((v-0xD800)<<10|(lo-0xDC00)) + 0x10000
			return Class(RuneRange{r, r}), nil
		}
	}
	if v >= 0xD800 && v <= 0xDFFF {
		return nil, p.errorf("lone surrogate \\u%04X is not supported", v)
	}
	p.i += n
	return Class(RuneRange{rune(v), rune(v)}), nil
}

// property reads {Name} or {Name=Value} after \p and returns its ranges (general categories and scripts).
func (p *reParser) property() ([]RuneRange, error) {
	if !p.more() || p.peek() != '{' {
		return nil, p.errorf("\\p needs {property}")
	}
	end := strings.IndexByte(p.src[p.i:], '}')
	if end < 0 {
		return nil, p.errorf("unterminated \\p{...}")
	}
	name := p.src[p.i+1 : p.i+end]
	p.i += end + 1
	if k, v, ok := strings.Cut(name, "="); ok {
		switch k {
		case "General_Category", "gc", "Script", "sc", "Script_Extensions", "scx":
			name = v
		default:
			return nil, p.errorf("unicode property %s is not supported", k)
		}
	}
	if aliases[name] != "" {
		name = aliases[name]
	}
	var t *unicode.RangeTable
	switch {
	case name == "Any":
		return []RuneRange{{0, MaxRune}}, nil
	case name == "ASCII":
		return []RuneRange{{0, 0x7F}}, nil
	case unicode.Categories[name] != nil:
		t = unicode.Categories[name]
	case unicode.Scripts[name] != nil:
		t = unicode.Scripts[name]
	case unicode.Properties[name] != nil:
		t = unicode.Properties[name]
	default:
		return nil, p.errorf("unknown unicode property %q", name)
	}
	var r []RuneRange
	for _, x := range t.R16 {
		for lo := rune(x.Lo); lo <= rune(x.Hi); lo += rune(x.Stride) {
			hi := lo
			if x.Stride == 1 {
				hi = rune(x.Hi)
			}
			r = append(r, RuneRange{lo, hi})
			if x.Stride == 1 {
				break
			}
		}
	}
	for _, x := range t.R32 {
		for lo := rune(x.Lo); lo <= rune(x.Hi); lo += rune(x.Stride) {
			hi := lo
			if x.Stride == 1 {
				hi = rune(x.Hi)
			}
			r = append(r, RuneRange{lo, hi})
			if x.Stride == 1 {
				break
			}
		}
	}
	return r, nil
}

// aliases maps long general-category names to Go's short ones.
var aliases = map[string]string{
	"Letter": "L", "Lowercase_Letter": "Ll", "Uppercase_Letter": "Lu", "Titlecase_Letter": "Lt",
	"Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M", "Number": "N", "Decimal_Number": "Nd",
	"digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No", "Punctuation": "P", "punct": "P",
	"Symbol": "S", "Separator": "Z", "Space_Separator": "Zs", "Other": "C", "Control": "Cc", "cntrl": "Cc",
	"Math_Symbol": "Sm", "Currency_Symbol": "Sc", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
	"Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Other_Punctuation": "Po", "Format": "Cf",
	"Private_Use": "Co", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
	"Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Initial_Punctuation": "Pi", "Final_Punctuation": "Pf",
	"Modifier_Symbol": "Sk", "Other_Symbol": "So",
}

// class reads the rest of a [...] class.
func (p *reParser) class() (*Expr, error) {
	open := p.i - 1
	neg := p.more() && p.peek() == '^'
	if neg {
		p.i++
	}
	var ranges []RuneRange
	for {
		if !p.more() {
			p.i = open
			return nil, p.errorf("unterminated character class")
		}
		if p.peek() == ']' {
			p.i++
			break
		}
		lo, loSet, err := p.classAtom()
		if err != nil {
			return nil, err
		}
		if p.has("-") && p.i+1 < len(p.src) && p.src[p.i+1] != ']' {
			p.i++
			hi, hiSet, err := p.classAtom()
			if err != nil {
				return nil, err
			}
			if loSet != nil || hiSet != nil {
				// [\d-x]: the '-' is literal (annex B).
				ranges = append(append(append(ranges, loSet...), hiSet...), RuneRange{'-', '-'})
				if loSet == nil {
					ranges = append(ranges, RuneRange{lo, lo})
				}
				if hiSet == nil {
					ranges = append(ranges, RuneRange{hi, hi})
				}
				continue
			}
			if hi < lo {
				return nil, p.errorf("range out of order in character class")
			}
			ranges = append(ranges, RuneRange{lo, hi})
			continue
		}
		if loSet != nil {
			ranges = append(ranges, loSet...)
		} else {
			ranges = append(ranges, RuneRange{lo, lo})
		}
	}
	if neg {
		return NotClass(ranges...), nil
	}
	return Class(ranges...), nil
}

// classAtom reads one class member: a character, or a set (\d, \w, \s, \p{...} and their negations).
func (p *reParser) classAtom() (rune, []RuneRange, error) {
	if p.peek() != '\\' {
		r, n := utf8.DecodeRuneInString(p.src[p.i:])
		p.i += n
		return r, nil, nil
	}
	if p.i+1 < len(p.src) && p.src[p.i+1] == '-' {
		p.i += 2
		return '-', nil, nil
	}
	e, err := p.escape(true)
	if err != nil {
		return 0, nil, err
	}
	if len(e.ranges) == 1 && e.ranges[0].Lo == e.ranges[0].Hi {
		return e.ranges[0].Lo, nil, nil
	}
	if e.op == opNothing {
		return 0, []RuneRange{}, nil
	}
	return 0, e.ranges, nil
}
