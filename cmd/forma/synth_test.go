package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestSynthThenInfo(t *testing.T) {
	out := filepath.Join(t.TempDir(), "m.gguf")
	code, stdout, stderr := runCLI("synth", "--preset", "tiny-qwen3", "--type", "q4_k", "--seed", "5", "-o", out)
	if code != 0 || !strings.Contains(stdout, "wrote") {
		t.Fatalf("synth: exit %d, %s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI("info", out)
	if code != 0 || !strings.Contains(stdout, "qwen3") || !strings.Contains(stdout, "Q4_K") {
		t.Fatalf("info: exit %d, %s%s", code, stdout, stderr)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"synth", "--preset", "tiny-llama"}, 2, "usage: forma synth"},
		{[]string{"synth", "--preset", "nope", "--type", "q8_0", "-o", out}, 1, "unknown preset"},
		{[]string{"synth", "--preset", "tiny-llama", "--type", "q9_9", "-o", out}, 1, "unknown tensor type"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}
