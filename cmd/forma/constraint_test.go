package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunConstraintErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.gbnf")
	os.WriteFile(bad, []byte("root ::= item+\nitem ::= [a-z\n"), 0o644)
	schema := filepath.Join(dir, "schema.json")
	os.WriteFile(schema, []byte(`{"type":"object","properties":{"a":{"type":"array","uniqueItems":true}}}`), 0o644)
	model := storiesPath(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--grammar-file", bad}, "bad.gbnf: grammar: 2:10: unterminated character class"},
		{[]string{"--grammar", "root ::= \"a\" x"}, "grammar: 1:14: undefined rule x"},
		{[]string{"--json-schema", schema}, "#/properties/a/uniqueItems: uniqueItems true cannot be enforced"},
		{[]string{"--json-schema", `{"type":"integer","multipleOf":2}`}, `#/multipleOf: keyword "multipleOf" cannot be enforced`},
		{[]string{"--json-schema", filepath.Join(dir, "missing.json")}, "give a file or the schema's JSON"},
		{[]string{"--json", "--grammar", `root ::= "a"`}, "give only one of"},
		{[]string{"--grammar", "root ::= <[4096]>"}, "token id 4096 is outside the vocabulary of 512"},
	} {
		rc, out, errs := forma(append(append([]string{"run", "-n", "8"}, c.args...), model, "Once")...)
		if rc != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: rc %d, stderr %q; want 2 and %q", c.args, rc, errs, c.want)
		}
		if out != "" {
			t.Errorf("%v: output %q", c.args, out)
		}
	}
}

func TestRunConstrained(t *testing.T) {
	model := storiesPath(t)
	schema := `{"type":"object","properties":{"name":{"type":"string","maxLength":8},"n":{"type":"integer","minimum":1,"maximum":3}},"required":["name","n"],"additionalProperties":false}`
	rc, out, errs := forma("run", "--seed", "1", "-n", "40", "--json-schema", schema, model, "Once upon a time")
	var v struct {
		Name string
		N    int
	}
	if rc != 0 || json.Unmarshal([]byte(out), &v) != nil || v.N < 1 || v.N > 3 || len(v.Name) > 8 {
		t.Errorf("--json-schema: rc %d, output %q, stderr %q", rc, out, errs)
	}
	rc, out, _ = forma("run", "--seed", "2", "-n", "30", "--json", model, "Once")
	var obj map[string]any
	if rc != 0 || json.Unmarshal([]byte(out), &obj) != nil {
		t.Errorf("--json: rc %d, output %q", rc, out)
	}
	rc, out, _ = forma("run", "--seed", "3", "--grammar", `root ::= ("yes" | "no") "."`, model, "Once")
	if rc != 0 || (out != "yes.\n" && out != "no.\n") {
		t.Errorf("--grammar: rc %d, output %q", rc, out)
	}
}
