package toolcall

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime/chat"
)

// TestQwen3Template: the Qwen3 template of the chat model is a Hermes template; a parsed reply with a call, put
// back into the conversation with the tool's answer, renders the call as the model wrote it, and the parser
// reads the rendered call back.
func TestQwen3Template(t *testing.T) {
	f, err := gguf.Open(filepath.Join(testdir.Sub(t, "models"), "rand-qwen3-chat-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tmpl, err := chat.Load(f, "")
	if err != nil {
		t.Fatal(err)
	}
	fam := Detect(tmpl.Source())
	if fam != Hermes {
		t.Fatalf("family %v, want hermes", fam)
	}
	written := "<think>\nThe user wants code run.\n</think>\n\n<tool_call>\n{\"name\": \"python\", \"arguments\": {\"code\": \"print('hey')\"}}\n</tool_call>"
	p := NewParser(Options{Family: fam, Calls: true, NewID: func(int) string { return "call_1" }})
	p.Feed(written)
	p.Finish()
	reply, err := p.Result()
	if err != nil || len(reply.Calls) != 1 || reply.Reasoning != "The user wants code run." {
		t.Fatalf("%+v %v", reply, err)
	}
	ts := tools(t)
	conv := chat.Conversation{Tools: Templates(ts), AddGenerationPrompt: true, Messages: []chat.Message{
		{Role: "user", Content: "Run print('hey')"}, reply.Message(),
		{Role: "tool", Content: "hey", ToolCallID: "call_1", Name: "python"},
	}, Kwargs: fam.TemplateVars(true)}
	prompt, err := tmpl.Render(conv)
	if err != nil {
		t.Fatal(err)
	}
	call := "<tool_call>\n{\"name\": \"python\", \"arguments\": {\"code\": \"print('hey')\"}}\n</tool_call>"
	for _, want := range []string{call, `{"type": "function", "function": {"name": "special_function", "description": "I'm special"`,
		"<tool_response>\nhey\n</tool_response>"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, prompt)
		}
	}
	if _, open := fam.PromptThinking(prompt, true); open {
		t.Error("Qwen3's generation prompt does not open the reasoning")
	}
	back := NewParser(Options{Family: fam, Calls: true, NewID: func(int) string { return "call_1" }})
	back.Feed(call)
	back.Finish()
	if r, err := back.Result(); err != nil || r.Calls[0] != reply.Calls[0] {
		t.Errorf("rendered call parses to %+v %v", r, err)
	}
	noThink, err := tmpl.Render(chat.Conversation{AddGenerationPrompt: true, Kwargs: fam.TemplateVars(false),
		Messages: []chat.Message{{Role: "user", Content: "hi"}}})
	if err != nil || !strings.HasSuffix(noThink, "<think>\n\n</think>\n\n") {
		t.Errorf("enable_thinking false: %q %v", noThink, err)
	}
	var args map[string]string
	if json.Unmarshal([]byte(reply.Calls[0].Arguments), &args) != nil || args["code"] != "print('hey')" {
		t.Errorf("arguments %s", reply.Calls[0].Arguments)
	}
}

func TestDetect(t *testing.T) {
	for src, want := range map[string]Family{
		"{% if tools %}<tool_call>{{ x }}</tool_call>{% endif %}":                              Hermes,
		"<|start_header_id|>ipython<|end_header_id|>":                                          Llama3,
		"<|start_header_id|>{{ r }}<|end_header_id|>{% if builtin %}<|python_tag|>{% endif %}": Llama3,
		"[AVAILABLE_TOOLS]{{ t }}[/AVAILABLE_TOOLS][TOOL_CALLS]":                               Mistral,
		"[SYSTEM_PROMPT][THINK][/THINK][TOOL_CALLS]{{ n }}[ARGS]{{ a }}":                       MistralV11,
		"<|system|>{{ s }}<|tool|>{{ t }}<|/tool|><|end|>":                                     Phi4,
		"<|turn>model\n<|tool_call>call:{{ n }}{}<tool_call|>":                                 Gemma4,
		"<|start|>{{ role }}<|channel|>final<|message|>":                                       Harmony,
		"<｜Assistant｜><｜tool▁calls▁begin｜>":                                                    DeepSeekR1,
		"<|im_start|>assistant\n<think>\n":                                                     Thinking,
		"<start_of_turn>model\n":                                                               Plain,
	} {
		if got := Detect(src); got != want {
			t.Errorf("Detect(%q) = %v, want %v", src, got, want)
		}
		if f, ok := ParseFamily(want.String()); !ok || f != want {
			t.Errorf("ParseFamily(%q) = %v", want.String(), f)
		}
	}
}

func TestPromptThinking(t *testing.T) {
	if p, open := DeepSeekR1.PromptThinking("<｜Assistant｜><think>\n", true); !open || p != "<｜Assistant｜><think>\n" {
		t.Errorf("thinking on: %q %v", p, open)
	}
	if p, open := DeepSeekR1.PromptThinking("<｜Assistant｜><think>\n", false); open || p != "<｜Assistant｜><think>\n</think>" {
		t.Errorf("thinking off: %q %v", p, open)
	}
	if _, open := Hermes.PromptThinking("<|im_start|>assistant\n", true); open {
		t.Error("an assistant turn without <think> is open")
	}
	if v := Harmony.TemplateVars(false); string(v["reasoning_effort"]) != `"low"` {
		t.Errorf("harmony vars %s", v)
	}
}

func TestToolVars(t *testing.T) {
	if v := Llama3.ToolVars(); string(v["tools_in_user_message"]) != "false" || Hermes.ToolVars() != nil {
		t.Errorf("llama3 %s, hermes %v", v, Hermes.ToolVars())
	}
}
