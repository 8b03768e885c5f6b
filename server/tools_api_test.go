package server

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

func antTools(t testing.TB) []anthropic.ToolUnionParam {
	var out []anthropic.ToolUnionParam
	for _, tl := range testTools {
		m := jsonMap(t, tl.params)
		var req []string
		for _, r := range m["required"].([]any) {
			req = append(req, r.(string))
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{Name: tl.name, Description: anthropic.String(tl.desc),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: m["properties"], Required: req,
				ExtraFields: map[string]any{"additionalProperties": false}}}})
	}
	return out
}

var antNoThinking = anthropic.ThinkingConfigParamUnion{OfDisabled: &anthropic.ThinkingConfigDisabledParam{}}

// TestAnthropicToolUse drives tool_use through anthropic-sdk-go: a forced call (any) whole and streamed (the
// input_json_delta fragments concatenate to the input, which equals the whole answer's), a named tool, and a
// second turn carrying the tool_use and its tool_result, counted by count_tokens as the request evaluates it.
func TestAnthropicToolUse(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(1024)}, qwenChat)
	c := anthropicClient(ts)
	ctx := context.Background()
	params := anthropic.MessageNewParams{Model: qwenChat, MaxTokens: 120, Tools: antTools(t), Thinking: antNoThinking,
		ToolChoice: anthropic.ToolChoiceUnionParam{OfAny: &anthropic.ToolChoiceAnyParam{DisableParallelToolUse: anthropic.Bool(true)}},
		Messages:   []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather in Paris?"))}}
	msg, err := c.Messages.New(ctx, params, greedyOpt)
	if err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != "tool_use" || len(msg.Content) != 1 || msg.Content[0].Type != "tool_use" || msg.Content[0].ID == "" {
		t.Fatalf("stop %q, content %+v", msg.StopReason, msg.Content)
	}
	use := msg.Content[0]
	checkCall(t, "tool_use", use.Name, string(use.Input))

	stream := c.Messages.NewStreaming(ctx, params, greedyOpt)
	var acc anthropic.Message
	frags := map[int64]*strings.Builder{}
	for stream.Next() {
		ev := stream.Current()
		if err := acc.Accumulate(ev); err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.Type == "content_block_start" && ev.ContentBlock.Type == "tool_use":
			frags[ev.Index] = &strings.Builder{}
		case ev.Type == "content_block_delta" && ev.Delta.Type == "input_json_delta":
			frags[ev.Index].WriteString(ev.Delta.PartialJSON)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if acc.StopReason != "tool_use" || len(acc.Content) != 1 || len(frags) != 1 || frags[0].String() != string(use.Input) ||
		acc.Content[0].Name != use.Name || !jsonEqual(string(acc.Content[0].Input), string(use.Input)) {
		t.Errorf("streamed %+v (fragments %v, stop %q); whole %s(%s)", acc.Content, frags, acc.StopReason, use.Name, use.Input)
	}

	named := params
	named.ToolChoice = anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{Name: "add"}}
	named.MaxTokens = 160
	m2, err := c.Messages.New(ctx, named, greedyOpt)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range m2.Content {
		if b.Type == "tool_use" {
			if b.Name != "add" {
				t.Errorf("tool_choice add used %s", b.Name)
			}
			checkCall(t, "named", b.Name, string(b.Input))
		}
	}

	turn := params
	turn.ToolChoice = anthropic.ToolChoiceUnionParam{OfAuto: &anthropic.ToolChoiceAutoParam{}}
	turn.MaxTokens = 4
	turn.Messages = append(turn.Messages, msg.ToParam(), anthropic.NewUserMessage(
		anthropic.NewToolResultBlock(use.ID, "sunny, 21 C", false), anthropic.NewTextBlock("And tomorrow?")))
	m3, err := c.Messages.New(ctx, turn, greedyOpt)
	if err != nil {
		t.Fatal(err)
	}
	count, err := c.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: qwenChat, Messages: turn.Messages,
		Thinking: antNoThinking, Tools: []anthropic.MessageCountTokensToolUnionParam{{OfTool: turn.Tools[0].OfTool}, {OfTool: turn.Tools[1].OfTool}}})
	if err != nil || count.InputTokens != m3.Usage.InputTokens+m3.Usage.CacheReadInputTokens {
		t.Errorf("count_tokens %+v (%v); the second turn evaluated %+v", count, err, m3.Usage)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// TestResponsesFunctionCalls drives function calls through the Responses API with openai-go: function_call output
// items whole and streamed (function_call_arguments deltas concatenate to the done event's arguments and to
// the completed item's), a text.format json_schema answer, and a second turn carrying the call and its output.
func TestResponsesFunctionCalls(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(1024)}, qwenChat)
	c := openaiClient(ts)
	ctx := context.Background()
	var tools []responses.ToolUnionParam
	for _, tl := range testTools {
		tools = append(tools, responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{Name: tl.name,
			Description: openai.String(tl.desc), Parameters: jsonMap(t, tl.params), Strict: openai.Bool(true)}})
	}
	params := responses.ResponseNewParams{Model: qwenChat, MaxOutputTokens: openai.Int(120), Temperature: openai.Float(0),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("What is the weather in Paris?")},
		Tools: tools, ParallelToolCalls: openai.Bool(false),
		ToolChoice: responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptionsRequired)}}
	resp, err := c.Responses.New(ctx, params, noThinking)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != "completed" || len(resp.Output) != 1 || resp.Output[0].Type != "function_call" {
		t.Fatalf("status %q, output %s", resp.Status, resp.RawJSON())
	}
	call := resp.Output[0].AsFunctionCall()
	checkCall(t, "function_call", call.Name, call.Arguments)
	if !strings.HasPrefix(call.CallID, "call_") || call.ID == "" {
		t.Errorf("call ids %q %q", call.ID, call.CallID)
	}

	stream := c.Responses.NewStreaming(ctx, params, noThinking)
	deltas := map[string]string{}
	var done, final string
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "response.function_call_arguments.delta":
			deltas[ev.ItemID] += ev.Delta
		case "response.function_call_arguments.done":
			done = ev.Arguments
		case "response.completed":
			if len(ev.Response.Output) == 1 {
				final = ev.Response.Output[0].AsFunctionCall().Arguments
			}
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(deltas) != 1 {
		t.Fatalf("argument deltas of %d items", len(deltas))
	}
	for _, d := range deltas {
		if d != done || d != final || d != call.Arguments {
			t.Errorf("streamed deltas %s, done %s, completed %s; whole %s", d, done, final, call.Arguments)
		}
	}

	format := params
	format.Tools, format.ToolChoice = nil, responses.ResponseNewParamsToolChoiceUnion{}
	format.Text = responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
		OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: "person", Schema: jsonMap(t, personSchema)}}}
	r2, err := c.Responses.New(ctx, format, noThinking)
	if err != nil {
		t.Fatal(err)
	}
	checkJSON(t, "text.format", personSchema, r2.OutputText())

	out := responses.ResponseInputItemParamOfFunctionCallOutput("sunny, 21 C")
	out.OfFunctionCallOutput.CallID = param.NewOpt(call.CallID)
	turn := params
	turn.ToolChoice, turn.MaxOutputTokens = responses.ResponseNewParamsToolChoiceUnion{}, openai.Int(4)
	turn.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
		responses.ResponseInputItemParamOfMessage("What is the weather in Paris?", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfFunctionCall(call.Arguments, call.CallID, call.Name), out}}
	if _, err := c.Responses.New(ctx, turn, noThinking); err != nil {
		t.Errorf("a turn with the call and its output: %v", err)
	}
}

// ollamaChatLine is an /api/chat object with its tool calls.
type ollamaChatLine struct {
	Message struct {
		Content, Thinking string
		ToolCalls         []struct {
			ID       string `json:"id"`
			Function struct {
				Index     int             `json:"index"`
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"message"`
	Done       bool   `json:"done"`
	DoneReason string `json:"done_reason"`
	Error      string `json:"error"`
}

func ollamaChatLines(t testing.TB, body string) []ollamaChatLine {
	t.Helper()
	var out []ollamaChatLine
	for _, l := range strings.Split(strings.TrimSpace(body), "\n") {
		var x ollamaChatLine
		decodeJSON(t, l, &x)
		out = append(out, x)
	}
	return out
}

// TestOllamaToolsAndFormat speaks Ollama's wire format by hand: tool calls (forced with forma's tool_choice
// extension) come as message.tool_calls with arguments as an object, each call whole in one streamed object;
// format with a schema, and "json", make answers that parse and validate.
func TestOllamaToolsAndFormat(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(1024)}, qwenChat)
	_, _, body := post(t, ts.url+"/api/show", `{"model":"`+qwenChat+`"}`)
	var show struct{ Capabilities []string }
	decodeJSON(t, body, &show)
	if !slices.Contains(show.Capabilities, "tools") || !slices.Contains(show.Capabilities, "thinking") {
		t.Errorf("capabilities %v: want tools and thinking", show.Capabilities)
	}
	req := func(stream bool, extra string) string {
		return fmt.Sprintf(`{"model":%q,"stream":%v,"think":false,"messages":[{"role":"user","content":"Weather in Paris?"}],`+
			`"options":{"seed":3,"temperature":1,"num_predict":120}%s}`, qwenChat, stream, extra)
	}
	tools := `,"tools":` + toolsJSON() + `,"tool_choice":"required"`
	code, _, body := post(t, ts.url+"/api/chat", req(false, tools))
	whole := ollamaChatLines(t, body)
	if code != 200 || len(whole) != 1 || len(whole[0].Message.ToolCalls) == 0 || whole[0].DoneReason != "stop" {
		t.Fatalf("%d %s", code, body)
	}
	for _, c := range whole[0].Message.ToolCalls {
		checkCall(t, "ollama", c.Function.Name, string(c.Function.Arguments))
	}
	_, _, body = post(t, ts.url+"/api/chat", req(true, tools))
	var streamed []string
	for _, l := range ollamaChatLines(t, body) {
		for _, c := range l.Message.ToolCalls {
			checkCall(t, "ollama streamed", c.Function.Name, string(c.Function.Arguments))
			if c.Function.Index != len(streamed) {
				t.Errorf("call index %d, want %d", c.Function.Index, len(streamed))
			}
			streamed = append(streamed, c.Function.Name+string(c.Function.Arguments))
		}
	}
	if len(streamed) != len(whole[0].Message.ToolCalls) {
		t.Fatalf("%d calls streamed, %d whole", len(streamed), len(whole[0].Message.ToolCalls))
	}
	for i, c := range whole[0].Message.ToolCalls {
		if streamed[i] != c.Function.Name+string(c.Function.Arguments) {
			t.Errorf("call %d streamed %s, whole %s%s", i, streamed[i], c.Function.Name, c.Function.Arguments)
		}
	}

	for _, format := range []string{personSchema, `"json"`} {
		_, _, body = post(t, ts.url+"/api/chat", req(false, `,"format":`+format))
		l := ollamaChatLines(t, body)
		if format == `"json"` {
			var v map[string]any
			if err := json.Unmarshal([]byte(l[0].Message.Content), &v); err != nil {
				t.Errorf("format json: %q: %v", l[0].Message.Content, err)
			}
			continue
		}
		checkJSON(t, "format", personSchema, l[0].Message.Content)
		_, _, body = post(t, ts.url+"/api/chat", req(true, `,"format":`+format))
		got := ""
		for _, l := range ollamaChatLines(t, body) {
			got += l.Message.Content
		}
		if got != l[0].Message.Content {
			t.Errorf("format streamed %q, whole %q", got, l[0].Message.Content)
		}
	}
}

// TestToolConversation: one conversation with a tool call and its result, in each API's own shape, renders to
// the same prompt (the same token count): the call and the result in the template's syntax, the tools in the
// system turn.
func TestToolConversation(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(1024)}, qwenChat)
	oaiMsgs := `[{"role":"user","content":"What is the weather in Paris?"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\",\"days\":2}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":"sunny, 21 C"},{"role":"user","content":"And tomorrow?"}]`
	code, _, body := post(t, ts.url+"/apply-template", `{"model":"`+qwenChat+`","tools":`+toolsJSON()+`,"messages":`+oaiMsgs+`}`)
	var tmpl struct{ Prompt string }
	decodeJSON(t, body, &tmpl)
	for _, want := range []string{`<tool_call>` + "\n" + `{"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}` + "\n</tool_call>",
		"<tool_response>\nsunny, 21 C\n</tool_response>", `{"type": "function", "function": {"name": "add", "description": "the sum of two integers"`} {
		if code != 200 || !strings.Contains(tmpl.Prompt, want) {
			t.Errorf("the prompt lacks %q: %d\n%s", want, code, tmpl.Prompt)
		}
	}
	_, _, body = post(t, ts.url+"/tokenize", `{"model":"`+qwenChat+`","content":`+jsonString(tmpl.Prompt)+`}`)
	var tok struct{ Tokens []int32 }
	decodeJSON(t, body, &tok)
	want := len(tok.Tokens)

	var antTools, respTools []string
	for _, tl := range testTools {
		antTools = append(antTools, fmt.Sprintf(`{"name":%q,"description":%q,"input_schema":%s}`, tl.name, tl.desc, tl.params))
		respTools = append(respTools, fmt.Sprintf(`{"type":"function","name":%q,"description":%q,"parameters":%s}`, tl.name, tl.desc, tl.params))
	}
	antMsgs := `[{"role":"user","content":"What is the weather in Paris?"},
		{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"get_weather","input":{"city":"Paris","days":2}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"sunny, 21 C"},{"type":"text","text":"And tomorrow?"}]}]`
	respInput := `[{"role":"user","content":"What is the weather in Paris?"},
		{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\",\"days\":2}"},
		{"type":"function_call_output","call_id":"call_1","output":"sunny, 21 C"},{"role":"user","content":"And tomorrow?"}]`
	ollMsgs := `[{"role":"user","content":"What is the weather in Paris?"},
		{"role":"assistant","content":"","tool_calls":[{"id":"call_1","function":{"name":"get_weather","arguments":{"city":"Paris","days":2}}}]},
		{"role":"tool","tool_name":"get_weather","tool_call_id":"call_1","content":"sunny, 21 C"},{"role":"user","content":"And tomorrow?"}]`
	model := `"model":"` + qwenChat + `"`
	for _, tc := range []struct {
		path, body string
		count      func(string) int
	}{
		{"/v1/chat/completions", `{` + model + `,"max_tokens":1,"tools":` + toolsJSON() + `,"messages":` + oaiMsgs + `}`,
			func(b string) int { var r oaiChatResponse; decodeJSON(t, b, &r); return r.Usage.PromptTokens }},
		{"/v1/messages/count_tokens", `{` + model + `,"tools":[` + strings.Join(antTools, ",") + `],"messages":` + antMsgs + `}`,
			func(b string) int {
				var r struct {
					InputTokens int `json:"input_tokens"`
				}
				decodeJSON(t, b, &r)
				return r.InputTokens
			}},
		{"/v1/responses", `{` + model + `,"max_output_tokens":1,"tools":[` + strings.Join(respTools, ",") + `],"input":` + respInput + `}`,
			func(b string) int { var r respObject; decodeJSON(t, b, &r); return r.Usage.InputTokens }},
		{"/api/chat", `{` + model + `,"stream":false,"options":{"num_predict":1},"tools":` + toolsJSON() + `,"messages":` + ollMsgs + `}`,
			func(b string) int { var r ollamaDone; decodeJSON(t, b, &r); return r.PromptEvalCount }},
	} {
		code, _, body := post(t, ts.url+tc.path, tc.body)
		if code != 200 {
			t.Errorf("%s: %d %s", tc.path, code, body)
			continue
		}
		if got := tc.count(body); got != want {
			t.Errorf("%s: a prompt of %d tokens, the OpenAI rendering has %d", tc.path, got, want)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestReasoningSplit: a reply that starts inside the reasoning (the assistant's turn is prefilled with an open
// <think>) and is constrained to JSON after it comes apart in every API: the reasoning in reasoning_content,
// thinking blocks, a reasoning item or Ollama's thinking; the JSON answer alone in the content; no tags in either.
func TestReasoningSplit(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(1024)}, qwenChat)
	ctx := context.Background()
	check := func(api, reasoning, content string) {
		t.Helper()
		var v map[string]any
		if reasoning == "" || json.Unmarshal([]byte(content), &v) != nil || strings.Contains(reasoning+content, "think>") {
			t.Errorf("%s: reasoning %q, content %q", api, reasoning, content)
		}
	}
	const question, prefill = "Why is the sky blue?", "<think>\nLet me see."

	oc := openaiClient(ts)
	op := openai.ChatCompletionNewParams{Model: qwenChat, MaxTokens: openai.Int(40), Temperature: openai.Float(1), Seed: openai.Int(5),
		Messages:       []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question), openai.AssistantMessage(prefill)},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}}
	resp, err := oc.Chat.Completions.New(ctx, op)
	if err != nil {
		t.Fatal(err)
	}
	var whole struct {
		ReasoningContent string `json:"reasoning_content"`
	}
	decodeJSON(t, resp.Choices[0].Message.RawJSON(), &whole)
	check("chat", whole.ReasoningContent, resp.Choices[0].Message.Content)
	stream := oc.Chat.Completions.NewStreaming(ctx, op)
	var reasoning, content strings.Builder
	for stream.Next() {
		for _, ch := range stream.Current().Choices {
			var d struct {
				ReasoningContent string `json:"reasoning_content"`
			}
			decodeJSON(t, ch.Delta.RawJSON(), &d)
			reasoning.WriteString(d.ReasoningContent)
			content.WriteString(ch.Delta.Content)
		}
	}
	if stream.Err() != nil || reasoning.String() != whole.ReasoningContent || content.String() != resp.Choices[0].Message.Content {
		t.Errorf("chat streamed %q / %q (%v)", reasoning.String(), content.String(), stream.Err())
	}

	ac := anthropicClient(ts)
	ap := anthropic.MessageNewParams{Model: qwenChat, MaxTokens: 40,
		OutputConfig: anthropic.OutputConfigParam{Format: anthropic.JSONOutputFormatParam{Schema: map[string]any{"type": "object"}}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(question)),
			anthropic.NewAssistantMessage(anthropic.NewTextBlock(prefill))}}
	msg, err := ac.Messages.New(ctx, ap, greedyOpt)
	if err != nil {
		t.Fatal(err)
	}
	text, thinking := antText(msg)
	check("messages", thinking, text)
	if msg.Content[0].Type != "thinking" {
		t.Errorf("messages: the first block is %s", msg.Content[0].Type)
	}

	rp := responses.ResponseNewParams{Model: qwenChat, MaxOutputTokens: openai.Int(40), Temperature: openai.Float(0),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
			responses.ResponseInputItemParamOfMessage(question, responses.EasyInputMessageRoleUser),
			responses.ResponseInputItemParamOfMessage(prefill, responses.EasyInputMessageRoleAssistant)}},
		Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}}}
	rr, err := oc.Responses.New(ctx, rp)
	if err != nil {
		t.Fatal(err)
	}
	var rreason string
	for _, it := range rr.Output {
		if it.Type == "reasoning" {
			for _, c := range it.Content {
				rreason += c.Text
			}
		}
	}
	check("responses", rreason, rr.OutputText())
	rs := oc.Responses.NewStreaming(ctx, rp)
	var sreason string
	for rs.Next() {
		if ev := rs.Current(); ev.Type == "response.reasoning_text.delta" {
			sreason += ev.Delta
		}
	}
	if rs.Err() != nil || sreason != rreason {
		t.Errorf("responses streamed reasoning %q, whole %q (%v)", sreason, rreason, rs.Err())
	}

	_, _, body := post(t, ts.url+"/api/chat", `{"model":"`+qwenChat+`","format":"json","options":{"temperature":0,"num_predict":40},`+
		`"messages":[{"role":"user","content":"`+question+`"},{"role":"assistant","content":`+jsonString(prefill)+`}]}`)
	var othink, ocontent string
	for _, l := range ollamaChatLines(t, body) {
		othink += l.Message.Thinking
		ocontent += l.Message.Content
	}
	check("ollama", othink, ocontent)
}
