package forma_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma"
	"github.com/forma-llm/forma/hub"
	"github.com/forma-llm/forma/hub/hubtest"
	"github.com/forma-llm/forma/internal/testdir"
)

// capture runs f with stdout sent to a pipe and returns what it printed.
func capture(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	f()
	os.Stdout = old
	w.Close()
	return <-done
}

// TestExamples runs the Examples (which have no // Output: because they need the reference model) and checks
// what they print.
func TestExamples(t *testing.T) {
	modelFile = filepath.Join(testdir.Sub(t, "models"), "stories260K-Q8_0.gguf")
	fakeHub(t, map[string]string{"Qwen/Qwen3-0.6B-GGUF": "Qwen3-0.6B-Q8_0.gguf"})
	for _, tc := range []struct {
		name string
		f    func()
		want []string
	}{
		{"Load", ExampleLoad, []string{"llama, 292", "vocabulary of 512"}},
		{"Generate", ExampleSession_Generate, []string{"Once upon a time, there was a little girl named Lily. She loved to play"}},
		{"Chat", ExampleSession_Chat, []string{">>> Tell me about a cat.", ">>> And a dog?", "reused", "4 messages"}},
		{"SamplerOptions", ExampleSamplerOptions, []string{"true 42"}},
		{"Pull", ExamplePull, []string{"Qwen3-0.6B-Q8_0.gguf: 379168 bytes, verified\ntrue <nil>\nllama\n"}},

		{"JSONSchema", ExampleGenerateOptions_jsonSchema, []string{"true true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := capture(t, tc.f)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output %q lacks %q", out, w)
				}
			}
		})
	}
}

// fakeHub serves the story model under other names from a fake Hugging Face Hub, and points the environment
// at it and at an empty store and caches.
func fakeHub(t *testing.T, repos map[string]string) *hubtest.Hub {
	b, err := os.ReadFile(modelFile)
	if err != nil {
		t.Fatal(err)
	}
	h := hubtest.NewHub()
	t.Cleanup(h.Close)
	for repo, file := range repos {
		h.AddRepo(repo, map[string][]byte{file: b}, false)
	}
	t.Setenv(hub.EnvHFEndpoint, h.URL)
	for _, k := range []string{hub.EnvModels, hub.EnvHFHubCache, hub.EnvLlamaCache, hub.EnvOllamaStore} {
		t.Setenv(k, t.TempDir())
	}
	return h
}

// Pull stops with its context; Resolve of a name found nowhere is fs.ErrNotExist.
func TestPullCancelAndResolveMissing(t *testing.T) {
	modelFile = filepath.Join(testdir.Sub(t, "models"), "stories260K-Q8_0.gguf")
	fakeHub(t, map[string]string{"org/m-GGUF": "m-Q8_0.gguf"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := forma.Pull(ctx, "org/m-GGUF", forma.PullOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled pull: %v", err)
	}
	if _, err := forma.Resolve("org/m-GGUF"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("resolve before the pull: %v", err)
	}
	path, err := forma.Pull(context.Background(), "org/m-GGUF", forma.PullOptions{})
	if got, rerr := forma.Resolve("m-GGUF:Q8_0"); err != nil || rerr != nil || got != path {
		t.Errorf("pull %q, %v; resolve %q, %v", path, err, got, rerr)
	}
}

func TestCheckConstraints(t *testing.T) {
	if err := forma.CheckJSONSchema([]byte(`{"type":"string","format":"ipv6"}`)); err == nil || !strings.Contains(err.Error(), `format "ipv6"`) {
		t.Errorf("CheckJSONSchema: %v", err)
	}
	if err := forma.CheckGrammar("root ::= [a"); err == nil || !strings.Contains(err.Error(), "1:10") {
		t.Errorf("CheckGrammar: %v", err)
	}
	if forma.CheckJSONSchema([]byte(`{"type":"integer"}`)) != nil || forma.CheckGrammar(`root ::= "a"`) != nil {
		t.Error("valid constraints refused")
	}
}
