package grammar_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/internal/testgen"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/grammar"
	"github.com/forma-llm/forma/runtime/sample"
)

// TestGenerationInLanguage generates with the test grammars (equivalents of llama.cpp's grammars/ folder) on
// random-weight models and checks every output with the reference recognizer.
func TestGenerationInLanguage(t *testing.T) {
	names := []string{"arithmetic", "list", "chess", "c", "japanese", "json"}
	seeds := 20
	models := []string{"rand-qwen3-chat-q8_0.gguf", "stories260K-F32.gguf"}
	switch {
	case grammar.RaceEnabled:
		seeds, models = 1, models[1:]
	case testing.Short():
		seeds = 3
	}
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			testgen.OnSessions(t, model, 2, 1024, names, func(s *runtime.Session, name string) {
				generateInLanguage(t, s, name, seeds)
			})
		})
	}
}

func generateInLanguage(t *testing.T, s *runtime.Session, name string, seeds int) {
	src, err := os.ReadFile(filepath.Join("testdata", name+".gbnf"))
	if err != nil {
		t.Error(err)
		return
	}
	g, err := grammar.Parse(string(src))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	c, err := s.Model().GrammarVocab().Compile(g)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	maxTokens := c.NewMatcher().MinTokens() + 32
	for seed := range uint64(seeds) {
		o := sample.Defaults()
		o.Seed = seed
		var text strings.Builder
		for tok, err := range s.Generate(context.Background(), "Write:", runtime.GenerateOptions{MaxTokens: maxTokens, Sampling: &o, Grammar: string(src)}) {
			if err != nil {
				t.Errorf("%s seed %d: %v", name, seed, err)
				return
			}
			text.WriteString(tok.Text)
		}
		if !grammar.Recognize(g, text.String()) {
			t.Errorf("%s seed %d: the output is not in the language: %q", name, seed, text.String())
		}
	}
}

// Tokens named by the grammar (<think>, </think>, !</think>) on the model that has them.
func TestGenerationTokens(t *testing.T) {
	if grammar.RaceEnabled {
		t.Skip("a 151k-token model: too slow under the race detector")
	}
	m := testgen.Load(t, "rand-qwen3-chat-q8_0.gguf")
	s, err := m.NewSession(runtime.SessionOptions{Ctx: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	src, _ := os.ReadFile(filepath.Join("testdata", "think.gbnf"))
	think, _ := m.Tokenizer.ID("<think>")
	end, _ := m.Tokenizer.ID("</think>")
	for seed := range uint64(5) {
		o := sample.Defaults()
		o.Seed = seed
		var ids []int32
		var text strings.Builder
		// The grammar writes the reasoning itself: the reply stays raw, not split by the template's <think> tags.
		opt := runtime.GenerateOptions{MaxTokens: 50, Sampling: &o, Grammar: string(src), RawReply: true}
		for tok, err := range s.Generate(context.Background(), "Think:", opt) {
			if err != nil {
				t.Fatal(err)
			}
			if tok.ID >= 0 {
				ids = append(ids, tok.ID)
			}
			text.WriteString(tok.Text)
		}
		k := -1
		for i, id := range ids {
			if id == end {
				k = i
				break
			}
		}
		if len(ids) < 3 || ids[0] != think || k < 0 {
			t.Fatalf("seed %d: ids %v", seed, ids)
		}
		answer := strings.SplitN(text.String(), "</think>\n", 2)
		if len(answer) != 2 || answer[1] == "" || strings.ContainsAny(answer[1], "<>\n") {
			t.Errorf("seed %d: %q", seed, text.String())
		}
	}
}
