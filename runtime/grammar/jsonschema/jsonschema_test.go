package jsonschema

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	g "github.com/forma-llm/forma/runtime/grammar"
)

// mustMatch reports whether gr matches s, compiling gr once for all the strings it is asked about.
func mustMatch(t *testing.T, gr *g.Grammar, s string) bool {
	t.Helper()
	m, ok := matchers[gr]
	if !ok {
		c, err := g.Compile(gr, g.ByteVocab())
		if err != nil {
			t.Fatal(err)
		}
		m = c.NewMatcher()
		matchers[gr] = m
	}
	m.Reset()
	return m.AcceptBytes([]byte(s)) && m.Complete()
}

var matchers = map[*g.Grammar]*g.Matcher{}

func exprGrammar(t *testing.T, e *g.Expr) *g.Grammar {
	t.Helper()
	gr, err := g.FromExpr(e)
	if err != nil {
		t.Fatal(err)
	}
	return gr
}

// Integer ranges are exact: every integer in a window is accepted iff it is within the bounds, written
// canonically; leading zeros, "+" and "-0" never are.
func TestIntegerRanges(t *testing.T) {
	rat := func(s string) *big.Rat { r, _ := new(big.Rat).SetString(s); return r }
	for _, c := range []struct {
		lo, hi string
		lx, hx bool
	}{
		{"0", "150", false, false}, {"-5", "1000", true, true}, {"-120", "-7", false, false}, {"7", "", false, false},
		{"", "-93", false, false}, {"-3.5", "12.5", false, false}, {"-3.5", "12.5", true, true}, {"99", "101", false, false},
		{"0", "0", false, false}, {"1", "9", false, true}, {"-1000", "1000", false, false},
	} {
		var lo, hi bound
		if c.lo != "" {
			lo = bound{rat(c.lo), c.lx}
		}
		if c.hi != "" {
			hi = bound{rat(c.hi), c.hx}
		}
		e, err := integerRange(lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		gr := exprGrammar(t, e)
		for x := -1300; x <= 1300; x++ {
			r := big.NewRat(int64(x), 1)
			in := (lo.v == nil || r.Cmp(lo.v) > 0 || r.Cmp(lo.v) == 0 && !lo.excl) &&
				(hi.v == nil || r.Cmp(hi.v) < 0 || r.Cmp(hi.v) == 0 && !hi.excl)
			if got := mustMatch(t, gr, fmt.Sprint(x)); got != in {
				t.Fatalf("[%s%s, %s%s]: %d accepted %v", c.lo, map[bool]string{true: "(excl)"}[c.lx], c.hi, map[bool]string{true: "(excl)"}[c.hx], x, got)
			}
		}
		for _, s := range []string{"007", "-0", "+1", "00", "1.0", ""} {
			if mustMatch(t, gr, s) {
				t.Errorf("[%s, %s] accepts %q", c.lo, c.hi, s)
			}
		}
	}
	if _, err := integerRange(bound{rat("1.5"), false}, bound{rat("1.9"), false}); err == nil {
		t.Error("no integer between 1.5 and 1.9, but no error")
	}
}

// Decimal ranges are exact: random bounds, every decimal string with up to 2+3 digits, both signs.
func TestDecimalRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var strs []string
	for i := 0; i < 100; i++ {
		for _, f := range []string{"", ".0", ".5", ".25", ".125", ".05", ".999", ".10"} {
			strs = append(strs, fmt.Sprint(i)+f, "-"+fmt.Sprint(i)+f)
		}
	}
	bounds := func() bound {
		if rng.IntN(5) == 0 {
			return bound{}
		}
		n := rng.IntN(4000) - 2000
		return bound{big.NewRat(int64(n), 40), rng.IntN(2) == 0} // steps of 0.025
	}
	for range 40 {
		lo, hi := bounds(), bounds()
		e, err := decimalRange(lo, hi)
		if err != nil {
			if lo.v != nil && hi.v != nil && lo.v.Cmp(hi.v) >= 0 {
				continue
			}
			t.Fatal(err)
		}
		gr := exprGrammar(t, e)
		for _, s := range strs {
			r, _ := new(big.Rat).SetString(s)
			in := (lo.v == nil || r.Cmp(lo.v) > 0 || r.Cmp(lo.v) == 0 && !lo.excl) &&
				(hi.v == nil || r.Cmp(hi.v) < 0 || r.Cmp(hi.v) == 0 && !hi.excl) && s != "-0" && s != "-0.0"
			if got := mustMatch(t, gr, s); got != in {
				t.Fatalf("lo %v hi %v: %s accepted %v", lo, hi, s, got)
			}
		}
	}
}

// A date is a real calendar date: every day of years around the leap rules, checked against time.Parse.
func TestDates(t *testing.T) {
	gr := exprGrammar(t, formats["date"])
	for _, y := range []int{0, 4, 1900, 1996, 2000, 2023, 2024, 2100, 2400, 9999} {
		for mo := 0; mo <= 13; mo++ {
			for d := 0; d <= 32; d++ {
				s := fmt.Sprintf("%04d-%02d-%02d", y, mo, d)
				_, err := time.Parse("2006-01-02", s)
				if got := mustMatch(t, gr, s); got != (err == nil) {
					t.Errorf("%s: accepted %v, time.Parse: %v", s, got, err)
				}
			}
		}
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct {
		format  string
		yes, no []string
	}{
		{"time", []string{"23:59:59Z", "00:00:00.123+05:30", "12:30:00-08:00"}, []string{"24:00:00Z", "12:60:00Z", "12:00:00", "1:00:00Z"}},
		{"date-time", []string{"2024-02-29T12:00:00Z"}, []string{"2023-02-29T12:00:00Z", "2024-02-29 12:00:00Z"}},
		{"uuid", []string{"123e4567-e89b-12d3-a456-426614174000"}, []string{"123e4567e89b12d3a456426614174000", "g23e4567-e89b-12d3-a456-426614174000"}},
		{"email", []string{"a.b+c@example.com", "x@y.io"}, []string{"a..b@example.com", ".a@example.com", "a@b", "a@-b.com"}},
		{"uri", []string{"https://example.com/a/b?x=1&y=2#top", "ftp://files.example.org"}, []string{"example.com", "/relative/path", "1http://x.org"}},
		{"hostname", []string{"example.com", "a-b.c"}, []string{"-a.com", "a_b.com"}},
		{"ipv4", []string{"192.168.0.1", "0.0.0.0", "255.255.255.255"}, []string{"256.1.1.1", "01.2.3.4", "1.2.3"}},
	} {
		gr := exprGrammar(t, formats[c.format])
		for _, s := range c.yes {
			if !mustMatch(t, gr, s) {
				t.Errorf("%s: %q rejected", c.format, s)
			}
		}
		for _, s := range c.no {
			if mustMatch(t, gr, s) {
				t.Errorf("%s: %q accepted", c.format, s)
			}
		}
	}
}

func compile(t *testing.T, schema string) *g.Grammar {
	t.Helper()
	gr, err := Compile([]byte(schema), Options{})
	if err != nil {
		t.Fatalf("%s: %v", schema, err)
	}
	return gr
}

func TestSchemaLanguages(t *testing.T) {
	for _, c := range []struct {
		schema  string
		yes, no []string
	}{
		// Property order is the schema's; optional ones may be left out; additional ones come after, with keys
		// that are not declared names.
		{`{"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"boolean"}}}`,
			[]string{`{}`, `{"b":1}`, `{"a":true}`, `{"b":1,"a":false}`, `{"b":1,"x":null}`, `{"zz":[1,{}]}`},
			[]string{`{"a":true,"b":1}`, `{"b":1,"b":2}`, `{"x":1,"b":1}`, `{"b":1,"a":true,"a":1}`, `{ }`}},
		{`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}`,
			[]string{`{"a":1}`}, []string{`{}`, `{"a":1,"b":2}`}},
		{`{"type":"object","required":["x"]}`, []string{`{"x":1}`, `{"x":"s","y":2}`}, []string{`{}`, `{"y":2}`}},
		{`{"type":"object","minProperties":1,"maxProperties":2,"properties":{"a":{},"b":{},"c":{}},"additionalProperties":false}`,
			[]string{`{"a":1}`, `{"a":1,"c":3}`, `{"b":2,"c":3}`}, []string{`{}`, `{"a":1,"b":2,"c":3}`}},
		{`{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":{"type":"boolean"},"maxItems":3}`,
			[]string{`[]`, `[1]`, `[1,"a"]`, `[1,"a",true]`}, []string{`["a"]`, `[1,"a",true,false]`, `[1,2]`}},
		{`{"type":"array","items":[{"type":"integer"}],"additionalItems":false}`, []string{`[]`, `[3]`}, []string{`[3,4]`}},
		{`{"type":"string","pattern":"^a+$","maxLength":3}`, []string{`"a"`, `"aaa"`}, []string{`"aaaa"`, `""`, `"b"`}},
		{`{"type":"string","minLength":2}`, []string{`"ab"`, `"\n\""`, `"日本"`}, []string{`"a"`, `"\u000a"`, `"\/"`}},
		{`{"type":["integer","null"]}`, []string{`1`, `null`}, []string{`1.5`, `"1"`}},
		{`{"type":"number"}`, []string{`1`, `-1.5`, `2e10`, `0.001`}, []string{`01`, `1.`, `.5`, `+1`}},
		{`{"enum":["a",{"k":[1,null]},2]}`, []string{`"a"`, `{"k":[1,null]}`, `2`}, []string{`"b"`, `{"k":[1]}`}},
		{`{"type":"string","enum":["a",2,"bb"],"maxLength":1}`, []string{`"a"`}, []string{`2`, `"bb"`}},
		{`{"anyOf":[{"type":"integer","maximum":0},{"type":"integer","minimum":10}]}`, []string{`-3`, `10`}, []string{`5`}},
		{`{"type":"object","properties":{"k":{"type":"string"}},"anyOf":[{"required":["k"]},{"maxProperties":0}]}`,
			[]string{`{}`, `{"k":"v"}`, `{"k":"v","z":1}`}, []string{`{"z":1}`}},
		{`{"allOf":[{"type":"integer","minimum":3},{"maximum":5},{"not_a_keyword_check":0}]}`, nil, nil},
		{`{"$ref":"#/$defs/a","$defs":{"a":{"type":"array","items":{"$ref":"#/$defs/a"},"maxItems":2}}}`,
			[]string{`[]`, `[[],[[]]]`}, []string{`[[],[],[]]`, `[1]`}},
		{`{"type":"object","properties":{"n":{"$ref":"#/$defs/pos","maximum":5}},"$defs":{"pos":{"type":"integer","minimum":1}}}`,
			[]string{`{"n":1}`, `{"n":5}`}, []string{`{"n":0}`, `{"n":6}`}},
		{`true`, []string{`1`, `{"a":[true]}`, `"x"`}, []string{`{"a"}`}},
	} {
		gr, err := Compile([]byte(c.schema), Options{})
		if strings.Contains(c.schema, "not_a_keyword_check") {
			if err == nil || !strings.Contains(err.Error(), `keyword "not_a_keyword_check" cannot be enforced`) {
				t.Errorf("unknown keyword inside allOf: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		for _, s := range c.yes {
			if !mustMatch(t, gr, s) {
				t.Errorf("%s: %s rejected\n%s", c.schema, s, gr)
			}
		}
		for _, s := range c.no {
			if mustMatch(t, gr, s) {
				t.Errorf("%s: %s accepted", c.schema, s)
			}
		}
	}
}

func TestWhitespaceOption(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`)
	compact, _ := Compile(schema, Options{})
	spaced, _ := Compile(schema, Options{Whitespace: true})
	s := "{\n  \"a\": [1, 2]\n}"
	if mustMatch(t, compact, s) || !mustMatch(t, spaced, s) || !mustMatch(t, spaced, `{"a":[1,2]}`) {
		t.Error("whitespace: compact must refuse it, Whitespace must allow it")
	}
	if mustMatch(t, spaced, "{"+strings.Repeat(" ", 30)+"}") {
		t.Error("whitespace runs must stay short")
	}
}

func TestSchemaErrors(t *testing.T) {
	for _, c := range []struct{ schema, want string }{
		{`{"not":{"type":"string"}}`, `#/not: keyword "not" cannot be enforced`},
		{`{"type":"object","properties":{"a":{"if":{},"then":{}}}}`, `#/properties/a/if: keyword "if" cannot be enforced`},
		{`{"type":"array","uniqueItems":true}`, "#/uniqueItems: uniqueItems true cannot be enforced"},
		{`{"patternProperties":{"^x":{}}}`, `keyword "patternProperties" cannot be enforced`},
		{`{"propertyNames":{"maxLength":3}}`, `keyword "propertyNames" cannot be enforced`},
		{`{"type":"integer","multipleOf":3}`, `keyword "multipleOf" cannot be enforced`},
		{`{"contains":{"type":"integer"}}`, `keyword "contains" cannot be enforced`},
		{`{"unevaluatedProperties":false}`, `keyword "unevaluatedProperties" cannot be enforced`},
		{`{"dependentRequired":{"a":["b"]}}`, `keyword "dependentRequired" cannot be enforced`},
		{`{"$dynamicRef":"#x"}`, `keyword "$dynamicRef" cannot be enforced`},
		{`{"type":"string","format":"ipv6"}`, `format "ipv6" cannot be enforced`},
		{`{"$ref":"https://example.com/s.json"}`, `only local references (#/...) can be resolved`},
		{`{"$ref":"#/$defs/missing"}`, `no such schema in the document`},
		{`{"type":"thing"}`, `#/type: unknown type "thing"`},
		{`{"minLength":-1}`, `#/minLength: must be a non-negative integer`},
		{`{"type":"number","exclusiveMinimum":true,"minimum":1}`, `draft-4 boolean form is not supported`},
		{`{"oneOf":[{"type":"integer"},{"type":"number"}]}`, `oneOf: branches #/oneOf/0 and #/oneOf/1 may both match`},
		{`{"oneOf":[{"type":"string"},{"type":"string","maxLength":3}]}`, `may both match`},
		{`{"$defs":{"a":{"properties":{"x":{"$ref":"#/$defs/a","minProperties":1}}}},"$ref":"#/$defs/a","maxProperties":3}`,
			`refers back to itself`},
		{`{"type":"string",`, `not valid JSON`},
		{`{"enum":[{"a":1}],"required":["a"]}`, `enum/const objects together with object keywords cannot be checked`},
	} {
		_, err := Compile([]byte(c.schema), Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.schema, err, c.want)
		}
	}
}

func TestUnsatisfiable(t *testing.T) {
	for _, s := range []string{
		`{"type":"integer","minimum":5,"maximum":4}`,
		`{"type":"number","exclusiveMinimum":1,"exclusiveMaximum":1}`,
		`{"type":"string","minLength":5,"maxLength":4}`,
		`{"type":"array","minItems":3,"maxItems":2}`,
		`{"type":"object","required":["a"],"additionalProperties":false}`,
		`{"type":"object","maxProperties":1,"required":["a","b"]}`,
		`{"enum":[1,2],"type":"string"}`,
		`{"allOf":[{"type":"string"},{"type":"integer"}]}`,
		`false`,
		`{"type":"string","pattern":"^a$","minLength":2}`,
	} {
		_, err := Compile([]byte(s), Options{})
		if !errors.Is(err, ErrUnsatisfiable) && !(err != nil && strings.Contains(err.Error(), "matches no string")) {
			t.Errorf("%s: got %v, want an error wrapping ErrUnsatisfiable", s, err)
		}
	}
	// A branch or an optional property with no value is dropped, not an error.
	gr := compile(t, `{"anyOf":[{"type":"integer","minimum":2,"maximum":1},{"type":"boolean"}]}`)
	if !mustMatch(t, gr, "true") {
		t.Error("the satisfiable branch is lost")
	}
	gr = compile(t, `{"type":"object","properties":{"a":false,"b":{"type":"null"}},"additionalProperties":false}`)
	if !mustMatch(t, gr, `{"b":null}`) || mustMatch(t, gr, `{"a":1}`) {
		t.Error("a false property must be left out")
	}
}

// Additional properties never reuse a declared name, even one the output left out (its value would have to
// satisfy that property's schema).
func TestAdditionalKeys(t *testing.T) {
	e := keyNotIn([]string{"ab", "a", "b\"c"})
	gr := exprGrammar(t, g.Seq(g.Lit(`"`), e, g.Lit(`"`)))
	for _, k := range []string{`""`, `"abc"`, `"b"`, `"aa"`, `"b\"d"`, `"x"`, `"ab\n"`} {
		if !mustMatch(t, gr, k) {
			t.Errorf("key %s rejected", k)
		}
	}
	for _, k := range []string{`"a"`, `"ab"`, `"b\"c"`} {
		if mustMatch(t, gr, k) {
			t.Errorf("declared key %s accepted", k)
		}
	}
}

func TestObjectMode(t *testing.T) {
	gr := Object(Options{})
	if !mustMatch(t, gr, `{"a":[1,{"b":null}]}`) || mustMatch(t, gr, `[1]`) || mustMatch(t, gr, `"x"`) {
		t.Error("JSON mode must accept objects only")
	}
}
