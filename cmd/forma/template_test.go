package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/internal/testdir"
)

// TestTemplateCommand renders each conversation of shared/testdata/chat through the CLI and compares the output
// byte for byte with the expected prompt.
func TestTemplateCommand(t *testing.T) {
	dir := testdir.Dir(t)
	model := filepath.Join(dir, "models", "rand-qwen3-chat-q8_0.gguf")
	raw, err := os.ReadFile(filepath.Join(dir, "chat", "conversations.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		var name string
		json.Unmarshal(c["name"], &name)
		delete(c, "name")
		t.Run(name, func(t *testing.T) {
			conv, _ := json.Marshal(c)
			p := filepath.Join(t.TempDir(), "conv.json")
			if err := os.WriteFile(p, conv, 0o644); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, "chat", "expected", name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			if rc := mainArgs([]string{"template", "-m", model, p}, &out, &errb); rc != 0 {
				t.Fatalf("rc %d: %s", rc, errb.String())
			}
			if out.String() != string(want) {
				t.Errorf("got:\n%q\nwant:\n%q", out.String(), want)
			}
		})
	}
}

func TestTemplateCommandOverride(t *testing.T) {
	model := filepath.Join(testdir.Dir(t), "models", "rand-qwen3-chat-q8_0.gguf")
	p := filepath.Join(t.TempDir(), "conv.json")
	os.WriteFile(p, []byte(`{"messages": [{"role": "user", "content": "Hi"}], "add_generation_prompt": true}`), 0o644)
	var out, errb bytes.Buffer
	if rc := mainArgs([]string{"template", "-m", model, "--chat-template", "llama3", p}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	if want := "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"; out.String() != want {
		t.Errorf("got %q", out.String())
	}
	tf := filepath.Join(t.TempDir(), "t.jinja")
	os.WriteFile(tf, []byte("{% for m in messages %}[{{ m.role }}]{{ m.content }}\n{% endfor %}"), 0o644)
	out.Reset()
	if rc := mainArgs([]string{"template", "-m", model, "--chat-template", tf, p}, &out, &errb); rc != 0 || out.String() != "[user]Hi\n" {
		t.Errorf("file template: rc %d %q %s", rc, out.String(), errb.String())
	}
	errb.Reset()
	if rc := mainArgs([]string{"template", "-m", model, "--chat-template", "nonesuch", p}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), "built-in") {
		t.Errorf("unknown name: rc %d %s", rc, errb.String())
	}
}
