// Package forma runs large language models from GGUF files, in pure Go.
//
// A Model is loaded once and shared, read-only, by any number of Sessions; each Session is one conversation
// with its own KV cache, used by one goroutine at a time:
//
//	m, err := forma.Load("model.gguf", forma.Options{})
//	defer m.Close()
//	s, err := m.NewSession(forma.SessionOptions{})
//	defer s.Close()
//	for tok, err := range s.Chat(ctx, "Why is the sea blue?", forma.GenerateOptions{}) {
//		if err != nil { ... }
//		fmt.Print(tok.Text)
//	}
//
// Chat applies the model's chat template and keeps the conversation: each turn evaluates only the tokens that
// are not already in the cache. Generate completes plain text. Both stream tokens as an iterator; cancelling the
// context (or leaving the loop) stops generation within one token, and the session stays usable.
//
// Sampling follows llama.cpp: the model's recommended settings (general.sampling.* in the file) or llama.cpp's
// defaults, overridden per call with GenerateOptions.Sampling; the same seed gives the same tokens.
//
// Structured output: GenerateOptions.JSONSchema (a JSON Schema), Grammar (llama.cpp's GBNF) or JSON (any object)
// confine an answer to a language: every token is checked before it is sampled, so the answer parses. A schema
// keyword that cannot be enforced, or a grammar with a syntax error, is an error wrapping ErrConstraint before
// any token; CheckJSONSchema and CheckGrammar find those without a model.
//
// This package is the stable surface for applications. The packages under runtime/ hold the full machinery
// (tokenizer, chat templates, sampler stages, raw forward passes) for tools that need more.
package forma

import (
	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/chat"
	"github.com/forma-llm/forma/runtime/grammar"
	"github.com/forma-llm/forma/runtime/grammar/jsonschema"
	"github.com/forma-llm/forma/runtime/sample"
)

type (
	// Session is one conversation over a Model: see runtime.Session for every method. Close it to free its
	// KV cache.
	Session = runtime.Session
	// SessionOptions configure a session: context size, KV cache type, batch, context shift, system message.
	SessionOptions = runtime.SessionOptions
	// GenerateOptions control one answer: token limit, sampling, stop strings, output constraint (JSONSchema,
	// Grammar, JSON).
	GenerateOptions = runtime.GenerateOptions
	// Token is one generated token and the text it completes.
	Token = runtime.Token
	// Stats describe the last generation of a session (Session.Stats).
	Stats = runtime.Stats
	// Message is one turn of a conversation (Session.History).
	Message = chat.Message
	// SamplerOptions are the sampling parameters, named as llama.cpp's.
	SamplerOptions = sample.Options
)

// KV cache types for SessionOptions.KV.
const (
	KVF16 = runtime.KVF16
	KVF32 = runtime.KVF32
)

// RandomSeed in SamplerOptions.Seed draws a new seed for each generation.
const RandomSeed = sample.RandomSeed

// ErrContextFull is returned for a prompt longer than the session's context (without context shift).
var ErrContextFull = runtime.ErrContextFull

// ErrConstraint is wrapped by the error for a JSON schema or grammar that cannot be used; it comes before any
// token is generated.
var ErrConstraint = runtime.ErrConstraint

// CheckJSONSchema reports whether a JSON Schema can be enforced: nil, or an error naming the keyword (and its
// place in the schema) that cannot be, or saying that no value satisfies the schema.
func CheckJSONSchema(schema []byte) error {
	_, err := jsonschema.Compile(schema, jsonschema.Options{})
	return err
}

// CheckGrammar reports whether a GBNF grammar parses: nil, or an error naming the line:column of the problem.
// (Tokens it names, <text> or <[id]>, are checked against the model's vocabulary when generating.)
func CheckGrammar(gbnf string) error {
	_, err := grammar.Parse(gbnf)
	return err
}

// Options configure Load.
type Options struct {
	// Threads is the number of CPU threads; 0 means the physical cores.
	Threads int
	// Backend, when set, runs the model instead of the CPU (for example a GPU backend). It stays the caller's:
	// close it after the Model.
	Backend accel.Backend
	// ChatTemplate replaces the file's chat template: a built-in name (chatml, llama3, gemma, ...) or Jinja source.
	ChatTemplate string
	// Progress, when set, is called as the weights load with the bytes done and the total.
	Progress func(done, total int64)
}

// Model is a loaded model, safe for concurrent use by many sessions.
type Model struct{ m *runtime.Model }

// Info describes a loaded model.
type Info struct {
	Name         string // general.name
	Architecture string // general.architecture
	Params       int64  // parameters (tensor elements)
	ContextTrain int    // training context length
	Vocab        int    // vocabulary size
	Backend      string // the device it runs on
	HasTemplate  bool   // the file carries a chat template
}

// Load opens a GGUF model file and loads its weights (on the CPU unless Options.Backend says otherwise).
func Load(path string, opt Options) (*Model, error) {
	m, err := runtime.Load(path, runtime.Options{Threads: opt.Threads, Backend: opt.Backend,
		ChatTemplate: opt.ChatTemplate, Progress: opt.Progress})
	if err != nil {
		return nil, err
	}
	return &Model{m}, nil
}

// NewSession starts a conversation with its own KV cache.
func (m *Model) NewSession(opt SessionOptions) (*Session, error) { return m.m.NewSession(opt) }

// Sampling returns the model's default sampling parameters, a starting point for GenerateOptions.Sampling.
func (m *Model) Sampling() SamplerOptions { return m.m.Sampling() }

// Info describes the model.
func (m *Model) Info() Info {
	hp := m.m.HParams()
	var params int64
	for _, t := range m.m.File.Tensors {
		params += int64(t.Elements())
	}
	_, terr := m.m.Template()
	return Info{Name: m.m.Name(), Architecture: hp.Arch, Params: params, ContextTrain: hp.CtxTrain, Vocab: hp.Vocab,
		Backend: m.m.Backend.Caps().Device, HasTemplate: terr == nil && m.m.File.Has(chat.KeyTemplate)}
}

// Runtime returns the underlying runtime.Model (tokenizer, file metadata, backend) for tools that need more.
func (m *Model) Runtime() *runtime.Model { return m.m }

// Close frees the model: its weights, and its backend when Load created it. Close its sessions first.
func (m *Model) Close() error { return m.m.Close() }
