package forma_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/forma-llm/forma"
	"github.com/forma-llm/forma/hub"
)

// modelFile is the small story model of the reference data beside the checkout (the tests point it at
// $FORMA_TESTDATA when set).
var modelFile = filepath.Join("..", "shared", "testdata", "models", "stories260K-Q8_0.gguf")

// Load a model and describe it.
func ExampleLoad() {
	m, err := forma.Load(modelFile, forma.Options{Threads: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	info := m.Info()
	fmt.Printf("%s: %s, %d parameters, vocabulary of %d\n", info.Name, info.Architecture, info.Params, info.Vocab)
}

// One-shot completion: plain text in, the continuation out, greedy so that it is the same every run.
func ExampleSession_Generate() {
	m, err := forma.Load(modelFile, forma.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	s, err := m.NewSession(forma.SessionOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	greedy := m.Sampling()
	greedy.Temperature = 0
	text := "Once upon a time"
	for tok, err := range s.Generate(context.Background(), text, forma.GenerateOptions{MaxTokens: 20, Sampling: &greedy}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		text += tok.Text
	}
	fmt.Println(text)
}

// A streaming chat: each answer is printed as it is generated; the session keeps the conversation, and the
// second question reuses what the cache holds of the first. (This small story model has no chat template and a
// context of 128 tokens: it gets ChatML and a context shift when the conversation outgrows it.)
func ExampleSession_Chat() {
	m, err := forma.Load(modelFile, forma.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	s, err := m.NewSession(forma.SessionOptions{ContextShift: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	ctx := context.Background()
	for _, q := range []string{"Tell me about a cat.", "And a dog?"} {
		fmt.Println(">>>", q)
		for tok, err := range s.Chat(ctx, q, forma.GenerateOptions{MaxTokens: 20, Stop: []string{"\n\n"}}) {
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Print(tok.Text)
		}
		st := s.Stats()
		fmt.Printf("\n[%d prompt tokens, %d reused; %d generated]\n", st.PromptTokens, st.CachedTokens, st.Generated)
	}
	fmt.Println(len(s.History()), "messages")
}

// A custom sampler: start from the model's defaults and change what you need. A fixed seed repeats the same
// tokens on every run.
func ExampleSamplerOptions() {
	m, err := forma.Load(modelFile, forma.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	s, err := m.NewSession(forma.SessionOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	opt := m.Sampling()
	opt.Temperature, opt.TopK, opt.TopP, opt.RepeatPenalty, opt.Seed = 1.0, 20, 0.9, 1.1, 42
	var runs [2]string
	for i := range runs {
		for tok, err := range s.Generate(context.Background(), "The dog", forma.GenerateOptions{MaxTokens: 16, Sampling: &opt}) {
			if err != nil {
				fmt.Println(err)
				return
			}
			runs[i] += tok.Text
		}
	}
	fmt.Println(runs[0] == runs[1], s.Stats().Seed)
}

// Pull a model from Hugging Face into the local store, then load it; later pulls and any program find it by
// name. (The test runs this against a local stand-in for the Hub.)
func ExamplePull() {
	ctx := context.Background()
	path, err := forma.Pull(ctx, "hf.co/Qwen/Qwen3-0.6B-GGUF:Q8_0", forma.PullOptions{
		Progress: func(p forma.PullProgress) {
			if p.Status == hub.StatusDone {
				fmt.Printf("%s: %d bytes, verified\n", p.File, p.Total)
			}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	same, err := forma.Resolve("Qwen3-0.6B-GGUF:Q8_0")
	fmt.Println(same == path, err)
	m, err := forma.Load(path, forma.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	fmt.Println(m.Info().Architecture)
}

// Structured output: the answer is JSON valid against the schema, whatever the model (this one writes stories).
func ExampleGenerateOptions_jsonSchema() {
	m, err := forma.Load(modelFile, forma.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	s, err := m.NewSession(forma.SessionOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	schema := []byte(`{"type":"object","properties":{"name":{"type":"string","maxLength":10},
		"age":{"type":"integer","minimum":1,"maximum":12}},"required":["name","age"],"additionalProperties":false}`)
	if err := forma.CheckJSONSchema(schema); err != nil {
		fmt.Println(err) // a keyword forma cannot enforce is named here
		return
	}
	greedy := m.Sampling()
	greedy.Temperature = 0
	answer := ""
	for tok, err := range s.Generate(context.Background(), "Once upon a time", forma.GenerateOptions{MaxTokens: 40,
		Sampling: &greedy, JSONSchema: schema}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		answer += tok.Text
	}
	var v struct {
		Name string
		Age  int
	}
	fmt.Println(json.Unmarshal([]byte(answer), &v) == nil, v.Age >= 1 && v.Age <= 12)
}
