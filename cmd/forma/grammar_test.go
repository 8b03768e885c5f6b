package main

import (
	"strings"
	"testing"

	"github.com/forma-llm/forma/runtime/grammar"
)

func TestGrammarCommand(t *testing.T) {
	rc, out, errs := forma("grammar", "--json-schema", `{"type":"object","properties":{"a":{"type":"integer","minimum":1,"maximum":3}},"required":["a"],"additionalProperties":false}`)
	if rc != 0 || !strings.HasPrefix(out, "root ::= ") {
		t.Fatalf("rc %d, stderr %q, output %q", rc, errs, out)
	}
	g, err := grammar.Parse(out)
	if err != nil {
		t.Fatalf("the printed GBNF does not parse: %v", err)
	}
	for s, want := range map[string]bool{`{"a":2}`: true, `{"a":4}`: false, `{"a":2,"b":1}`: false} {
		if ok, _ := grammar.Match(g, s); ok != want {
			t.Errorf("%s: %v", s, ok)
		}
	}
	if rc, out, _ := forma("grammar", "--grammar", `root ::= <think> [a-z]+`); rc != 0 || out != "root ::= <think> [a-z]+\n" {
		t.Errorf("tokens: rc %d %q", rc, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--grammar", "root ::= root \"a\" | \"b\""}, "left recursion in rule root"},
		{[]string{"--grammar", "root ::= \"a\" root"}, "matches no string"},
		{[]string{"--json-schema", `{"type":"array","contains":{}}`}, `keyword "contains" cannot be enforced`},
		{[]string{"--json-schema", `{"type":"integer","minimum":2,"maximum":1}`}, "admits no value"},
	} {
		if rc, _, errs := forma(append([]string{"grammar"}, c.args...)...); rc != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: rc %d %q, want 2 and %q", c.args, rc, errs, c.want)
		}
	}
	if rc, _, _ := forma("grammar"); rc != 2 {
		t.Errorf("no input: rc %d", rc)
	}
}
