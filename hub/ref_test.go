package hub

import (
	"strings"
	"testing"
)

func TestParseRef(t *testing.T) {
	for _, tc := range []struct {
		in   string
		reg  Registry
		want string // canonical name, or "error: TEXT"
	}{
		{"hf.co/Qwen/Qwen3-0.6B-GGUF:Q8_0", "", "hf.co/Qwen/Qwen3-0.6B-GGUF:Q8_0"},
		{"Qwen/Qwen3-0.6B-GGUF:Q8_0", "", "hf.co/Qwen/Qwen3-0.6B-GGUF:Q8_0"},
		{"Qwen/Qwen3-0.6B-GGUF", "", "hf.co/Qwen/Qwen3-0.6B-GGUF"},
		{"huggingface.co/unsloth/x-GGUF:UD-Q4_K_XL", "", "hf.co/unsloth/x-GGUF:UD-Q4_K_XL"},
		{"https://huggingface.co/a/b", "hf", "hf.co/a/b"},
		{"ollama.com/library/qwen3:0.6b", "", "ollama.com/library/qwen3:0.6b"},
		{"ollama.com/qwen3", "", "ollama.com/library/qwen3:latest"},
		{"registry.ollama.ai/library/qwen3:4b", "", "ollama.com/library/qwen3:4b"},
		{"qwen3:0.6b", "", "ollama.com/library/qwen3:0.6b"},
		{"qwen3", "ollama", "ollama.com/library/qwen3:latest"},
		{"someone/model:tag", "ollama", "ollama.com/someone/model:tag"},
		{"hf.co/a/b", "ollama", "error: names the hf registry"},
		{"a/b/c", "", "error: not a Hugging Face reference"},
		{"models/x.gguf", "", "error: not a Hugging Face reference"},
		{"a/b:c:d", "", "error: bad tag"},
		{"a//b", "", "error: not a Hugging Face"},
		{"-a/b", "", "error: not a Hugging Face"},
		{"a/b", "docker", "error: unknown registry"},
	} {
		r, err := ParseRef(tc.in, tc.reg)
		if w, ok := strings.CutPrefix(tc.want, "error: "); ok {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("ParseRef(%q, %q) = %v, %v; want an error with %q", tc.in, tc.reg, r, err, w)
			}
			continue
		}
		if err != nil || r.Name() != tc.want {
			t.Errorf("ParseRef(%q, %q) = %q, %v; want %q", tc.in, tc.reg, r.Name(), err, tc.want)
		}
	}
}

func TestIsRemoteRef(t *testing.T) {
	for in, want := range map[string]bool{
		"hf.co/a/b": true, "a/b:Q8_0": true, "a/b": true, "ollama.com/library/x": true, "x/y:tag": true,
		"qwen3": false, "qwen3:0.6b": false, "./a/b": false, "a/b.gguf": false, "/abs/path": false,
	} {
		if got := IsRemoteRef(in); got != want {
			t.Errorf("IsRemoteRef(%q) = %v", in, got)
		}
	}
}
