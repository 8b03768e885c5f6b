package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/forma-llm/forma/internal/testdir"
)

// goldenChatPrompt returns the chat model's path, its golden prompt text and llama.cpp's ids for it.
func goldenChatPrompt(t *testing.T) (model, prompt, ids string) {
	dir := testdir.Dir(t)
	meta, err := os.ReadFile(filepath.Join(dir, "golden", "rand-qwen3-chat-q8_0.chat.meta.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(meta), "\n") {
		if v, ok := strings.CutPrefix(l, "prompt_json="); ok {
			if prompt, err = strconv.Unquote(v); err != nil {
				t.Fatal(err)
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "golden", "rand-qwen3-chat-q8_0.chat.ids.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "models", "rand-qwen3-chat-q8_0.gguf"), prompt, strings.TrimSpace(string(b))
}

func TestTokenizeCommand(t *testing.T) {
	model, prompt, want := goldenChatPrompt(t)
	var out, errb bytes.Buffer
	if rc := mainArgs([]string{"tokenize", "-m", model, prompt}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	if got := strings.TrimSuffix(out.String(), "\n"); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	out.Reset()
	if rc := mainArgs([]string{"tokenize", "-m", model, "--no-special", "--pieces", "<|im_end|>\n"}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	if strings.Contains(out.String(), "151645") || !strings.Contains(out.String(), ">\\n\n") {
		t.Errorf("--no-special --pieces: %q", out.String())
	}

	noVocab := filepath.Join(testdir.Dir(t), "models", "rand-qwen2-q8_0.gguf")
	errb.Reset()
	if rc := mainArgs([]string{"tokenize", "-m", noVocab, "hi"}, &out, &errb); rc != 1 || !strings.Contains(errb.String(), "no vocabulary") {
		t.Errorf("no_vocab model: rc %d, %q", rc, errb.String())
	}
	if rc := mainArgs([]string{"tokenize", "hi"}, &out, &errb); rc != 2 {
		t.Errorf("missing -m: rc %d", rc)
	}
}
