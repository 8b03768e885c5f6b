package toolcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const testTools = `[
 {"type": "function", "function": {"name": "special_function", "description": "I'm special",
  "parameters": {"type": "object", "properties": {"arg1": {"type": "integer", "description": "The arg."}}, "required": ["arg1"]}}},
 {"type": "function", "function": {"name": "python", "description": "Runs code",
  "parameters": {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}}}
]`

// testConverter stands in for the grammar package's converter: objects whose properties (all required, in order)
// are integers or strings, written as {"k": v, "k2": v2}.
func testConverter(schema json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(schema))
	var props []string
	depth := 0
	inProps := false
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '{' || tok == '[' {
				depth++
			} else {
				depth--
				if depth == 1 {
					inProps = false
				}
			}
		case string:
			if depth == 1 && tok == "properties" {
				inProps = true
				continue
			}
			if inProps && depth == 2 {
				var p struct{ Type string }
				if err := dec.Decode(&p); err != nil {
					return "", err
				}
				switch p.Type {
				case "integer":
					props = append(props, gbnfString(`"`+tok+`": `)+" integer")
				case "string":
					props = append(props, gbnfString(`"`+tok+`": `)+" string")
				default:
					return "", fmt.Errorf("type %q is not supported", p.Type)
				}
			}
		}
	}
	return "root ::= \"{\" " + strings.Join(props, ` ", " `) + " \"}\"\n" +
		"integer ::= \"-\"? [0-9]+ # a comment with \"quotes\" and [brackets]\n" +
		"string ::= \"\\\"\" ([^\"\\\\] | \"\\\\\" [\"\\\\/bfnrt])* \"\\\"\"\n", nil
}

// canonical are the calls of special_function({"arg1": 1}) and python({"code": "print('hey')"}) as each
// family's grammar writes them, and how two of them are joined.
var canonical = map[Family]struct{ one, two, sep, pre, post string }{
	Hermes:     {"<tool_call>\n{\"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}\n</tool_call>", "<tool_call>\n{\"name\": \"python\", \"arguments\": {\"code\": \"print('hey')\"}}\n</tool_call>", "\n", "", ""},
	Llama3:     {`{"name": "special_function", "parameters": {"arg1": 1}}`, `{"name": "python", "parameters": {"code": "print('hey')"}}`, "; ", "", ""},
	Mistral:    {`{"name": "special_function", "arguments": {"arg1": 1}, "id": "abcdef123"}`, `{"name": "python", "arguments": {"code": "print('hey')"}, "id": "ABCDEF999"}`, ", ", "[TOOL_CALLS][", "]"},
	MistralV11: {`[TOOL_CALLS]special_function[ARGS]{"arg1": 1}`, `[TOOL_CALLS]python[ARGS]{"code": "print('hey')"}`, "", "", ""},
	Phi4:       {`{"name": "special_function", "arguments": {"arg1": 1}}`, `{"name": "python", "arguments": {"code": "print('hey')"}}`, ", ", "functools[", "]"},
	Gemma4:     {`<|tool_call>call:special_function{arg1:1}<tool_call|>`, `<|tool_call>call:python{code:<|"|>print('hey')<|"|>}<tool_call|>`, "", "", ""},
	DeepSeekR1: {dsCallBegin + "function" + dsSep + "special_function\n```json\n{\"arg1\": 1}\n```" + dsCallEnd, dsCallBegin + "function" + dsSep + "python\n```json\n{\"code\": \"print('hey')\"}\n```" + dsCallEnd, "", dsCallsBegin, dsCallsEnd},
}

func tools(t testing.TB) []Tool {
	t.Helper()
	ts, err := ParseTools(json.RawMessage(testTools))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestConstraintLanguage: each family's grammar accepts its calls (one, two in parallel), the parser reads what
// it accepts back into the same calls, and it rejects wrong names, wrong argument types and calls beyond one
// when parallel calls are off.
func TestConstraintLanguage(t *testing.T) {
	ts := tools(t)
	for f, c := range canonical {
		t.Run(f.String(), func(t *testing.T) {
			con, err := BuildConstraint(f, ts, ConstraintOptions{Choice: Choice{Mode: Auto}, Parallel: true, Convert: testConverter})
			if err != nil {
				t.Fatal(err)
			}
			g := parseGBNF(t, con.Grammar)
			one := c.pre + c.one + c.post
			two := c.pre + c.one + c.sep + c.two + c.post
			for _, ok := range []string{one, two} {
				if !g.accepts(t, ok) {
					t.Fatalf("grammar rejects %q\n%s", ok, con.Grammar)
				}
				p := NewParser(Options{Family: f, Calls: true, NewID: func(n int) string { return fmt.Sprint(n) }})
				p.Feed(ok)
				p.Finish()
				r, err := p.Result()
				if err != nil || len(r.Calls) == 0 || r.Calls[0].Name != "special_function" {
					t.Errorf("the parser reads %q as %+v, %v", ok, r, err)
				}
			}
			bad := []string{
				strings.Replace(one, "special_function", "special_func", 1),
				strings.Replace(one, "1", `"1"`, 1),
				one + "x",
			}
			if f != Gemma4 {
				bad = append(bad, strings.Replace(one, "1", "1.5", 1))
			}
			for _, b := range bad {
				if g.accepts(t, b) {
					t.Errorf("grammar accepts %q", b)
				}
			}
			for _, tr := range con.Triggers {
				if !strings.HasPrefix(one, tr.Text) && !strings.HasPrefix(strings.TrimPrefix(one, c.pre), tr.Text) && f != Llama3 {
					t.Logf("trigger %q does not start %q", tr.Text, one)
				}
			}
			single, err := BuildConstraint(f, ts, ConstraintOptions{Choice: Choice{Mode: Auto}, Parallel: false, Convert: testConverter})
			if err != nil {
				t.Fatal(err)
			}
			if sg := parseGBNF(t, single.Grammar); !sg.accepts(t, one) || sg.accepts(t, two) {
				t.Errorf("parallel off: one %v, two %v", sg.accepts(t, one), sg.accepts(t, two))
			}
		})
	}
}

func TestConstraintHarmony(t *testing.T) {
	con, err := BuildConstraint(Harmony, tools(t), ConstraintOptions{Choice: Choice{Mode: Required}, Parallel: true, Convert: testConverter})
	if err != nil {
		t.Fatal(err)
	}
	g := parseGBNF(t, con.Grammar)
	for _, ok := range []string{
		"<|channel|>commentary to=functions.special_function <|constrain|>json<|message|>{\"arg1\": 1}",
		"<|start|>assistant to=functions.python<|channel|>commentary json<|message|>{\"code\": \"x\"}",
		" to=functions.special_function<|channel|>commentary json<|message|>{\"arg1\": 1}",
		"<|start|>assistant<|channel|>analysis to=functions.special_function <|constrain|>json<|message|>{\"arg1\": 1}",
	} {
		if !g.accepts(t, ok) {
			t.Errorf("grammar rejects %q\n%s", ok, con.Grammar)
		}
	}
	if g.accepts(t, "<|channel|>final<|message|>hi") {
		t.Error("a required call accepts a final message")
	}
}

func TestConstraintModes(t *testing.T) {
	ts := tools(t)
	if c, err := BuildConstraint(Hermes, ts, ConstraintOptions{Choice: Choice{Mode: None}, Parallel: true, Convert: testConverter}); c != nil || err != nil {
		t.Errorf("tool_choice none: %v %v", c, err)
	}
	req, err := BuildConstraint(Hermes, ts, ConstraintOptions{Choice: Choice{Mode: Required}, Parallel: true, Convert: testConverter})
	if err != nil || req.Lazy || len(req.Triggers) != 0 {
		t.Fatalf("required: %+v %v", req, err)
	}
	g := parseGBNF(t, req.Grammar)
	call := canonical[Hermes].one
	if !g.accepts(t, "\n\n"+call) || g.accepts(t, "Sure! "+call) {
		t.Errorf("required: after a line break %v, after text %v", g.accepts(t, "\n\n"+call), g.accepts(t, "Sure! "+call))
	}
	named, err := BuildConstraint(Hermes, ts, ConstraintOptions{Choice: Choice{Mode: Function, Name: "python"}, Parallel: true, Convert: testConverter})
	if err != nil {
		t.Fatal(err)
	}
	ng := parseGBNF(t, named.Grammar)
	if ng.accepts(t, call) || !ng.accepts(t, canonical[Hermes].two) {
		t.Errorf("named python: special_function %v, python %v", ng.accepts(t, call), ng.accepts(t, canonical[Hermes].two))
	}
	auto, _ := BuildConstraint(Hermes, ts, ConstraintOptions{Choice: Choice{Mode: Auto}, Parallel: true, Convert: testConverter})
	if !auto.Lazy || !reflect.DeepEqual(auto.Triggers, []Trigger{{Text: "<tool_call>"}}) {
		t.Errorf("auto: %+v", auto)
	}
	if _, err := BuildConstraint(Plain, ts, ConstraintOptions{Choice: Choice{Mode: Auto}, Parallel: true, Convert: testConverter}); !errors.Is(err, ErrNoToolSyntax) {
		t.Errorf("plain family: %v", err)
	}
	bad := []Tool{{Name: "f", Parameters: json.RawMessage(`{"type": "object", "properties": {"x": {"type": "array"}}}`)}}
	if _, err := BuildConstraint(Hermes, bad, ConstraintOptions{Choice: Choice{Mode: Auto}, Parallel: true, Convert: testConverter}); err == nil ||
		!strings.Contains(err.Error(), `tool f: parameters: type "array" is not supported`) {
		t.Errorf("a converter error: %v", err)
	}
	if _, err := BuildConstraint(Hermes, ts, ConstraintOptions{Choice: Choice{Mode: Auto}, Parallel: true, Convert: nil}); err == nil {
		t.Error("no converter was accepted")
	}
}

func TestGemmaSchema(t *testing.T) {
	schema := `{"type": "object", "properties": {"b": {"type": "string", "enum": ["x", "y"]}, "a": {"type": "integer"},
		"c": {"type": "array", "items": {"type": "boolean"}}, "d": {"type": ["number", "null"]}}, "required": ["b"]}`
	ts := []Tool{{Name: "f", Parameters: json.RawMessage(schema)}}
	con, err := BuildConstraint(Gemma4, ts, ConstraintOptions{Choice: Choice{Mode: Required}, Parallel: false, Convert: nil})
	if err != nil {
		t.Fatal(err)
	}
	g := parseGBNF(t, con.Grammar)
	wrap := func(args string) string { return "<|tool_call>call:f" + args + "<tool_call|>" }
	for _, ok := range []string{`{b:<|"|>x<|"|>}`, `{a:-3,b:<|"|>y<|"|>,c:[true,false],d:null}`, `{b:<|"|>x<|"|>,d:2.5e3}`} {
		if !g.accepts(t, wrap(ok)) {
			t.Errorf("rejects %s\n%s", ok, con.Grammar)
		}
	}
	for _, bad := range []string{`{}`, `{b:<|"|>z<|"|>}`, `{b:<|"|>x<|"|>,a:1}`, `{a:1.5,b:<|"|>x<|"|>}`, `{b:"x"}`} {
		if g.accepts(t, wrap(bad)) {
			t.Errorf("accepts %s", bad)
		}
	}
	p := NewParser(Options{Family: Gemma4, Calls: true})
	p.Feed(wrap(`{a:-3,b:<|"|>y<|"|>,c:[true,false],d:null}`))
	p.Finish()
	if r, err := p.Result(); err != nil || r.Calls[0].Arguments != `{"a":-3,"b":"y","c":[true,false],"d":null}` {
		t.Errorf("parsed %+v %v", r, err)
	}
	for _, kw := range []string{`"minimum": 1`, `"$ref": "#/x"`, `"anyOf": []`} {
		s := `{"type": "object", "properties": {"a": {"type": "integer", ` + kw + `}}}`
		_, err := BuildConstraint(Gemma4, []Tool{{Name: "f", Parameters: json.RawMessage(s)}}, ConstraintOptions{Choice: Choice{Mode: Auto}, Parallel: true})
		if name := strings.SplitN(kw, `"`, 3)[1]; err == nil || !strings.Contains(err.Error(), `"`+name+`"`) {
			t.Errorf("%s: %v", kw, err)
		}
	}
}

func TestPrefixRules(t *testing.T) {
	src := "root ::= item (\",\" item){0,3} # items [x]\nitem ::= [a-z\\]] \"q\\\"x\" | root-2\n"
	got, err := prefixRules(src, "t1-")
	want := "t1-root ::= t1-item (\",\" t1-item){0,3} \nt1-item ::= [a-z\\]] \"q\\\"x\" | t1-root-2\n"
	if err != nil || got != want {
		t.Errorf("got  %q %v\nwant %q", got, err, want)
	}
}

func TestParseToolsAndChoice(t *testing.T) {
	ts := tools(t)
	if len(ts) != 2 || ts[0].Name != "special_function" || !strings.Contains(string(ts[0].Raw), `"description": "I'm special"`) {
		t.Fatalf("%+v", ts)
	}
	for _, bad := range []string{`[{"type": "code_interpreter"}]`, `[{"type": "function", "function": {"name": "a b"}}]`,
		`[{"type": "function", "function": {"name": "f"}}, {"type": "function", "function": {"name": "f"}}]`,
		`[{"type": "function", "function": {"name": "f", "parameters": [1]}}]`, `{}`} {
		if _, err := ParseTools(json.RawMessage(bad)); err == nil {
			t.Errorf("ParseTools(%s) accepted", bad)
		}
	}
	noParams, _ := ParseTools(json.RawMessage(`[{"type": "function", "function": {"name": "f"}}]`))
	if string(noParams[0].Parameters) != `{"type": "object"}` {
		t.Errorf("no parameters: %s", noParams[0].Parameters)
	}
	for raw, want := range map[string]Choice{``: {}, `"auto"`: {}, `"none"`: {Mode: None}, `"required"`: {Mode: Required},
		`{"type": "function", "function": {"name": "python"}}`: {Mode: Function, Name: "python"}} {
		if got, err := ParseChoice(json.RawMessage(raw), ts); err != nil || got != want {
			t.Errorf("ParseChoice(%s) = %+v, %v", raw, got, err)
		}
	}
	for _, bad := range []string{`"any"`, `{"type": "function", "function": {"name": "nope"}}`, `3`} {
		if _, err := ParseChoice(json.RawMessage(bad), ts); err == nil {
			t.Errorf("ParseChoice(%s) accepted", bad)
		}
	}
}

// TestConstraintReasoning: a forced constraint lets the reasoning come first, unconstrained up to its close tag.
func TestConstraintReasoning(t *testing.T) {
	ts := tools(t)
	call := canonical[Hermes].one
	build := func(f Family, th ThinkMode) *ggrammar {
		c, err := BuildConstraint(f, ts, ConstraintOptions{Choice: Choice{Mode: Required}, Parallel: true,
			Convert: testConverter, Thinking: th})
		if err != nil {
			t.Fatal(err)
		}
		return parseGBNF(t, c.Grammar)
	}
	may, in, none := build(Hermes, MayThink), build(Hermes, InThinking), build(Hermes, NoThinking)
	for _, tc := range []struct {
		g    *ggrammar
		text string
		want bool
	}{
		{may, "<think>\nI'm thinking about <b> and </thin tags\n</think>\n\n" + call, true},
		{may, call, true},
		{may, "<think>x</think>Sure " + call, false},
		{may, "<think>x</think></think>" + call, false},
		{in, "thinking</think>\n\n" + call, true},
		{in, call, false},
		{none, "<think>x</think>" + call, false},
	} {
		if got := tc.g.accepts(t, tc.text); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.text, got, tc.want)
		}
	}
	h := build(Harmony, MayThink)
	text := "<|channel|>analysis<|message|>Let me <think>.<|end|><|start|>assistant<|channel|>commentary to=functions.special_function <|constrain|>json<|message|>{\"arg1\": 1}"
	if !h.accepts(t, text) {
		t.Errorf("harmony with analysis: rejects %q", text)
	}
}

// TestNotContaining: the text rule accepts no text holding the tag (all texts of up to 6 characters over the
// tag's letters and one other), and accepts ordinary ones.
func TestNotContaining(t *testing.T) {
	tag := "</a>"
	body, err := notContaining(tag)
	if err != nil {
		t.Fatal(err)
	}
	g := parseGBNF(t, "root ::= text*\ntext ::= "+body+"\n")
	alphabet := []string{"<", "/", "a", ">", "x"}
	var walk func(s string)
	walk = func(s string) {
		// The rule may refuse a text without the tag (a '<' that a tag prefix cannot continue), never accept one
		// with it.
		if g.accepts(t, s) && strings.Contains(s, tag) {
			t.Errorf("%q holds the tag but is accepted", s)
		}
		if len(s) < 6 {
			for _, c := range alphabet {
				walk(s + c)
			}
		}
	}
	walk("")
	for _, ok := range []string{"plain text", "a </b> tag", "</ a>", "<x"} {
		if !g.accepts(t, ok) {
			t.Errorf("%q is refused", ok)
		}
	}
}
