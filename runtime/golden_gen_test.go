package runtime_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/forma-llm/forma/internal/golden"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// TestGoldenGenerate runs the golden cases whose prompt is text (the models with a vocabulary) through the same
// path as `forma run --raw --temp 0 --kv f32`: Generate tokenizes the prompt, evaluates it in batches and
// samples greedily. The prompt ids and the greedy continuation must equal llama.cpp's, up to the first step
// whose reference top two logits are within golden.NearTie (after which either token is right).
func TestGoldenGenerate(t *testing.T) {
	dir := testdir.Dir(t)
	names, err := golden.Cases(dir)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, name := range names {
		c, err := golden.Load(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		var prompt string
		if err := json.Unmarshal([]byte(c.Meta["prompt_json"]), &prompt); err != nil {
			continue // an id prompt: the model has no vocabulary
		}
		ran++
		t.Run(name, func(t *testing.T) {
			if (testing.Short() || raceEnabled) && !strings.HasSuffix(name, ".short") {
				t.Skip("only the short cases in short mode and under the race detector")
			}
			m, err := runtime.Load(c.Model, runtime.Options{Backend: newCPU(t, 2), CloseBackend: true})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			ids, err := m.Tokenizer.Encode(prompt, tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true})
			if err != nil || !slices.Equal(ids, c.Prompt) {
				t.Fatalf("prompt ids %v (%v), reference %v", ids, err, c.Prompt)
			}
			s, err := m.NewSession(runtime.SessionOptions{KV: runtime.KVF32, Ctx: len(c.Prompt) + len(c.Gen) + 16})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			got, _, err := collect(s.Generate(context.Background(), prompt,
				runtime.GenerateOptions{MaxTokens: len(c.Gen), Sampling: greedy(), IgnoreEOG: true}))
			if err != nil {
				t.Fatal(err)
			}
			compareGreedy(t, c, got)
		})
	}
	if ran == 0 {
		t.Fatal("no golden case has a text prompt")
	}
}

// compareGreedy checks got against the reference continuation up to the first near-tie of the reference.
func compareGreedy(t *testing.T, c *golden.Case, got []int32) {
	t.Helper()
	n := len(c.Gen)
	for g := range c.Gen {
		if golden.TopGap(c.GenLogits[g*c.Vocab:(g+1)*c.Vocab]) < golden.NearTie {
			n = min(n, g)
			t.Logf("reference near-tie at step %d: compared %d tokens", g, g)
			break
		}
	}
	if len(got) < n || !slices.Equal(got[:n], c.Gen[:n]) {
		t.Errorf("greedy continuation\n got %v\nwant %v (first %d compared)", got, c.Gen, n)
	}
}

// TestGoldenChat renders the chat case's conversation through Session.Chat (the model's Qwen3 template with
// enable_thinking=false) and checks both the prompt and the greedy answer against llama.cpp.
func TestGoldenChat(t *testing.T) {
	if raceEnabled {
		t.Skip("a 151669-token vocabulary is slow under the race detector")
	}
	dir := testdir.Dir(t)
	c, err := golden.Load(dir, "rand-qwen3-chat-q8_0.chat")
	if err != nil {
		t.Skip(err)
	}
	m, err := runtime.Load(c.Model, runtime.Options{Backend: newCPU(t, 2), CloseBackend: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s, err := m.NewSession(runtime.SessionOptions{KV: runtime.KVF32, Ctx: 256, System: "You are a helpful assistant.",
		TemplateVars: map[string]any{"enable_thinking": false}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, _, err := collect(s.Chat(context.Background(), "Write a haiku about the sea.",
		runtime.GenerateOptions{MaxTokens: len(c.Gen), Sampling: greedy(), IgnoreEOG: true}))
	if err != nil {
		t.Fatal(err)
	}
	// The cache holds the prompt and every generated token but the last.
	if p := s.Tokens()[:len(c.Prompt)]; !slices.Equal(p, c.Prompt) {
		t.Errorf("chat prompt ids\n got %v\nwant %v", p, c.Prompt)
	}
	compareGreedy(t, c, got)
	if h := s.History(); len(h) != 3 || h[2].Role != "assistant" {
		t.Errorf("history after one turn: %+v", h)
	}
}
