package grammar

import (
	"errors"
	"strings"
	"testing"
)

// check compares the matcher (over bytes) and the reference recognizer on s, and returns their answer.
func check(t *testing.T, g *Grammar, s string) bool {
	t.Helper()
	got, err := Match(g, s)
	if err != nil {
		t.Fatalf("Match(%q): %v", s, err)
	}
	if want := recognize(g, s); got != want {
		t.Fatalf("%q: matcher says %v, recognizer says %v\ngrammar:\n%s", s, got, want, g)
	}
	return got
}

func TestGBNFConstructs(t *testing.T) {
	for _, c := range []struct {
		name, src string
		yes, no   []string
	}{
		{"literal", `root ::= "ab" "c"`, []string{"abc"}, []string{"", "ab", "abcd", "abd"}},
		{"alternation", `root ::= "a" | "bc" | ""`, []string{"a", "bc", ""}, []string{"b", "abc"}},
		{"grouping", `root ::= "x" ("a" | "b") "y"`, []string{"xay", "xby"}, []string{"xy", "xaby"}},
		{"star", `root ::= "a"*`, []string{"", "a", "aaaa"}, []string{"b", "aab"}},
		{"plus", `root ::= ("ab")+`, []string{"ab", "abab"}, []string{"", "aba"}},
		{"optional", `root ::= "a" "b"? "c"`, []string{"ac", "abc"}, []string{"abbc", "a"}},
		{"exact", `root ::= [0-9]{3}`, []string{"123"}, []string{"12", "1234"}},
		{"at least", `root ::= "a"{2,}`, []string{"aa", "aaaaa"}, []string{"a", ""}},
		{"between", `root ::= "a"{1,3} "b"{0,1}`, []string{"a", "aaab", "ab"}, []string{"", "aaaa", "abb"}},
		{"at most", `root ::= [a-z]{0,2}`, []string{"", "x", "xy"}, []string{"xyz"}},
		{"class ranges", `root ::= [a-cx0-2]+`, []string{"abx01", "c"}, []string{"d", "3", "A"}},
		{"negated class", `root ::= [^\n"]+ "\n"`, []string{"hello world\n", "é√\n"}, []string{"\n", "a\"b\n", "a\nb\n"}},
		{"any char", `root ::= . . "!"`, []string{"ab!", "日本!", "\n\t!"}, []string{"a!", "abc!"}},
		{"escapes", `root ::= "\x41\u00e9\U0001F600\t\r\n\\\"" [\[\]]`, []string{"Aé😀\t\r\n\\\"[", "Aé😀\t\r\n\\\"]"}, []string{"A"}},
		{"unicode class", `root ::= [ぁ-ゟ]+`, []string{"ひらがな"}, []string{"カタカナ", "a"}},
		{"rule references", "root ::= greeting \" \" name\ngreeting ::= \"hi\" | \"hello\"\nname ::= [A-Z] [a-z]*",
			[]string{"hi Bob", "hello Al"}, []string{"hi bob", "hey Bob"}},
		{"recursion", "root ::= expr\nexpr ::= \"(\" expr \")\" | \"x\"", []string{"x", "((x))"}, []string{"(x", "()", "(x))"}},
		{"comments and newlines", "# a comment\nroot ::= (\n  \"a\" # inline\n  | \"b\"\n) |\n  \"c\"\n\n# trailing",
			[]string{"a", "b", "c"}, []string{"", "ab"}},
		{"dashes and underscores", "root ::= my-rule_2\nmy-rule_2 ::= \"ok\"", []string{"ok"}, []string{""}},
		{"nullable recursion", "root ::= item*\nitem ::= \"a\"? \"b\"?", []string{"", "ab", "abba"}, []string{"c"}},
		{"right recursion", "root ::= \"a\" root | \"\"", []string{"", "a", "aaaaaaaaaaaaaaaaaaaaaaa"}, []string{"b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := Parse(c.src)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.yes {
				if !check(t, g, s) {
					t.Errorf("%q rejected", s)
				}
			}
			for _, s := range c.no {
				if check(t, g, s) {
					t.Errorf("%q accepted", s)
				}
			}
			// The GBNF the grammar writes reads back to the same language.
			g2, err := Parse(g.String())
			if err != nil {
				t.Fatalf("reparsing %q: %v", g.String(), err)
			}
			for _, s := range append(c.yes, c.no...) {
				if a, b := check(t, g, s), check(t, g2, s); a != b {
					t.Errorf("%q: %v before writing, %v after:\n%s", s, a, b, g2)
				}
			}
		})
	}
}

func TestGBNFErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`root ::= "abc`, "1:14: unexpected end of input in a string literal"},
		{"root ::= \"a\"\nfoo ::= bar", "2:9: undefined rule bar"},
		{"root ::= [a-", "1:10: unterminated character class"},
		{"root ::= (\"a\"", "1:14: expecting ')' to close the group opened at 1:10"},
		{"root = \"a\"", "1:6: expecting ::= after root"},
		{"root ::= \"a\" )", "1:14: expecting a newline or the end of the input"},
		{"root ::= * \"a\"", "1:10: '*' has nothing before it to repeat"},
		{"root ::= \"a\"{3,1}", "1:13: repetition {3,1}: the maximum is below the minimum"},
		{"root ::= \"a\"{x}", "1:14: expecting a number"},
		{`root ::= "\q"`, `1:11: unknown escape \q`},
		{`root ::= "\x4"`, `1:11: \x needs 2 hexadecimal digits`},
		{`root ::= "\uD800"`, `1:11: \uD800 is not a Unicode scalar value`},
		{"root ::= [z-a]", "1:13: range 'z'-'a' is reversed"},
		{"root ::= \"a\"\nroot ::= \"b\"", "2:1: rule root is already defined at 1:1"},
		{"foo ::= \"a\"", "no rule named root"},
		{"", "the grammar has no rules"},
		{"root ::= <think", "1:10: unterminated token"},
		{"root ::= <[x]>", "1:10: token id \"x\" is not a non-negative number"},
		{"root ::= \"a\"{99999999999}", "1:14: repetition count 99999999999 is too large"},
	} {
		_, err := Parse(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", c.src, err, c.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"root ::= root \"a\" | \"b\"", "left recursion in rule root (1:1): root -> root"},
		{"root ::= a\na ::= b? c\nb ::= \"x\"\nc ::= a \"y\" | \"z\"", "left recursion in rule a (2:1): a -> c -> a"},
		{"root ::= \"a\" root", "the grammar matches no string"},
		{"root ::= [^\\x00-\\U0010FFFF]", "the grammar matches no string"},
		{"root ::= <think>", "1:10: <think> is not a token of the vocabulary"},
		{"root ::= <[300]>", "1:10: token id 300 is outside the vocabulary of 256"},
	} {
		g, err := Parse(c.src)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.src, err)
		}
		_, err = Match(g, "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error with %q", c.src, err, c.want)
		}
	}
	g, _ := Parse(`root ::= "a" root`)
	if _, err := Match(g, ""); !errors.Is(err, ErrEmpty) {
		t.Errorf("an empty grammar's error does not wrap ErrEmpty: %v", err)
	}
}

// Unproductive alternatives are pruned, not errors: the rest of the grammar still works.
func TestPruneDeadAlternatives(t *testing.T) {
	g, err := Parse("root ::= \"a\" | loop\nloop ::= \"b\" loop")
	if err != nil {
		t.Fatal(err)
	}
	if !check(t, g, "a") || check(t, g, "b") {
		t.Error("wrong language after pruning")
	}
}
