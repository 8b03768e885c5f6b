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

func runCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = mainArgs(args, &o, &e)
	return code, o.String(), e.String()
}

func TestInfo(t *testing.T) {
	model := filepath.Join(testdir.Sub(t, "models"), "stories260K-Q8_0.gguf")
	code, out, errOut := runCLI("info", model, "--tensors")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"architecture      llama", "292.80K (292800)", "KV heads 4", "vocab             512",
		"memory @ ctx 128", "blk.4.ffn_down.weight", "F16"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI("info", "--json", "--ctx", "64", model)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if r["params"] != 292800.0 || r["memory"].(map[string]any)["context"] != 64.0 || len(r["tensors"].([]any)) != 48 {
		t.Errorf("--json: params %v memory %v", r["params"], r["memory"])
	}
	if md := r["metadata"].(map[string]any); md["tokenizer.ggml.tokens"].(map[string]any)["len"] != 512.0 {
		t.Errorf("tokens summary %v", md["tokenizer.ggml.tokens"])
	}
}

func TestInfoErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.gguf")
	os.WriteFile(bad, []byte("GGUF\x01\x00\x00\x00"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"info"}, 2, "usage: forma info"},
		{[]string{"info", "a", "b"}, 2, "usage: forma info"},
		{[]string{"info", bad}, 1, "version 1 is not supported"},
		{[]string{"info", "/nonexistent.gguf"}, 1, "no such file"},
		{[]string{"info", "--ctx", "-5", bad}, 1, "must be positive"},
	} {
		code, _, errOut := runCLI(c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}
