package grammar

import (
	"regexp"
	"strings"
	"testing"
)

func TestPattern(t *testing.T) {
	for _, c := range []struct {
		pattern string
		yes, no []string
	}{
		{"^abc$", []string{"abc"}, []string{"xabc", "abcx", ""}},
		{"abc", []string{"abc", "xxabcxx"}, []string{"ab", "acb"}}, // unanchored: a match anywhere
		{"^ab", []string{"ab", "abzz"}, []string{"zab"}},
		{"ab$", []string{"ab", "zzab"}, []string{"abz"}},
		{"^[a-z]+@[a-z]+\\.(com|org)$", []string{"me@host.com", "a@b.org"}, []string{"me@host.net", "@b.com"}},
		{"^\\d{3}-\\d{4}$", []string{"555-1234"}, []string{"5555-1234", "555-123"}},
		{"^\\w+\\s\\W$", []string{"foo_1 !"}, []string{"foo  !", "foo a"}},
		{"^(?:ab|cd)*$", []string{"", "abcdab"}, []string{"abc"}},
		{"^(?<year>\\d{4})-(\\d{2})$", []string{"2024-01"}, []string{"24-01"}},
		{"^a{2,3}?b+?c*?$", []string{"aab", "aaabbc"}, []string{"ab"}},
		{"^[^abc]$", []string{"d", "é"}, []string{"a", "dd"}},
		{"^[\\d\\-x]+$", []string{"1-x2"}, []string{"y"}},
		{"^.$", []string{"a", "日"}, []string{"\n", "ab"}},
		{"^\\x41\\u00e9\\u{1F600}\\t$", []string{"Aé😀\t"}, []string{"Ae😀\t"}},
		{"^\\p{Lu}\\p{Ll}*$", []string{"Élan", "A"}, []string{"élan"}},
		{"^\\P{L}+$", []string{"123 !"}, []string{"a1"}},
		{"^\\p{Script=Greek}+$", []string{"αβγ"}, []string{"abc"}},
		{"^a|b$", []string{"ab", "a", "xb"}, []string{"xa", "bx"}},
		{"^(a|b)c$", []string{"ac", "bc"}, []string{"abc"}},
		{"x{2}{", []string{"xx{", "axx{"}, []string{"x{"}}, // '{' not starting a quantifier is literal
		{"^[]$", nil, []string{"", "a"}},
		{"^\\/\\.\\*$", []string{"/.*"}, []string{"/a*"}},
	} {
		e, err := Pattern(c.pattern, nil)
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		g, err := FromExpr(e)
		if err != nil {
			t.Fatal(err)
		}
		goRe := regexp.MustCompile(strings.NewReplacer(`\u{1F600}`, `\x{1F600}`, `\u00e9`, `\x{e9}`, `\p{Script=Greek}`, `\p{Greek}`,
			`(?<year>`, `(?P<year>`, "x{2}{", `x{2}\{`, "^[]$", `^[^\x00-\x{10FFFF}]$`).Replace(c.pattern))
		for _, s := range c.yes {
			got, err := Match(g, s)
			if errorsIsEmpty(err) {
				got, err = false, nil
			}
			if err != nil || !got || !goRe.MatchString(s) {
				t.Errorf("%q should match %q (matcher %v %v, Go's regexp %v)", c.pattern, s, got, err, goRe.MatchString(s))
			}
		}
		for _, s := range c.no {
			got, err := Match(g, s)
			if errorsIsEmpty(err) {
				got, err = false, nil
			}
			if err != nil || got || goRe.MatchString(s) {
				t.Errorf("%q should not match %q (matcher %v %v, Go's regexp %v)", c.pattern, s, got, err, goRe.MatchString(s))
			}
		}
	}
}

func errorsIsEmpty(err error) bool {
	return err != nil && strings.Contains(err.Error(), ErrEmpty.Error())
}

func TestPatternRefused(t *testing.T) {
	for _, c := range []struct{ pattern, want string }{
		{"a(?=b)", "lookahead (?=...) is not supported"},
		{"a(?!b)", "negative lookahead (?!...) is not supported"},
		{"(?<=a)b", "lookbehind (?<=...) is not supported"},
		{"(?<!a)b", "negative lookbehind (?<!...) is not supported"},
		{"(a)\\1", "backreference \\1 is not supported"},
		{"(?<n>a)\\k<n>", "backreference \\k<...> is not supported"},
		{"\\bword\\b", "word boundary \\b is not supported"},
		{"a\\B", "word boundary \\B is not supported"},
		{"a^b", "an anchor (^ or $) in the middle of the pattern is not supported"},
		{"(^a)*", "an anchor (^ or $) inside a repetition is not supported"},
		{"(ab", "unclosed '('"},
		{"ab)", "unmatched ')'"},
		{"[ab", "unterminated character class"},
		{"*a", "'*' has nothing before it to repeat"},
		{"a{3,1}", "quantifier {3,1} is out of order"},
		{"\\p{Nope}", "unknown unicode property \"Nope\""},
		{"\\012", "octal escapes are not supported"},
		{"[z-a]", "range out of order"},
	} {
		_, err := Pattern(c.pattern, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Pattern(%q) = %v, want an error with %q", c.pattern, err, c.want)
		}
	}
}

func TestRegexWhole(t *testing.T) {
	g, err := Regex(`[a-c]+|x`)
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[string]bool{"abc": true, "x": true, "zabc": false, "ax": false} {
		if got := check(t, g, s); got != want {
			t.Errorf("%q: got %v want %v", s, got, want)
		}
	}
}
