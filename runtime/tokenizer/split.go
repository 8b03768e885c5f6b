package tokenizer

import (
	"fmt"
	"strings"

	"github.com/dlclark/regexp2/v2"
)

// A splitter is one step of a pre-tokenizer: it cuts the code point range [start, end) of a text into pieces and
// appends their lengths (in code points) to out. Like llama.cpp's unicode_regex_split, text that no match covers
// becomes a piece of its own, so the pieces always tile the range.
type splitter interface {
	split(out []int, s *scratch, start, end int) []int
}

// cpOut is the info of a position outside the range being split (llama.cpp's all-zero flags).
const cpOut cpInfo = 0x10

// span gives the splitters bounds-checked access to one range.
type span struct {
	cps        []rune
	inf        []cpInfo
	start, end int
}

func (r *span) cp(p int) rune {
	if p >= r.start && p < r.end {
		return r.cps[p]
	}
	return -1
}

func (r *span) at(p int) cpInfo {
	if p >= r.start && p < r.end {
		return r.inf[p]
	}
	return cpOut
}

// cutter appends the lengths of consecutive pieces.
type cutter struct {
	out  []int
	prev int
}

func (c *cutter) cut(end int) int {
	n := end - c.prev
	if n > 0 {
		c.out = append(c.out, n)
	}
	c.prev = end
	return n
}

// contractionLen returns 2 or 3 when an English contraction ('s 't 'm 'd 're 've 'll) starts at p, else 0.
func contractionLen(r *span, p int, fold bool) int {
	if r.cp(p) != '\'' || p+1 >= r.end {
		return 0
	}
	low := func(c rune) rune {
		if fold && c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	c1 := low(r.cp(p + 1))
	if c1 == 's' || c1 == 't' || c1 == 'm' || c1 == 'd' {
		return 2
	}
	if p+2 < r.end {
		c2 := low(r.cp(p + 2))
		if (c1 == 'r' && c2 == 'e') || (c1 == 'v' && c2 == 'e') || (c1 == 'l' && c2 == 'l') {
			return 3
		}
	}
	return 0
}

// gpt2Split is GPT-2's pattern 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S), written out
// by hand exactly as llama.cpp's unicode_regex_split_custom_gpt2 does.
type gpt2Split struct{}

func (gpt2Split) split(out []int, s *scratch, start, end int) []int {
	r := span{s.cps, s.inf, start, end}
	c := cutter{out: out, prev: start}
	for pos := start; pos < end; {
		cpt, f := r.cp(pos), r.at(pos)
		if n := contractionLen(&r, pos, false); n > 0 {
			pos += c.cut(pos + n)
			continue
		}
		f2 := f
		if cpt == ' ' {
			f2 = r.at(pos + 1)
		}
		space := 0
		if cpt == ' ' {
			space = 1
		}
		switch {
		case f2.isLetter():
			for pos += space; f2.isLetter(); {
				pos++
				f2 = r.at(pos)
			}
			c.cut(pos)
			continue
		case f2.isNumber():
			for pos += space; f2.isNumber(); {
				pos++
				f2 = r.at(pos)
			}
			c.cut(pos)
			continue
		case !f2.isSpace() && !f2.isLetter() && !f2.isNumber() && f2 != cpOut:
			for pos += space; !f2.isSpace() && !f2.isLetter() && !f2.isNumber() && f2 != cpOut; {
				pos++
				f2 = r.at(pos)
			}
			c.cut(pos)
			continue
		}
		nws := 0
		for r.at(pos + nws).isSpace() {
			nws++
		}
		switch {
		case nws > 1 && r.cp(pos+nws) != -1:
			pos += nws - 1
			c.cut(pos)
		case nws > 0:
			pos += nws
			c.cut(pos)
		default:
			pos++
			c.cut(pos)
		}
	}
	return c.out
}

// llama3Split is the Llama 3 pattern family written out by hand as llama.cpp's custom splitters do:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// maxDigits is 3 for Llama 3, 1 for Qwen2 (\p{N}); marks adds \p{M} to the letter runs (Qwen3.5).
type llama3Split struct {
	maxDigits int
	marks     bool
}

func (l llama3Split) letter(f cpInfo) bool { return f.isLetter() || (l.marks && f.isMark()) }

func (l llama3Split) split(out []int, s *scratch, start, end int) []int {
	r := span{s.cps, s.inf, start, end}
	c := cutter{out: out, prev: start}
	for pos := start; pos < end; {
		cpt, f := r.cp(pos), r.at(pos)
		if n := contractionLen(&r, pos, true); n > 0 {
			pos += c.cut(pos + n)
			continue
		}
		// [^\r\n\p{L}\p{N}]?\p{L}+
		if cpt != '\r' && cpt != '\n' && !f.isNumber() && (l.letter(f) || l.letter(r.at(pos+1))) {
			pos++
			for l.letter(r.at(pos)) {
				pos++
			}
			c.cut(pos)
			continue
		}
		// \p{N}{1,maxDigits}
		if f.isNumber() {
			ini := pos
			for r.at(pos).isNumber() {
				pos++
				if pos-ini >= l.maxDigits {
					c.cut(pos)
					ini = pos
				}
			}
			c.cut(pos)
			continue
		}
		// ' ?[^\s\p{L}\p{N}]+[\r\n]*' (llama.cpp tests the first position's flags, not the looked-ahead ones)
		f2 := f
		if cpt == ' ' {
			f2 = r.at(pos + 1)
		}
		other := func(x cpInfo) bool { return !x.isSpace() && !l.letter(x) && !x.isNumber() }
		if other(f2) && f != cpOut {
			if cpt == ' ' {
				pos++
			}
			for other(f2) && f2 != cpOut {
				pos++
				f2 = r.at(pos)
			}
			for c2 := r.cp(pos); c2 == '\r' || c2 == '\n'; c2 = r.cp(pos) {
				pos++
			}
			c.cut(pos)
			continue
		}
		nws, lastRN := 0, 0
		for r.at(pos + nws).isSpace() {
			if c2 := r.cp(pos + nws); c2 == '\r' || c2 == '\n' {
				lastRN = pos + nws + 1
			}
			nws++
		}
		switch {
		case lastRN > 0: // \s*[\r\n]+
			pos = lastRN
		case nws > 1 && r.cp(pos+nws) != -1: // \s+(?!\S)
			pos += nws - 1
		case nws > 0: // \s+
			pos += nws
		default:
			pos++
		}
		c.cut(pos)
	}
	return c.out
}

// newlineSplit is [^\n]+|[\n]+: runs of newlines and runs of anything else.
type newlineSplit struct{}

func (newlineSplit) split(out []int, s *scratch, start, end int) []int {
	for pos := start; pos < end; {
		nl := s.cps[pos] == '\n'
		run := pos
		for pos < end && (s.cps[pos] == '\n') == nl {
			pos++
		}
		out = append(out, pos-run)
	}
	return out
}

// digitGroupSplit splits runs of \p{N} into groups of three counted from the right (llama.cpp's AFMoE digits, also
// used for tiny_aya's \d{1,3}(?=(?:\d{3})*\b)). As in llama.cpp, text before a run is not cut off: it joins the
// run's first group.
type digitGroupSplit struct{}

func (digitGroupSplit) split(out []int, s *scratch, start, end int) []int {
	c := cutter{out: out, prev: start}
	for pos := start; pos < end; {
		if !s.inf[pos].isNumber() {
			pos++
			continue
		}
		ini := pos
		for pos < end && s.inf[pos].isNumber() {
			pos++
		}
		n := pos - ini
		cur := ini
		if rem := n % 3; rem > 0 {
			cur += rem
			c.cut(cur)
		}
		for cur < pos {
			cur += 3
			c.cut(cur)
		}
	}
	c.cut(end)
	return c.out
}

// classSplit isolates every code point of one class (the common `\p{N}` step): each such code point is a piece,
// and the text between them too. It equals the regex on llama.cpp's collapsed text.
type classSplit struct{ class cpClass }

func (k classSplit) split(out []int, s *scratch, start, end int) []int {
	c := cutter{out: out, prev: start}
	for pos := start; pos < end; pos++ {
		if f := s.inf[pos]; f.class() == k.class && !f.isSpace() {
			c.cut(pos)
			c.cut(pos + 1)
		}
	}
	c.cut(end)
	return c.out
}

// regexSplit runs a general expression with a backtracking engine (regexp2), the way llama.cpp runs std::regex: on
// the "collapsed" text when the expression names Unicode classes (every code point >= 128 replaced by one code for
// its class: \p{N} 0xD1, \p{L} 0xD2, \p{P} 0xD3, \p{M} 0xD4, \p{S} 0xD5, whitespace 0x0B, other 0xD0, and each
// \p{..} in the expression by that code plus its ASCII members), else on the code points with non-ASCII
// whitespace replaced by 0x0B. \s, \d, \w and $ keep std::regex's ASCII meaning.
type regexSplit struct {
	re        *regexp2.Regexp
	collapsed bool
}

// Collapsed codes and the ASCII members of each class, as llama.cpp's unicode_regex_split defines them.
var collapseCode = [8]rune{classUndefined: 0xD0, classNumber: 0xD1, classLetter: 0xD2, classSeparator: 0xD0,
	classMark: 0xD4, classPunct: 0xD3, classSymbol: 0xD5, classControl: 0xD0}

var ucatClasses = map[string]struct {
	code  rune
	ascii string
}{
	`\p{N}`:  {0xD1, "0-9"},
	`\p{L}`:  {0xD2, "A-Za-z"},
	`\p{Lu}`: {0xD2, "A-Za-z"},
	`\p{Ll}`: {0xD2, "A-Za-z"},
	`\p{Lt}`: {0xD2, "A-Za-z"},
	`\p{Lm}`: {0xD2, "A-Za-z"},
	`\p{Lo}`: {0xD2, "A-Za-z"},
	`\p{P}`:  {0xD3, `!-#%-*,-/:-;?-@\[-\]_\{\}`},
	`\p{M}`:  {0xD4, ""},
	`\p{S}`:  {0xD5, `\$\+<-\>\^` + "`" + `\|~`},
}

const asciiSpace = `\t\n\x0B\f\r `

func usesClasses(expr string) bool {
	for k := range ucatClasses {
		if strings.Contains(expr, k) {
			return true
		}
	}
	return false
}

// translateRegex rewrites a llama.cpp (ECMAScript) expression into regexp2 syntax over the text the splitter
// feeds it.
func translateRegex(expr string, collapsed bool) (string, error) {
	var b strings.Builder
	in := false
	for i := 0; i < len(expr); i++ {
		ch := expr[i]
		switch {
		case ch == '[' && !in:
			in = true
			b.WriteByte(ch)
			continue
		case ch == ']' && in:
			in = false
			b.WriteByte(ch)
			continue
		case ch == '$' && !in:
			b.WriteString(`\z`)
			continue
		case ch != '\\' || i+1 >= len(expr):
			b.WriteByte(ch)
			continue
		}
		next := expr[i+1]
		if next == 'p' && collapsed {
			j := strings.IndexByte(expr[i:], '}')
			if j > 0 {
				if c, ok := ucatClasses[expr[i:i+j+1]]; ok {
					if !in {
						b.WriteByte('[')
					}
					fmt.Fprintf(&b, `\u%04X%s`, c.code, c.ascii)
					if !in {
						b.WriteByte(']')
					}
					i += j
					continue
				}
			}
		}
		var set string
		neg := false
		switch next {
		case 's':
			set = asciiSpace
		case 'S':
			set, neg = asciiSpace, true
		case 'd':
			set = "0-9"
		case 'D':
			set, neg = "0-9", true
		case 'w':
			set = "A-Za-z0-9_"
		case 'W':
			set, neg = "A-Za-z0-9_", true
		}
		switch {
		case set == "":
			b.WriteByte(ch)
			b.WriteByte(next)
		case in && neg:
			return "", fmt.Errorf("negated class \\%c inside brackets is not supported", next)
		case in:
			b.WriteString(set)
		case neg:
			b.WriteString("[^" + set + "]")
		default:
			b.WriteString("[" + set + "]")
		}
		i++
	}
	return b.String(), nil
}

func newRegexSplit(expr string) (*regexSplit, error) {
	collapsed := usesClasses(expr)
	if collapsed {
		for _, r := range expr {
			if r >= 128 {
				return nil, fmt.Errorf("expression %q mixes Unicode classes and non-ASCII characters", expr)
			}
		}
	}
	pat, err := translateRegex(expr, collapsed)
	if err != nil {
		return nil, fmt.Errorf("expression %q: %w", expr, err)
	}
	re, err := regexp2.Compile(pat, regexp2.None)
	if err != nil {
		return nil, fmt.Errorf("expression %q: %w", expr, err)
	}
	return &regexSplit{re: re, collapsed: collapsed}, nil
}

func (x *regexSplit) split(out []int, s *scratch, start, end int) []int {
	text := s.wide
	if x.collapsed {
		text = s.collapsed
	}
	sub := text[start:end]
	c := cutter{out: out, prev: 0}
	ms, err := x.re.FindAllRunesIndex(sub, -1)
	if err != nil {
		ms = nil // only a match timeout can fail, and none is set
	}
	for _, m := range ms {
		c.cut(m[0]) // an empty match (a bare look-ahead) still cuts the text, as in llama.cpp
		c.cut(m[1])
	}
	c.cut(end - start)
	return c.out
}

// compileSplitter returns the splitter for one expression: llama.cpp's hand-written ones where it has them (and
// simple ones written here), else the general engine.
func compileSplitter(expr string) (splitter, error) {
	switch expr {
	case reGPT2:
		return gpt2Split{}, nil
	case reLlama3, reLlama3CI:
		return llama3Split{maxDigits: 3}, nil
	case reQwen2:
		return llama3Split{maxDigits: 1}, nil
	case reQwen35:
		return llama3Split{maxDigits: 1, marks: true}, nil
	case reNewlines:
		return newlineSplit{}, nil
	case `\p{AFMoE_digits}`, `\d{1,3}(?=(?:\d{3})*\b)`:
		return digitGroupSplit{}, nil
	case `\p{N}`:
		return classSplit{classNumber}, nil
	}
	return newRegexSplit(expr)
}
