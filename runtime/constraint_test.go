package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/forma-llm/forma/runtime"
)

// A grammar or schema that cannot be used is an error before any token, and the session stays usable.
func TestConstraintErrors(t *testing.T) {
	m := load(t, "stories260K-F32.gguf")
	s := session(t, m, runtime.SessionOptions{})
	for _, c := range []struct {
		opt  runtime.GenerateOptions
		want string
	}{
		{runtime.GenerateOptions{Grammar: "root ::= \"a\"\nfoo"}, "2:4: expecting ::= after foo"},
		{runtime.GenerateOptions{Grammar: "root ::= \"a\" |\nfoo"}, "2:1: undefined rule foo"},
		{runtime.GenerateOptions{Grammar: `root ::= "a" root`}, "the grammar matches no string"},
		{runtime.GenerateOptions{Grammar: `root ::= <[100000]>`}, "token id 100000 is outside the vocabulary of 512"},
		{runtime.GenerateOptions{Grammar: `root ::= <nope>`}, "<nope> is not a token of the vocabulary"},
		{runtime.GenerateOptions{JSONSchema: []byte(`{"type":"string","format":"ipv6"}`)}, `format "ipv6" cannot be enforced`},
		{runtime.GenerateOptions{JSONSchema: []byte(`{"not":{}}`)}, `keyword "not" cannot be enforced`},
		{runtime.GenerateOptions{JSON: true, Grammar: `root ::= "a"`}, "set only one of Grammar, JSONSchema and JSON"},
	} {
		var got []runtime.Token
		var err error
		for tok, e := range s.Generate(context.Background(), "Once", c.opt) {
			if e != nil {
				err = e
				break
			}
			got = append(got, tok)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, runtime.ErrConstraint) {
			t.Errorf("got %v, want ErrConstraint with %q", err, c.want)
		}
		if len(got) > 0 || s.Stats().Generated != 0 {
			t.Errorf("%d tokens generated before the error", len(got))
		}
	}
	if _, text := generate(t, s, "Once", runtime.GenerateOptions{MaxTokens: 4, Sampling: greedy()}); text == "" {
		t.Error("the session is not usable after the errors")
	}
}

// Generation ends as soon as the grammar is complete and nothing can follow, and a token limit still ends
// with complete output.
func TestConstrainedGeneration(t *testing.T) {
	for _, name := range []string{"stories260K-F32.gguf", "rand-qwen3-chat-q8_0.gguf"} {
		m := load(t, name)
		s := session(t, m, runtime.SessionOptions{Ctx: 512})
		if _, text := generate(t, s, "Once", runtime.GenerateOptions{Sampling: seeded(1), Grammar: `root ::= ""`}); text != "" || s.Stats().Stop != runtime.StopEOG {
			t.Errorf("%s: the empty grammar wrote %q (stop %v)", name, text, s.Stats().Stop)
		}
		_, text := generate(t, s, "Once", runtime.GenerateOptions{Sampling: seeded(1), Grammar: `root ::= "yes" | "no"`})
		if (text != "yes" && text != "no") || s.Stats().Stop != runtime.StopEOG {
			t.Errorf("%s: got %q (stop %v), want yes or no ending the generation", name, text, s.Stats().Stop)
		}
		for seed := range uint64(3) {
			_, text = generate(t, s, "Once", runtime.GenerateOptions{MaxTokens: 30, Sampling: seeded(seed), JSON: true})
			var v map[string]any
			if err := json.Unmarshal([]byte(text), &v); err != nil {
				t.Errorf("%s: JSON mode wrote %q: %v", name, text, err)
			}
			if n := s.Stats().Generated; n > 30 {
				t.Errorf("%s: %d tokens past MaxTokens 30", name, n)
			}
		}
		// IgnoreEOG does not apply under a constraint: the grammar ends generation.
		_, text = generate(t, s, "Once", runtime.GenerateOptions{IgnoreEOG: true, Sampling: seeded(2), Grammar: `root ::= [a-z]{1,3}`})
		if len(text) < 1 || len(text) > 3 {
			t.Errorf("%s: got %q", name, text)
		}
	}
}

func TestConstrainedChat(t *testing.T) {
	m := load(t, "rand-qwen3-chat-q8_0.gguf")
	s := session(t, m, runtime.SessionOptions{Ctx: 1024})
	schema := []byte(`{"type":"object","properties":{"answer":{"type":"integer","minimum":1,"maximum":9}},"required":["answer"],"additionalProperties":false}`)
	_, text, err := collect(s.Chat(context.Background(), "Pick a digit.", runtime.GenerateOptions{Sampling: seeded(4), JSONSchema: schema}))
	if err != nil {
		t.Fatal(err)
	}
	if len(text) != len(`{"answer":1}`) || !strings.HasPrefix(text, `{"answer":`) {
		t.Errorf("chat answer %q", text)
	}
	if h := s.History(); h[len(h)-1].Content != text {
		t.Errorf("the history holds %q, the answer was %q", h[len(h)-1].Content, text)
	}
}

// A constraint adds no allocation per token: a generation of 100 tokens allocates as many times as one of 8.
func TestConstrainedAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts need a normal build")
	}
	m := load(t, storiesModel)
	s := session(t, m, runtime.SessionOptions{Ctx: 256})
	allocs := func(n int) float64 {
		opt := runtime.GenerateOptions{MaxTokens: n, Sampling: greedy(), Grammar: `root ::= [a-z .,]+ "!"`}
		generate(t, s, "Once upon a time", opt) // compile the programs, warm the grammar's caches
		return testing.AllocsPerRun(3, func() {
			for range s.Generate(context.Background(), "Once upon a time", opt) {
			}
		})
	}
	short, long := allocs(8), allocs(100)
	if long > short+2 {
		t.Errorf("8 tokens: %v allocations, 100 tokens: %v", short, long)
	}
	t.Logf("allocations per constrained generation: %v (8 tokens), %v (100 tokens)", short, long)
}
