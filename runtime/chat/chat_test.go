package chat

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

type namedCase struct {
	Name string `json:"name"`
	Conversation
}

func chatModelTemplate(t *testing.T) *Template {
	t.Helper()
	f, err := gguf.Open(filepath.Join(testdir.Dir(t), "models", "rand-qwen3-chat-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tmpl, err := Load(f, "")
	if err != nil {
		t.Fatal(err)
	}
	if o := tmpl.opt; o.BOS != "<|endoftext|>" || o.EOS != "<|im_end|>" || o.AddBOS || o.AddEOS {
		t.Fatalf("options %+v", o)
	}
	return tmpl
}

// TestQwen3Conversations renders every case of shared/testdata/chat with the Qwen3 template of the chat model and
// compares with the strings Hugging Face's Jinja rendered (bos_token "" as there; add_bos_token is false).
func TestQwen3Conversations(t *testing.T) {
	tmpl := chatModelTemplate(t)
	dir := testdir.Sub(t, "chat")
	raw, err := os.ReadFile(filepath.Join(dir, "conversations.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []namedCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no conversations")
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, "expected", c.Name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tmpl.Render(c.Conversation)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func TestToJSON(t *testing.T) {
	c := Conversation{Tools: []json.RawMessage{json.RawMessage(`{"b": 1.0, "a": [1e-7, 12345678901234567.0, 2.5, "é\u2028<&>\n"], "c": {}}`)}}
	tmpl, err := New(`{{ tools[0] | tojson }}|{{ tools[0] | tojson(sort_keys=true, separators=[",", ":"]) }}|{{ tools[0].a | tojson(indent=2) }}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := tmpl.Render(c)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"b\": 1.0, \"a\": [1e-07, 1.2345678901234568e+16, 2.5, \"é\u2028<&>\\n\"], \"c\": {}}" +
		"|{\"a\":[1e-07,1.2345678901234568e+16,2.5,\"é\u2028<&>\\n\"],\"b\":1.0,\"c\":{}}" +
		"|[\n  1e-07,\n  1.2345678901234568e+16,\n  2.5,\n  \"é\u2028<&>\\n\"\n]"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestBuiltins(t *testing.T) {
	conv := Conversation{AddGenerationPrompt: true, Messages: []Message{
		{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello"}, {Role: "user", Content: "Bye"}}}
	cases := map[string]string{
		"chatml":     "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n",
		"llama3":     "<|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nHello<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n",
		"gemma":      "<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\nHello<end_of_turn>\n<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n",
		"phi3":       "<|system|>\nBe brief.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello<|end|>\n<|user|>\nBye<|end|>\n<|assistant|>\n",
		"mistral-v7": "[SYSTEM_PROMPT] Be brief.[/SYSTEM_PROMPT][INST] Hi[/INST] Hello</s>[INST] Bye[/INST]",
		"mistral-v3": "[INST] Be brief.\n\nHi[/INST] Hello</s>[INST] Bye[/INST]",
		"llama2-sys": "[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST]Hello</s>[INST] Bye [/INST]",
		"gpt-oss": "<|start|>system<|message|>Be brief.<|end|><|start|>user<|message|>Hi<|end|><|start|>assistant<|message|>Hello<|return|>" +
			"<|start|>user<|message|>Bye<|end|><|start|>assistant",
		// As llama.cpp's llama-server --no-jinja --chat-template granite renders it (/apply-template).
		"granite": "<|start_of_role|>system<|end_of_role|>Be brief.<|end_of_text|>\n<|start_of_role|>user<|end_of_role|>Hi<|end_of_text|>\n" +
			"<|start_of_role|>assistant<|end_of_role|>Hello<|end_of_text|>\n<|start_of_role|>user<|end_of_role|>Bye<|end_of_text|>\n" +
			"<|start_of_role|>assistant<|end_of_role|>",
	}
	for name, want := range cases {
		tmpl, err := New(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := tmpl.Render(conv)
		if err != nil || got != want {
			t.Errorf("%s: %v\ngot  %q\nwant %q", name, err, got, want)
		}
	}
}

func TestDetect(t *testing.T) {
	for src, want := range map[string]Builtin{
		"{% for m in messages %}<|im_start|>{{ m.role }}":    BuiltinChatML,
		"<|start_header_id|>{{ role }}<|end_header_id|>":     BuiltinLlama3,
		"<start_of_turn>{{ role }}":                          BuiltinGemma,
		"<|user|>{{ x }}<|end|><|assistant|>":                BuiltinPhi3,
		"[SYSTEM_PROMPT]{{ s }}[INST]":                       BuiltinMistralV7,
		"<|start|>{{ role }}<|channel|>final<|message|>":     BuiltinGPTOSS,
		"<|start_of_role|>{{ role }}<|end_of_role|>":         BuiltinGranite,
		"{{ bos_token }}{% if x %}[INST] <<SYS>>{% endif %}": BuiltinLlama2Sys,
		"plain {{ words }}":                                  BuiltinUnknown,
	} {
		if got := Detect(src); got != want {
			t.Errorf("Detect(%q) = %v, want %v", src, got, want)
		}
	}
	// A template the engine cannot compile falls back to the detected format.
	tmpl, err := New("{% for m in messages %}<|im_start|>{{ m.role }{% endfor", Options{})
	if err != nil || tmpl.Builtin() != BuiltinChatML {
		t.Errorf("fallback: %v %v", tmpl, err)
	}
}

func TestTemplateErrors(t *testing.T) {
	_, err := New("line one\n{% if %}\n", Options{})
	if err == nil || !strings.Contains(err.Error(), "{% if %}") {
		t.Errorf("compile error should quote the line: %v", err)
	}
	tmpl, err := New("ok\n{{ raise_exception('Only user and assistant roles') }}\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tmpl.Render(Conversation{})
	if err == nil || !strings.Contains(err.Error(), "line 2: {{ raise_exception(") {
		t.Errorf("render error should quote the line: %v", err)
	}
	if _, err := ParseConversation(bytes.NewReader([]byte(`{"messages": [], "bogus": 1}`))); err == nil {
		t.Errorf("unknown conversation field accepted")
	}
}

func TestStripBOS(t *testing.T) {
	tmpl, err := New("{{ bos_token }}[{{ messages[0].content }}]{{ eos_token }}", Options{BOS: "<s>", EOS: "</s>", AddBOS: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := tmpl.Render(Conversation{Messages: []Message{{Role: "user", Content: "x"}}})
	if err != nil || got != "[x]</s>" {
		t.Errorf("got %q, %v", got, err)
	}
}

// TestGoldenChatPrompt renders the conversation of the golden chat case, checks the prompt llama.cpp was given,
// and tokenizes it (special tokens recognized) into llama.cpp's ids.
func TestGoldenChatPrompt(t *testing.T) {
	dir := testdir.Dir(t)
	f, err := gguf.Open(filepath.Join(dir, "models", "rand-qwen3-chat-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tmpl, err := Load(f, "")
	if err != nil {
		t.Fatal(err)
	}
	tk, err := tokenizer.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	prompt, err := tmpl.Render(Conversation{
		Messages:            []Message{{Role: "system", Content: "You are a helpful assistant."}, {Role: "user", Content: "Write a haiku about the sea."}},
		AddGenerationPrompt: true,
		Kwargs:              map[string]json.RawMessage{"enable_thinking": json.RawMessage("false")},
	})
	if err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join(dir, "golden", "rand-qwen3-chat-q8_0.chat.meta.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(meta), "prompt_json="+strconv.Quote(prompt)+"\n") {
		t.Errorf("prompt %q differs from meta.txt's prompt_json", prompt)
	}
	ids, err := tk.Encode(prompt, tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, "golden", "rand-qwen3-chat-q8_0.chat.ids.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range ids {
		got = append(got, strconv.Itoa(int(id)))
	}
	if strings.Join(got, " ") != strings.TrimSpace(string(want)) {
		t.Errorf("ids %v\nwant %s", got, want)
	}
}

// TestReasoningField: an assistant message's reasoning reaches templates as reasoning_content and as thinking
// (gpt-oss's name for it).
func TestReasoningField(t *testing.T) {
	tmpl, err := New("{% for m in messages %}{{ m.reasoning_content }}|{{ m.thinking }}{% endfor %}", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := tmpl.Render(Conversation{Messages: []Message{{Role: "assistant", ReasoningContent: "hmm"}}})
	if err != nil || got != "hmm|hmm" {
		t.Errorf("got %q, %v", got, err)
	}
}
