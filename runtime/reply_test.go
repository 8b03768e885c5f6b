package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/tokenizer"
	"github.com/forma-llm/forma/runtime/toolcall"
)

const weatherTools = `[{"type":"function","function":{"name":"get_weather","description":"the weather in a city",
 "parameters":{"type":"object","properties":{"city":{"type":"string","maxLength":12},"days":{"type":"integer","minimum":1,"maximum":7}},
 "required":["city","days"],"additionalProperties":false}}},
 {"type":"function","function":{"name":"add","parameters":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}}}]`

// TestToolCalls: on a Qwen3 chat model (Hermes-style <tool_call> syntax; random weights, so only the constraint
// makes its output a call), a forced call comes out as Token.Calls deltas whose arguments, concatenated, are the
// call's valid JSON, in Session.Result and in the history; a named function is the one called; reasoning is kept
// apart from the answer.
func TestToolCalls(t *testing.T) {
	m := load(t, "rand-qwen3-chat-q8_0.gguf")
	if f := m.ToolFamily(); !f.SupportsTools() {
		t.Fatalf("the Qwen3 template's family %s has no tool syntax", f)
	}
	tools, err := toolcall.ParseTools(json.RawMessage(weatherTools))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		choice toolcall.Choice
		want   string // the function called ("" any)
	}{{toolcall.Choice{Mode: toolcall.Required}, ""}, {toolcall.Choice{Mode: toolcall.Function, Name: "add"}, "add"}} {
		for seed := uint64(1); seed <= 3; seed++ {
			s := session(t, m, runtime.SessionOptions{Ctx: 2048})
			opt := runtime.GenerateOptions{MaxTokens: 200, Sampling: seeded(seed), Tools: tools, ToolChoice: tc.choice}
			args := map[int]*strings.Builder{}
			names := map[int]string{}
			var content, reasoning strings.Builder
			for tok, err := range s.Chat(context.Background(), "What is the weather in Paris?", opt) {
				if err != nil {
					t.Fatal(err)
				}
				content.WriteString(tok.Text)
				reasoning.WriteString(tok.Reasoning)
				for _, d := range tok.Calls {
					switch d.Kind {
					case toolcall.CallStart:
						names[d.Index], args[d.Index] = d.Name, &strings.Builder{}
					case toolcall.CallArgs:
						args[d.Index].WriteString(d.Text)
					}
				}
			}
			reply, err := s.Result()
			if err != nil {
				t.Fatalf("seed %d: %v (stop %v)", seed, err, s.Stats().Stop)
			}
			if len(reply.Calls) == 0 || len(names) != len(reply.Calls) {
				t.Fatalf("seed %d: %d calls in the reply, %d streamed", seed, len(reply.Calls), len(names))
			}
			for i, c := range reply.Calls {
				if args[i].String() != c.Arguments || names[i] != c.Name {
					t.Errorf("seed %d: call %d streamed %s(%s), the reply has %s(%s)", seed, i, names[i], args[i], c.Name, c.Arguments)
				}
				if tc.want != "" && c.Name != tc.want {
					t.Errorf("seed %d: called %s, want %s", seed, c.Name, tc.want)
				}
				var v map[string]any
				if err := json.Unmarshal([]byte(c.Arguments), &v); err != nil {
					t.Errorf("seed %d: arguments %s: %v", seed, c.Arguments, err)
				}
				if c.Name == "get_weather" {
					if d, ok := v["days"].(float64); !ok || d < 1 || d > 7 || len(v) != 2 {
						t.Errorf("seed %d: get_weather(%s) breaks its schema", seed, c.Arguments)
					}
				}
			}
			if reply.Content != content.String() || reply.Reasoning != reasoning.String() {
				t.Errorf("seed %d: streamed content %q reasoning %q, the reply has %q and %q", seed, content.String(),
					reasoning.String(), reply.Content, reply.Reasoning)
			}
			h := s.History()
			if last := h[len(h)-1]; len(last.ToolCalls) != len(reply.Calls) || last.ReasoningContent != reply.Reasoning {
				t.Errorf("seed %d: the history's last message %+v", seed, last)
			}
			t.Logf("seed %d: %d calls, first %s(%s); reasoning %d bytes", seed, len(reply.Calls), reply.Calls[0].Name,
				reply.Calls[0].Arguments, len(reply.Reasoning))
		}
	}
}

// TestRawReply: with RawReply a thinking template's reply is not split: Text carries the whole generated text,
// reasoning included, as a plain completion wants it; the same greedy tokens split put that text in Reasoning.
func TestRawReply(t *testing.T) {
	m := load(t, "rand-qwen3-chat-q8_0.gguf")
	s := session(t, m, runtime.SessionOptions{Ctx: 256})
	const prompt = "<|im_start|>user\nWhy?<|im_end|>\n<|im_start|>assistant\n<think>\n" // opens the reasoning
	var reasoning strings.Builder
	splitIDs := []int32{}
	for tok, err := range s.Generate(context.Background(), prompt, runtime.GenerateOptions{MaxTokens: 12, Sampling: greedy()}) {
		if err != nil {
			t.Fatal(err)
		}
		if tok.ID >= 0 {
			splitIDs = append(splitIDs, tok.ID)
		}
		reasoning.WriteString(tok.Reasoning)
	}
	if reasoning.Len() == 0 {
		t.Fatal("a prompt that opens the reasoning got no reasoning")
	}
	var text strings.Builder
	rawIDs := []int32{}
	for tok, err := range s.Generate(context.Background(), prompt, runtime.GenerateOptions{MaxTokens: 12, Sampling: greedy(), RawReply: true}) {
		if err != nil {
			t.Fatal(err)
		}
		if tok.Reasoning != "" || len(tok.Calls) > 0 {
			t.Fatalf("raw reply token %+v has reasoning or calls", tok)
		}
		if tok.ID >= 0 {
			rawIDs = append(rawIDs, tok.ID)
		}
		text.WriteString(tok.Text)
	}
	if !equalIDs(rawIDs, splitIDs) || text.String() != s.Reply() || !strings.Contains(text.String(), reasoning.String()) {
		t.Errorf("raw %q (ids %v), reply %q; split reasoning %q (ids %v)", text.String(), rawIDs, s.Reply(), reasoning.String(), splitIDs)
	}
	if r, err := s.Result(); err != nil || r.Content != text.String() || r.Reasoning != "" {
		t.Errorf("raw Result %+v, %v", r, err)
	}
	tools, err := toolcall.ParseTools(json.RawMessage(weatherTools))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = collect(s.Generate(context.Background(), prompt, runtime.GenerateOptions{MaxTokens: 4, Tools: tools, RawReply: true}))
	if !errors.Is(err, runtime.ErrConstraint) {
		t.Errorf("RawReply with tools: %v, want ErrConstraint", err)
	}
}

// TestThinkingOff: a prompt that ends with the empty reasoning block Qwen3's template writes for enable_thinking
// false gets its constrained answer at once — a forced call, or a schema's JSON — with no reasoning before it,
// even from a model biased to open another <think> block.
func TestThinkingOff(t *testing.T) {
	m := load(t, "rand-qwen3-chat-q8_0.gguf")
	tools, err := toolcall.ParseTools(json.RawMessage(weatherTools))
	if err != nil {
		t.Fatal(err)
	}
	think, err := m.Tokenizer.Encode("<think>", tokenizer.EncodeOptions{ParseSpecial: true})
	if err != nil || len(think) != 1 {
		t.Fatalf("<think> is %v (%v), want one token", think, err)
	}
	const prompt = "<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
	for seed := uint64(1); seed <= 2; seed++ {
		for _, opt := range []runtime.GenerateOptions{
			{Tools: tools, ToolChoice: toolcall.Choice{Mode: toolcall.Required}},
			{JSONSchema: []byte(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`)},
		} {
			s := session(t, m, runtime.SessionOptions{Ctx: 1024})
			opt.MaxTokens, opt.Sampling = 80, seeded(seed)
			opt.Sampling.LogitBias = map[int32]float32{think[0]: 30}
			if _, _, err := collect(s.Generate(context.Background(), prompt, opt)); err != nil {
				t.Fatal(err)
			}
			r, err := s.Result()
			if err != nil || r.Reasoning != "" {
				t.Errorf("seed %d, tools %v: reasoning %q, %v", seed, opt.Tools != nil, r.Reasoning, err)
			}
			if opt.Tools != nil && len(r.Calls) == 0 || opt.Tools == nil && !json.Valid([]byte(r.Content)) {
				t.Errorf("seed %d: reply %+v", seed, r)
			}
		}
	}
}
