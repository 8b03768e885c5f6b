package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
)

// The tools of the tests: a bounded weather lookup and an addition. On the random-weight Qwen3 chat model
// (Hermes <tool_call> syntax) only the constraint can make the output a call with valid arguments.
const (
	weatherParams = `{"type":"object","properties":{"city":{"type":"string","maxLength":12},"days":{"type":"integer","minimum":1,"maximum":7}},"required":["city","days"],"additionalProperties":false}`
	addParams     = `{"type":"object","properties":{"a":{"type":"integer","minimum":-1000,"maximum":1000},"b":{"type":"integer","minimum":-1000,"maximum":1000}},"required":["a","b"],"additionalProperties":false}`
	// A nested answer: a calendar date, an enum array, a pattern behind a $ref.
	personSchema = `{"type":"object","properties":{"name":{"type":"string","maxLength":16},"born":{"type":"string","format":"date"},"tags":{"type":"array","items":{"enum":["a","b","c"]},"minItems":1,"maxItems":3},"home":{"$ref":"#/$defs/addr"}},"required":["name","born","tags","home"],"additionalProperties":false,"$defs":{"addr":{"type":"object","properties":{"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["zip"],"additionalProperties":false}}}`
)

var testTools = []struct{ name, desc, params string }{
	{"get_weather", "the weather in a city", weatherParams},
	{"add", "the sum of two integers", addParams},
}

func toolParams(name string) string {
	for _, t := range testTools {
		if t.name == name {
			return t.params
		}
	}
	return ""
}

// toolsJSON is testTools in OpenAI's shape, keys in the order the server writes converted tools.
func toolsJSON() string {
	var items []string
	for _, t := range testTools {
		items = append(items, fmt.Sprintf(`{"type":"function","function":{"name":%q,"description":%q,"parameters":%s}}`, t.name, t.desc, t.params))
	}
	return "[" + strings.Join(items, ",") + "]"
}

// checkJSON parses s as JSON and validates it against schema with an independent validator (formats asserted).
func checkJSON(t testing.TB, what, schema, s string) {
	t.Helper()
	doc, err := santhosh.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := santhosh.NewCompiler()
	c.DefaultDraft(santhosh.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sc, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := santhosh.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		t.Errorf("%s: %q is not JSON: %v", what, s, err)
		return
	}
	if err := sc.Validate(inst); err != nil {
		t.Errorf("%s: %s breaks its schema: %v", what, s, err)
	}
}

// checkCall checks a call's name is a test tool's and its arguments are valid for it.
func checkCall(t testing.TB, what, name, args string) {
	t.Helper()
	params := toolParams(name)
	if params == "" {
		t.Errorf("%s: called %q, not a tool", what, name)
		return
	}
	checkJSON(t, what+" "+name, params, args)
}

func jsonMap(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func oaiTools(t testing.TB) []openai.ChatCompletionToolUnionParam {
	var out []openai.ChatCompletionToolUnionParam
	for _, tl := range testTools {
		out = append(out, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: tl.name,
			Description: openai.String(tl.desc), Parameters: jsonMap(t, tl.params)}))
	}
	return out
}

// noThinking switches Qwen3's thinking off: the answer is constrained from its first token.
var noThinking = option.WithJSONSet("chat_template_kwargs", map[string]any{"enable_thinking": false})

// tokenID is the token id of text, one token of the model's vocabulary.
func tokenID(t testing.TB, ts *testServer, model, text string) string {
	t.Helper()
	_, _, body := post(t, ts.url+"/tokenize", `{"model":"`+model+`","content":`+jsonString(text)+`}`)
	var r struct{ Tokens []int32 }
	decodeJSON(t, body, &r)
	if len(r.Tokens) != 1 {
		t.Fatalf("%q is %v", text, r.Tokens)
	}
	return fmt.Sprint(r.Tokens[0])
}

// oaiCallStream reads a streamed chat answer: the accumulated message, and each call's argument fragments
// concatenated. The first delta of a call must carry its index, id, type and name; later ones only arguments.
func oaiCallStream(t testing.TB, stream interface {
	Next() bool
	Current() openai.ChatCompletionChunk
	Err() error
}) (openai.ChatCompletionAccumulator, map[int64]string) {
	t.Helper()
	var acc openai.ChatCompletionAccumulator
	frags := map[int64]*strings.Builder{}
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		for _, ch := range chunk.Choices {
			for _, d := range ch.Delta.ToolCalls {
				switch {
				case d.ID != "":
					if frags[d.Index] != nil || d.Type != "function" || d.Function.Name == "" {
						t.Errorf("call %d starts again or without its type and name: %+v", d.Index, d)
					}
					frags[d.Index] = &strings.Builder{}
				case frags[d.Index] == nil || d.Function.Name != "" || d.Type != "":
					t.Errorf("call %d: a later delta %s carries more than arguments, or comes first", d.Index, d.RawJSON())
					continue
				}
				frags[d.Index].WriteString(d.Function.Arguments)
			}
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	out := map[int64]string{}
	for i, b := range frags {
		out[i] = b.String()
	}
	return acc, out
}

// TestOpenAIToolCalls drives forced tool calls through openai-go on the random-weight Qwen3 chat model: whole and
// streamed (the streamed fragments concatenate to the final arguments, which equal the whole answer's for the
// same seed), a named function, and several parallel calls, each with its own arguments valid for its tool.
func TestOpenAIToolCalls(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(1024)}, qwenChat)
	c := openaiClient(ts)
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{Model: qwenChat, MaxTokens: openai.Int(120), Temperature: openai.Float(1),
		Messages:          []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris, and 2 + 3?")},
		Tools:             oaiTools(t),
		ToolChoice:        openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")},
		ParallelToolCalls: openai.Bool(false)}
	for seed := int64(1); seed <= 3; seed++ {
		p := params
		p.Seed = openai.Int(seed)
		resp, err := c.Chat.Completions.New(ctx, p, noThinking)
		if err != nil {
			t.Fatal(err)
		}
		ch := resp.Choices[0]
		if ch.FinishReason != "tool_calls" || len(ch.Message.ToolCalls) != 1 || ch.Message.Content != "" {
			t.Fatalf("seed %d: finish %q, message %s", seed, ch.FinishReason, ch.Message.RawJSON())
		}
		call := ch.Message.ToolCalls[0]
		if call.Type != "function" || !strings.HasPrefix(call.ID, "call_") {
			t.Errorf("seed %d: call %s", seed, call.RawJSON())
		}
		checkCall(t, fmt.Sprintf("seed %d", seed), call.Function.Name, call.Function.Arguments)

		acc, frags := oaiCallStream(t, c.Chat.Completions.NewStreaming(ctx, p, noThinking))
		sc := acc.Choices[0]
		if sc.FinishReason != "tool_calls" || len(sc.Message.ToolCalls) != 1 || len(frags) != 1 {
			t.Fatalf("seed %d streamed: finish %q, %d calls, %d streamed", seed, sc.FinishReason, len(sc.Message.ToolCalls), len(frags))
		}
		got := sc.Message.ToolCalls[0].Function
		if frags[0] != got.Arguments || got.Name != call.Function.Name || got.Arguments != call.Function.Arguments {
			t.Errorf("seed %d: streamed %s(%s) from fragments %s; whole %s(%s)", seed, got.Name, got.Arguments, frags[0],
				call.Function.Name, call.Function.Arguments)
		}
	}

	named := params
	named.ToolChoice = openai.ToolChoiceOptionFunctionToolChoice(openai.ChatCompletionNamedToolChoiceFunctionParam{Name: "add"})
	for seed := int64(1); seed <= 2; seed++ {
		named.Seed = openai.Int(seed)
		resp, err := c.Chat.Completions.New(ctx, named, noThinking)
		if err != nil {
			t.Fatal(err)
		}
		for _, call := range resp.Choices[0].Message.ToolCalls {
			if call.Function.Name != "add" {
				t.Errorf("seed %d: tool_choice add called %s", seed, call.Function.Name)
			}
			checkCall(t, "named", call.Function.Name, call.Function.Arguments)
		}
	}

	// Parallel calls: with "\n" favoured, the grammar's way to another call after each one is taken until the
	// token budget ends the block; each call is separate, with its own id and valid arguments.
	par := params
	par.ParallelToolCalls, par.Temperature = openai.Bool(true), openai.Float(0)
	par.LogitBias = map[string]int64{tokenID(t, ts, qwenChat, "\n"): 100}
	resp, err := c.Chat.Completions.New(ctx, par, noThinking)
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Choices[0].Message.ToolCalls
	if len(calls) < 2 {
		t.Fatalf("parallel: %d calls: %s", len(calls), resp.Choices[0].Message.RawJSON())
	}
	ids := map[string]bool{}
	for i, call := range calls {
		checkCall(t, fmt.Sprintf("parallel call %d", i), call.Function.Name, call.Function.Arguments)
		ids[call.ID] = true
	}
	acc, frags := oaiCallStream(t, c.Chat.Completions.NewStreaming(ctx, par, noThinking))
	streamed := acc.Choices[0].Message.ToolCalls
	if len(ids) != len(calls) || len(streamed) != len(calls) || len(frags) != len(calls) {
		t.Fatalf("parallel: %d ids for %d calls; %d streamed calls, %d fragment sets", len(ids), len(calls), len(streamed), len(frags))
	}
	for i, call := range streamed {
		if frags[int64(i)] != call.Function.Arguments || call.Function.Arguments != calls[i].Function.Arguments {
			t.Errorf("parallel call %d: fragments %s, streamed %s, whole %s", i, frags[int64(i)], call.Function.Arguments, calls[i].Function.Arguments)
		}
	}
	t.Logf("%d parallel calls, first %s(%s)", len(calls), calls[0].Function.Name, calls[0].Function.Arguments)

	// tool_choice auto: the call's grammar starts where the model writes the trigger (here made likely by a
	// bias on the <tool_call> token, which the grammar forbids inside the call).
	auto := params
	auto.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("auto")}
	auto.Seed, auto.LogitBias = openai.Int(1), map[string]int64{tokenID(t, ts, qwenChat, "<tool_call>"): 100}
	if resp, err := c.Chat.Completions.New(ctx, auto, noThinking); err != nil || len(resp.Choices[0].Message.ToolCalls) != 1 ||
		resp.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("tool_choice auto: %v %s", err, resp.RawJSON())
	} else {
		call := resp.Choices[0].Message.ToolCalls[0]
		checkCall(t, "auto", call.Function.Name, call.Function.Arguments)
	}

	one := par
	one.ParallelToolCalls = openai.Bool(false)
	if resp, err := c.Chat.Completions.New(ctx, one, noThinking); err != nil || len(resp.Choices[0].Message.ToolCalls) != 1 {
		t.Errorf("parallel_tool_calls false: %v %+v", err, resp)
	}
}

// TestOpenAIResponseFormat: json_schema answers (whole and streamed, thinking on and off) parse and validate
// against their schema; json_object answers are JSON objects; tools with a format, and a schema keyword the
// engine cannot enforce, are 400s naming the field.
func TestOpenAIResponseFormat(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(1024)}, qwenChat)
	c := openaiClient(ts)
	ctx := context.Background()
	schema := openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
		JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "person", Schema: jsonMap(t, personSchema)}}}
	params := openai.ChatCompletionNewParams{Model: qwenChat, MaxTokens: openai.Int(100), Temperature: openai.Float(1),
		Messages:       []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Describe a person.")},
		ResponseFormat: schema}
	for seed := int64(1); seed <= 2; seed++ {
		for _, opts := range [][]option.RequestOption{{noThinking}, nil} {
			p := params
			p.Seed = openai.Int(seed)
			resp, err := c.Chat.Completions.New(ctx, p, opts...)
			if err != nil {
				t.Fatal(err)
			}
			msg := resp.Choices[0].Message
			checkJSON(t, fmt.Sprintf("seed %d", seed), personSchema, msg.Content)
			if resp.Choices[0].FinishReason != "stop" || strings.Contains(msg.Content, "think>") {
				t.Errorf("seed %d: finish %q, content %q", seed, resp.Choices[0].FinishReason, msg.Content)
			}
			acc, _ := oaiCallStream(t, c.Chat.Completions.NewStreaming(ctx, p, opts...))
			if got := acc.Choices[0].Message.Content; got != msg.Content {
				t.Errorf("seed %d: streamed %q, whole %q", seed, got, msg.Content)
			}
		}
	}
	obj := params
	obj.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
	resp, err := c.Chat.Completions.New(ctx, obj, noThinking)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(resp.Choices[0].Message.Content), &v); err != nil {
		t.Errorf("json_object answer %q: %v", resp.Choices[0].Message.Content, err)
	}

	both := params
	both.Tools = oaiTools(t)
	bad := params
	bad.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
		JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "bad",
			Schema: map[string]any{"type": "object", "not": map[string]any{"required": []string{"x"}}}}}}
	for _, tc := range []struct {
		p            openai.ChatCompletionNewParams
		param, words string
	}{{both, "response_format", "cannot be combined with tools"}, {bad, "response_format.json_schema.schema", "not"}} {
		_, err := c.Chat.Completions.New(ctx, tc.p)
		var ae *openai.Error
		if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Param != tc.param || !strings.Contains(ae.Message, tc.words) {
			t.Errorf("want a 400 naming %s (%q), got %v", tc.param, tc.words, err)
		}
	}
}
