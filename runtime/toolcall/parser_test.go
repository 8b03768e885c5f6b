package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The fixtures follow llama.cpp's tests/test-chat.cpp: the same messages (content "Hello, world!\nWhat's up?",
// reasoning "I'm\nthinking", a call of special_function with {"arg1": 1}, and python with {"code":
// "print('hey')"} as the second of two parallel calls) written in each family's syntax.
const (
	hello    = "Hello, world!\nWhat's up?"
	thinking = "I'm\nthinking"
	special  = `{"arg1": 1}`
	python   = `{"code": "print('hey')"}`
)

type fixture struct {
	name   string
	family Family
	input  string
	want   Reply
	opt    func(*Options) // changes to the default options (calls on)
}

func callsOf(pairs ...string) []Call {
	var out []Call
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Call{ID: fmt.Sprintf("call_%d", len(out)), Name: pairs[i], Arguments: pairs[i+1]})
	}
	return out
}

var fixtures = []fixture{
	// Hermes / Qwen
	{"hermes content", Hermes, hello, Reply{Content: hello}, nil},
	{"hermes reasoning", Hermes, "<think>" + thinking + "</think>\n\n" + hello, Reply{Reasoning: thinking, Content: hello}, nil},
	{"hermes call", Hermes, "<tool_call>\n{\"name\": \"special_function\", \"arguments\": " + special + "}\n</tool_call>",
		Reply{Calls: callsOf("special_function", special)}, nil},
	{"hermes content then call", Hermes, "Let me check.\n<tool_call>\n{\"name\": \"special_function\", \"arguments\": " + special + "}\n</tool_call>",
		Reply{Content: "Let me check.\n", Calls: callsOf("special_function", special)}, nil},
	{"hermes parallel", Hermes, "<tool_call>\n{\"name\": \"special_function\", \"arguments\": " + special + "}\n</tool_call>\n" +
		"<tool_call>\n{\"name\": \"python\", \"arguments\": " + python + "}\n</tool_call>",
		Reply{Calls: callsOf("special_function", special, "python", python)}, nil},
	{"hermes reasoning then call", Hermes, "<think>" + thinking + "</think>\n\n<tool_call>\n{\"name\": \"special_function\", \"arguments\": " + special + "}\n</tool_call>",
		Reply{Reasoning: thinking, Calls: callsOf("special_function", special)}, nil},
	{"hermes prompt opened the reasoning", Hermes, thinking + "\n</think>\n\n" + hello, Reply{Reasoning: thinking, Content: hello},
		func(o *Options) { o.InReasoning = true }},
	{"hermes arguments before name", Hermes, "<tool_call>\n{\"arguments\": " + special + ", \"name\": \"special_function\"}\n</tool_call>",
		Reply{Calls: callsOf("special_function", special)}, nil},
	{"hermes arguments as a string", Hermes, `<tool_call>{"name": "special_function", "arguments": "{\"arg1\": 1}"}</tool_call>`,
		Reply{Calls: callsOf("special_function", special)}, nil},
	{"hermes function tag", Hermes, "<function=special_function>" + special + "</function>",
		Reply{Calls: callsOf("special_function", special)}, nil},
	{"hermes calls off", Hermes, "<tool_call>x</tool_call>", Reply{Content: "<tool_call>x</tool_call>"},
		func(o *Options) { o.Calls = false }},
	{"hermes near-trigger text", Hermes, "a <tool_ b <tool_callx", Reply{Content: "a <tool_ b <tool_callx"}, nil},
	{"hermes unicode", Hermes, "<tool_call>{\"name\": \"special_function\", \"arguments\": {\"arg1\": \"héllo ✓ \\u00e9\\ud83d\\ude00\"}}</tool_call>",
		Reply{Calls: callsOf("special_function", `{"arg1": "héllo ✓ \u00e9\ud83d\ude00"}`)}, nil},

	// Llama 3.x
	{"llama3 content", Llama3, hello, Reply{Content: hello}, nil},
	{"llama3 call", Llama3, `{"name": "special_function", "parameters": ` + special + `}`,
		Reply{Calls: callsOf("special_function", special)}, nil},
	{"llama3 typed call", Llama3, `{"type": "function", "name": "special_function", "parameters": ` + special + `}`,
		Reply{Calls: callsOf("special_function", special)}, nil},
	{"llama3 parallel", Llama3, `{"name": "special_function", "parameters": ` + special + `}; {"name": "python", "parameters": ` + python + `}`,
		Reply{Calls: callsOf("special_function", special, "python", python)}, nil},
	{"llama3 json content", Llama3, `{"answer": 42}`, Reply{Content: `{"answer": 42}`}, nil},
	{"llama3 python tag", Llama3, `<|python_tag|>python.call(code="print('hey')")`,
		Reply{Calls: callsOf("python", `{"code":"print('hey')"}`)}, nil},
	{"llama3 python tag json", Llama3, `<|python_tag|>{"name": "python", "parameters": ` + python + `}`,
		Reply{Calls: callsOf("python", python)}, nil},

	// Mistral
	{"mistral content", Mistral, hello, Reply{Content: hello}, nil},
	{"mistral call", Mistral, `[TOOL_CALLS][{"name": "special_function", "arguments": ` + special + `, "id": "123456789"}]`,
		Reply{Calls: callsOf("special_function", special)}, nil},
	{"mistral parallel", Mistral, `[TOOL_CALLS][{"name": "special_function", "arguments": ` + special + `, "id": "123456789"}, {"name": "python", "arguments": ` + python + `, "id": "987654321"}]`,
		Reply{Calls: callsOf("special_function", special, "python", python)}, nil},
	{"magistral reasoning", Mistral, "[THINK]" + thinking + "[/THINK]" + hello, Reply{Reasoning: thinking, Content: hello}, nil},
	{"mistral-v11 call", MistralV11, `[TOOL_CALLS]special_function[ARGS]` + special,
		Reply{Calls: callsOf("special_function", special)}, nil},
	{"mistral-v11 parallel", MistralV11, `[TOOL_CALLS]special_function[ARGS]` + special + `[TOOL_CALLS]python[CALL_ID]abcdef123[ARGS]` + python,
		Reply{Calls: callsOf("special_function", special, "python", python)}, nil},
	{"mistral-v11 reasoning then call", MistralV11, "[THINK]" + thinking + "[/THINK][TOOL_CALLS]special_function[ARGS]" + special,
		Reply{Reasoning: thinking, Calls: callsOf("special_function", special)}, nil},

	// Phi-4-mini
	{"phi4 functools", Phi4, `functools[{"name": "special_function", "arguments": ` + special + `}, {"name": "python", "arguments": ` + python + `}]`,
		Reply{Calls: callsOf("special_function", special, "python", python)}, nil},
	{"phi4 tag", Phi4, `<|tool_call|>{"name": "special_function", "arguments": ` + special + `}<|/tool_call|>`,
		Reply{Calls: callsOf("special_function", special)}, nil},

	// Gemma 4
	{"gemma4 call", Gemma4, "<|tool_call>call:special_function{arg1:1}<tool_call|>",
		Reply{Calls: callsOf("special_function", `{"arg1":1}`)}, nil},
	{"gemma4 parallel", Gemma4, "<|tool_call>call:special_function{arg1:1}<tool_call|><|tool_call>call:python{code:<|\"|>print('hey')<|\"|>}<tool_call|>",
		Reply{Calls: callsOf("special_function", `{"arg1":1}`, "python", `{"code":"print('hey')"}`)}, nil},
	{"gemma4 nested", Gemma4, "<|tool_call>call:f{a:{b:[1, <|\"|>x\"y\n<|\"|>,true]},<|\"|>c d<|\"|>:null}<tool_call|>",
		Reply{Calls: callsOf("f", `{"a":{"b":[1,"x\"y\n",true]},"c d":null}`)}, nil},
	{"gemma4 reasoning", Gemma4, "<|channel>thought\n" + thinking + "<channel|>" + hello, Reply{Reasoning: thinking, Content: hello}, nil},

	// gpt-oss (Harmony)
	{"harmony content", Harmony, "<|channel|>analysis<|message|>" + thinking + "<|end|><|start|>assistant<|channel|>final<|message|>" + hello,
		Reply{Reasoning: thinking, Content: hello}, nil},
	{"harmony call in channel", Harmony, "<|channel|>analysis<|message|>" + thinking + "<|end|><|start|>assistant<|channel|>commentary to=functions.special_function <|constrain|>json<|message|>" + special + "<|call|>",
		Reply{Reasoning: thinking, Calls: callsOf("special_function", special)}, nil},
	{"harmony call in role", Harmony, "<|start|>assistant to=functions.special_function<|channel|>commentary json<|message|>" + special,
		Reply{Calls: callsOf("special_function", special)}, nil},
	{"harmony parallel", Harmony, "<|channel|>commentary to=functions.special_function <|constrain|>json<|message|>" + special +
		"<|call|><|start|>assistant<|channel|>commentary to=functions.python <|constrain|>json<|message|>" + python + "<|call|>",
		Reply{Calls: callsOf("special_function", special, "python", python)}, nil},
	{"harmony preamble", Harmony, "<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant<|channel|>commentary to=functions.special_function<|message|>" + special,
		Reply{Content: "Checking.", Calls: callsOf("special_function", special)}, nil},

	// DeepSeek R1
	{"deepseek forced reasoning", DeepSeekR1, thinking + "</think>" + hello, Reply{Reasoning: thinking, Content: hello},
		func(o *Options) { o.InReasoning = true }},
	{"deepseek parallel", DeepSeekR1, "<think>" + thinking + "</think>" + dsCallsBegin + dsCallBegin + "function" + dsSep + "special_function\n```json\n" + special +
		"\n```" + dsCallEnd + dsCallBegin + "function" + dsSep + "python\n```json\n" + python + "\n```" + dsCallEnd + dsCallsEnd,
		Reply{Reasoning: thinking, Calls: callsOf("special_function", special, "python", python)}, nil},

	// Thinking only, plain
	{"thinking", Thinking, "<think>\n" + thinking + "\n</think>\n" + hello, Reply{Reasoning: thinking, Content: hello}, nil},
	{"thinking late tag is content", Thinking, hello + "<think>x</think>", Reply{Content: hello + "<think>x</think>"}, nil},
	{"plain", Plain, "  " + hello, Reply{Content: hello}, nil},
}

func newTestParser(f fixture) *Parser {
	o := Options{Family: f.family, Calls: true, NewID: func(n int) string { return fmt.Sprintf("call_%d", n) }}
	if f.opt != nil {
		f.opt(&o)
	}
	return NewParser(o)
}

// run feeds the chunks and checks the deltas against the reply they build.
func run(t *testing.T, f fixture, chunks []string) Reply {
	t.Helper()
	p := newTestParser(f)
	var deltas []Delta
	for _, c := range chunks {
		deltas = append(deltas, p.Feed(c)...)
	}
	deltas = append(deltas, p.Finish()...)
	r, err := p.Result()
	if err != nil {
		t.Fatalf("chunks %q: %v", chunks, err)
	}
	if got := replay(t, deltas); !reflect.DeepEqual(got, r) {
		t.Fatalf("chunks %q: deltas build %+v, the result is %+v", chunks, got, r)
	}
	return r
}

// replay builds a reply from deltas, checking that each call starts before its arguments.
func replay(t *testing.T, deltas []Delta) Reply {
	t.Helper()
	var r Reply
	for _, d := range deltas {
		switch d.Kind {
		case Content:
			r.Content += d.Text
		case Reasoning:
			r.Reasoning += d.Text
		case CallStart:
			if d.Index != len(r.Calls) || d.Name == "" || d.ID == "" {
				t.Fatalf("call start %+v after %d calls", d, len(r.Calls))
			}
			r.Calls = append(r.Calls, Call{ID: d.ID, Name: d.Name})
		case CallArgs:
			if d.Index >= len(r.Calls) || d.Text == "" {
				t.Fatalf("arguments %+v before their call", d)
			}
			r.Calls[d.Index].Arguments += d.Text
		}
	}
	return r
}

func TestFixtures(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			if got := run(t, f, []string{f.input}); !reflect.DeepEqual(got, f.want) {
				t.Fatalf("whole:\n got %+v\nwant %+v", got, f.want)
			}
			// cut in two at every byte
			for k := 1; k < len(f.input); k++ {
				if got := run(t, f, []string{f.input[:k], f.input[k:]}); !reflect.DeepEqual(got, f.want) {
					t.Fatalf("cut at %d:\n got %+v\nwant %+v", k, got, f.want)
				}
			}
			// one byte at a time, and random pieces
			if got := run(t, f, splitBytes(f.input)); !reflect.DeepEqual(got, f.want) {
				t.Fatalf("byte by byte:\n got %+v\nwant %+v", got, f.want)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			for range 20 {
				if got := run(t, f, splitRandom(f.input, rng)); !reflect.DeepEqual(got, f.want) {
					t.Fatalf("random pieces:\n got %+v\nwant %+v", got, f.want)
				}
			}
		})
	}
}

func splitBytes(s string) []string {
	out := make([]string, len(s))
	for i := range len(s) {
		out[i] = s[i : i+1]
	}
	return out
}

func splitRandom(s string, rng *rand.Rand) []string {
	var out []string
	for len(s) > 0 {
		n := min(len(s), 1+rng.IntN(7))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// TestArgumentsStream: the arguments of a call arrive in several fragments as the text does, and each call's
// fragments concatenate to its arguments.
func TestArgumentsStream(t *testing.T) {
	f := fixtures[4] // hermes parallel
	p := newTestParser(f)
	frags := map[int]int{}
	for _, c := range splitBytes(f.input) {
		for _, d := range p.Feed(c) {
			if d.Kind == CallArgs {
				frags[d.Index]++
			}
		}
	}
	if frags[0] < len(special)-1 || frags[1] < len(python)-1 {
		t.Errorf("fragments per call %v: the arguments were not streamed", frags)
	}
}

func TestIncomplete(t *testing.T) {
	for _, tc := range []struct {
		family Family
		input  string
		calls  int // calls announced in the deltas
	}{
		{Hermes, `<tool_call>{"name": "special_function", "arguments": {"arg1": `, 1},
		{Hermes, `<tool_call>{"na`, 0},
		{Mistral, `[TOOL_CALLS][{"name": "special_function", "arguments": {"arg1": 1}}, {"name": "py`, 1},
		{Hermes, "<think>still thinking", 0},
		{Harmony, "<|channel|>commentary to=functions.f<|message|>{\"a\":", 1},
	} {
		p := NewParser(Options{Family: tc.family, Calls: true})
		deltas := append(p.Feed(tc.input), p.Finish()...)
		r, err := p.Result()
		if !errors.Is(err, ErrIncomplete) {
			t.Errorf("%q: error %v, want ErrIncomplete", tc.input, err)
		}
		starts := 0
		for _, d := range deltas {
			if d.Kind == CallStart {
				starts++
			}
		}
		if starts != tc.calls || len(r.Calls) != 0 {
			t.Errorf("%q: %d calls announced, %d in the reply; want %d and 0", tc.input, starts, len(r.Calls), tc.calls)
		}
	}
}

func TestMalformed(t *testing.T) {
	p := NewParser(Options{Family: Hermes, Calls: true})
	in := `<tool_call>{"name": "f", "arguments": {"a": 1}} oops</tool_call> tail`
	p.Feed(in)
	p.Finish()
	r, err := p.Result()
	if err == nil || errors.Is(err, ErrIncomplete) {
		t.Fatalf("error %v, want a syntax error", err)
	}
	if len(r.Calls) != 1 || !strings.Contains(r.Content, "oops") {
		t.Errorf("reply %+v", r)
	}
	p = NewParser(Options{Family: Hermes, Calls: true})
	p.Feed(`<tool_call>{"name": "f", "arguments": [1]}</tool_call>`)
	p.Finish()
	if _, err := p.Result(); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("array arguments: %v", err)
	}
}

func TestGeneratedIDs(t *testing.T) {
	for _, tc := range []struct {
		f    Family
		in   string
		want int
	}{{Mistral, `[TOOL_CALLS][{"name": "f", "arguments": {}}]`, 9}, {Hermes, `<tool_call>{"name": "f", "arguments": {}}</tool_call>`, 29}} {
		p := NewParser(Options{Family: tc.f, Calls: true})
		p.Feed(tc.in)
		p.Finish()
		r, err := p.Result()
		if err != nil || len(r.Calls) != 1 || len(r.Calls[0].ID) != tc.want {
			t.Errorf("%v: %+v %v", tc.f, r, err)
		}
	}
}

func TestFixturesAreJSON(t *testing.T) {
	for _, f := range fixtures {
		for _, c := range f.want.Calls {
			if !json.Valid([]byte(c.Arguments)) {
				t.Errorf("%s: %s", f.name, c.Arguments)
			}
		}
	}
}

func TestInAnswer(t *testing.T) {
	for _, tc := range []struct {
		f      Family
		opt    Options
		pieces []string
		want   []bool // after each piece
	}{
		{Hermes, Options{}, []string{"", "<thi", "nk>x", "</think>", "\n", "ok"}, []bool{false, false, false, true, true, true}},
		{Hermes, Options{}, []string{"Sure"}, []bool{true}},
		{Hermes, Options{InReasoning: true}, []string{"x", "</think>"}, []bool{false, true}},
		{Plain, Options{}, []string{""}, []bool{true}},
		{Harmony, Options{}, []string{"<|channel|>analysis<|message|>x", "<|end|>", "<|start|>assistant<|channel|>final<|message|>y"},
			[]bool{false, true, true}},
	} {
		tc.opt.Family = tc.f
		p := NewParser(tc.opt)
		for i, piece := range tc.pieces {
			p.Feed(piece)
			if got := p.InAnswer(); got != tc.want[i] {
				t.Errorf("%v %q after %q: %v, want %v", tc.f, tc.pieces, piece, got, tc.want[i])
			}
		}
	}
}

// TestChunkingInvariance: on random texts made of the families' syntax pieces, feeding the text whole, in two
// pieces or byte by byte gives the same reply and the same error, and the deltas build the reply.
func TestChunkingInvariance(t *testing.T) {
	pieces := []string{"<think>", "</think>", "<tool_call>", "</tool_call>", "{", "}", "[", "]", `"name"`, `"arguments"`,
		`"parameters"`, ":", ",", `"f"`, "1", `"x\"y"`, " ", "\n", "ab", "é", "<", "|", "[TOOL_CALLS]", "[ARGS]",
		"functools", "<|tool_call>", "call:", `<|"|>`, "<tool_call|>", "<|channel|>", "analysis", "<|message|>",
		"<|end|>", "<|start|>assistant", " to=functions.", "<|python_tag|>", ".call(", ")", "=", dsCallsBegin,
		"function" + dsSep, "\n```json\n", "```", dsCallEnd}
	rng := rand.New(rand.NewPCG(3, 4))
	for f := range numFamilies {
		for range 300 {
			var sb strings.Builder
			for range 1 + rng.IntN(25) {
				sb.WriteString(pieces[rng.IntN(len(pieces))])
			}
			in := sb.String()
			var results []string
			for _, chunks := range [][]string{{in}, splitBytes(in), splitRandom(in, rng)} {
				p := NewParser(Options{Family: f, Calls: true, NewID: func(n int) string { return fmt.Sprint(n) }})
				var deltas []Delta
				for _, c := range chunks {
					deltas = append(deltas, p.Feed(c)...)
				}
				deltas = append(deltas, p.Finish()...)
				r, err := p.Result()
				built := replay(t, deltas)
				if err == nil && !reflect.DeepEqual(built, r) {
					t.Fatalf("%v %q: deltas build %+v, result %+v", f, in, built, r)
				}
				results = append(results, fmt.Sprintf("%+v %v", r, err != nil))
			}
			if results[0] != results[1] || results[0] != results[2] {
				t.Fatalf("%v %q:\nwhole  %s\nbytes  %s\npieces %s", f, in, results[0], results[1], results[2])
			}
		}
	}
}
