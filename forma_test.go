package forma_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma"
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
	for _, tc := range []struct {
		name string
		f    func()
		want []string
	}{
		{"Load", ExampleLoad, []string{"llama, 292", "vocabulary of 512"}},
		{"Generate", ExampleSession_Generate, []string{"Once upon a time, there was a little girl named Lily. She loved to play"}},
		{"Chat", ExampleSession_Chat, []string{">>> Tell me about a cat.", ">>> And a dog?", "reused", "4 messages"}},
		{"SamplerOptions", ExampleSamplerOptions, []string{"true 42"}},
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
