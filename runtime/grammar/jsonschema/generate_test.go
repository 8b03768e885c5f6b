package jsonschema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/forma-llm/forma/internal/testgen"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/grammar/jsonschema"
	"github.com/forma-llm/forma/runtime/sample"
)

// testSchema is one of testdata/schemas.
type testSchema struct {
	name string
	raw  []byte
	val  *santhosh.Schema
}

func testSchemas(t *testing.T) []testSchema {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "schemas", "*.json"))
	if err != nil || len(files) < 30 {
		t.Fatalf("want at least 30 schemas in testdata/schemas, found %d (%v)", len(files), err)
	}
	var out []testSchema
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, testSchema{strings.TrimSuffix(filepath.Base(f), ".json"), raw, validator(t, raw)})
	}
	return out
}

// validator compiles a schema with the independent validator, formats asserted.
func validator(t *testing.T, raw []byte) *santhosh.Schema {
	t.Helper()
	doc, err := santhosh.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := santhosh.NewCompiler()
	c.DefaultDraft(santhosh.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validate parses text as JSON (with encoding/json and the validator's reader) and validates it.
func validate(s *santhosh.Schema, text string) error {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	inst, err := santhosh.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return s.Validate(inst)
}

// TestGenerationValid generates with each test schema on random-weight models, whose unconstrained output is
// noise, and checks that every output is JSON valid against its schema (the constraint alone must make it).
func TestGenerationValid(t *testing.T) {
	schemas := testSchemas(t)
	seeds := 20
	models := []string{"rand-qwen3-chat-q8_0.gguf", "stories260K-F32.gguf"}
	switch {
	case raceEnabled: // the small model, one seed, a third of the schemas
		seeds, models = 1, models[1:]
		for i := range schemas {
			if i%3 == 0 {
				schemas[i/3] = schemas[i]
			}
		}
		schemas = schemas[:(len(schemas)+2)/3]
	case testing.Short():
		seeds = 3
	}
	for _, model := range models {
		t.Run(model, func(t *testing.T) {
			// Two sessions share the work (sessions of one model run concurrently).
			testgen.OnSessions(t, model, 2, 1024, schemas, func(s *runtime.Session, sc testSchema) {
				generateValid(t, s, sc, seeds)
			})
		})
	}
}

func generateValid(t *testing.T, s *runtime.Session, sc testSchema, seeds int) {
	g, err := jsonschema.Compile(sc.raw, jsonschema.Options{})
	if err != nil {
		t.Errorf("%s: %v", sc.name, err)
		return
	}
	c, err := s.Model().GrammarVocab().Compile(g)
	if err != nil {
		t.Errorf("%s: %v", sc.name, err)
		return
	}
	// Short generations: the budget makes each output complete, after some free choices.
	maxTokens := c.NewMatcher().MinTokens() + 24
	for seed := range uint64(seeds) {
		o := sample.Defaults()
		o.Seed = seed
		opt := runtime.GenerateOptions{MaxTokens: maxTokens, Sampling: &o, JSONSchema: sc.raw}
		var text strings.Builder
		for tok, err := range s.Generate(context.Background(), "Answer in JSON:", opt) {
			if err != nil {
				t.Errorf("%s seed %d: %v", sc.name, seed, err)
				return
			}
			text.WriteString(tok.Text)
		}
		if err := validate(sc.val, text.String()); err != nil {
			t.Errorf("%s seed %d: output %q: %v", sc.name, seed, text.String(), err)
		}
	}
}
