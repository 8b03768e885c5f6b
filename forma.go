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
// Models come from a path, or by name from the local store: Pull fetches one from the Hugging Face Hub or
// Ollama's registry (resumable, verified, once per file), Resolve finds a name there (and in huggingface_hub's,
// llama.cpp's and Ollama's stores) without a network:
//
//	path, err := forma.Pull(ctx, "hf.co/Qwen/Qwen3-0.6B-GGUF:Q8_0", forma.PullOptions{})
//	m, err := forma.Load(path, forma.Options{})
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
	"context"
	"iter"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/hub"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/chat"
	"github.com/forma-llm/forma/runtime/grammar"
	"github.com/forma-llm/forma/runtime/grammar/jsonschema"
	"github.com/forma-llm/forma/runtime/sample"
	"github.com/forma-llm/forma/runtime/toolcall"
)

type (
	// SessionOptions configure a session: context size, KV cache type, batch, context shift, system message.
	SessionOptions = runtime.SessionOptions
	// GenerateOptions control one answer: token limit, sampling, stop strings, output constraint (JSONSchema,
	// Grammar, JSON).
	GenerateOptions = runtime.GenerateOptions
	// Token is one generated token and the text it completes.
	Token = runtime.Token
	// Stats describe the last generation of a session (Session.Stats).
	Stats = runtime.Stats
	// StopReason says why a generation ended (Stats.Stop).
	StopReason = runtime.StopReason
	// Message is one turn of a conversation (Session.History).
	Message = chat.Message
	// SamplerOptions are the sampling parameters, named as llama.cpp's.
	SamplerOptions = sample.Options
	// Tool is a function the model may call (GenerateOptions.Tools); ParseTools reads OpenAI's tools JSON.
	Tool = toolcall.Tool
	// ToolChoice says whether the model may, must or must not call tools, or which one.
	ToolChoice = toolcall.Choice
	// ToolCallDelta is a piece of a streamed tool call (Token.Calls): its start, then fragments of its arguments.
	ToolCallDelta = toolcall.Delta
	// Reply is a generation's reply split into reasoning, answer and tool calls (Session.Result).
	Reply = toolcall.Reply
)

// ParseTools reads OpenAI's tools JSON ([{"type": "function", "function": {"name", "description",
// "parameters"}}]) for GenerateOptions.Tools.
func ParseTools(raw []byte) ([]Tool, error) { return toolcall.ParseTools(raw) }

// Why a generation ended.
const (
	StopEOG       = runtime.StopEOG       // an end-of-generation token
	StopMaxTokens = runtime.StopMaxTokens // GenerateOptions.MaxTokens reached
	StopString    = runtime.StopString    // a stop string matched
	StopContext   = runtime.StopContext   // the context is full (and context shift is off)
	StopCancelled = runtime.StopCancelled // the context was cancelled, or the caller stopped iterating
	StopError     = runtime.StopError     // an evaluation failed
)

// KV cache types for SessionOptions.KV.
const (
	KVF16 = runtime.KVF16
	KVF32 = runtime.KVF32
)

// RandomSeed in SamplerOptions.Seed draws a new seed for each generation.
const RandomSeed = sample.RandomSeed

var (
	// ErrContextFull is returned for a prompt longer than the session's context (without context shift).
	ErrContextFull = runtime.ErrContextFull
	// ErrClosed is returned by a closed session, or by a session of a closed model.
	ErrClosed = runtime.ErrClosed
	// ErrBusy is returned when more sessions wait for the engine than Options.MaxQueue allows.
	ErrBusy = runtime.ErrBusy
)

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
	// Parallel is the most sessions whose tokens are evaluated together in one pass (0: 4); more wait their turn.
	Parallel int
	// MaxQueue is the most sessions waiting for a turn before ErrBusy (0: 256).
	MaxQueue int
	// KVSize is the KV memory, in tokens, all sessions share (0: the largest session's context × Parallel).
	KVSize int
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
	return LoadContext(context.Background(), path, opt)
}

// LoadContext is Load, cancellable while the weights load.
func LoadContext(ctx context.Context, path string, opt Options) (*Model, error) {
	ro := runtime.Options{Backend: opt.Backend, ChatTemplate: opt.ChatTemplate, Progress: opt.Progress,
		Parallel: opt.Parallel, MaxQueue: opt.MaxQueue, KVSize: opt.KVSize}
	if ro.Backend == nil {
		be, err := cpu.New(cpu.Options{Threads: opt.Threads})
		if err != nil {
			return nil, err
		}
		ro.Backend, ro.CloseBackend = be, true
	}
	m, err := runtime.LoadContext(ctx, path, ro)
	if err != nil {
		if ro.CloseBackend {
			ro.Backend.Close()
		}
		return nil, err
	}
	return &Model{m}, nil
}

// NewSession starts a conversation. Sessions of one model may run concurrently: their tokens share the
// model's forward passes, and each session's results are the same as if it ran alone.
func (m *Model) NewSession(opt SessionOptions) (*Session, error) {
	s, err := m.m.NewSession(opt)
	if err != nil {
		return nil, err
	}
	return &Session{s}, nil
}

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

// Close frees the model: its sessions end (they return ErrClosed), then its weights, and its backend when Load
// created it.
func (m *Model) Close() error { return m.m.Close() }

// Session is one conversation over a Model: its history and its place in the model's KV memory. It is used by
// one goroutine at a time. Close it when done.
type Session struct{ s *runtime.Session }

// Chat adds msg as the user's turn and streams the answer. The whole conversation is rendered with the model's
// chat template; only the tokens not already in the cache are evaluated. Cancel ctx or leave the loop to stop.
func (s *Session) Chat(ctx context.Context, msg string, opt GenerateOptions) iter.Seq2[Token, error] {
	return s.s.Chat(ctx, msg, opt)
}

// Generate continues text (no chat template) and streams the continuation.
func (s *Session) Generate(ctx context.Context, prompt string, opt GenerateOptions) iter.Seq2[Token, error] {
	return s.s.Generate(ctx, prompt, opt)
}

// History returns a copy of the conversation so far.
func (s *Session) History() []Message { return s.s.History() }

// SetHistory replaces the conversation; the next Chat reuses what the cache holds of it.
func (s *Session) SetHistory(msgs []Message) { s.s.SetHistory(msgs) }

// SetSystem replaces the system message and starts the conversation over.
func (s *Session) SetSystem(msg string) { s.s.SetSystem(msg) }

// Reset starts the conversation over (the system message stays).
func (s *Session) Reset() { s.s.Reset() }

// Reply returns the text of the last answer.
func (s *Session) Reply() string { return s.s.Reply() }

// Stats describe the last generation: tokens, timings, why it stopped, the seed.
func (s *Session) Stats() Stats { return s.s.Stats() }

// Result returns the last generation's reply split into reasoning, answer and tool calls, and
// toolcall.ErrIncomplete (wrapped) for a reply cut inside a call or its reasoning.
func (s *Session) Result() (Reply, error) { return s.s.Result() }

// Close ends the session. It is safe to call twice.
func (s *Session) Close() error { return s.s.Close() }

// PullProgress is one report on one file of a pull: its name, status, bytes done and total.
type PullProgress = hub.Progress

// PullOptions configure Pull.
type PullOptions struct {
	// Registry decides where a reference without a host comes from: "hf" (the default for ORG/REPO) or
	// "ollama" (the default for a bare NAME).
	Registry string
	// MMProj also fetches the repository's vision projector.
	MMProj bool
	// Progress, when set, is called with each report, one call at a time.
	Progress func(PullProgress)
}

// Pull fetches a model into the local store ($FORMA_MODELS, default ~/.forma/models) and returns the path to
// Load. ref is hf.co/ORG/REPO[:QUANT] or ORG/REPO[:QUANT] for the Hugging Face Hub (QUANT picks the file;
// Q4_K_M, else the nearest, by default), ollama.com/[NAMESPACE/]NAME[:TAG] or NAME[:TAG] for Ollama's
// registry. Files already in the store (or in another tool's) are not fetched again; a pull cut off resumes
// where it stopped; every file is checked against its SHA-256 before it is stored. HF_TOKEN, HF_ENDPOINT and
// FORMA_REGISTRY are read from the environment. Cancelling ctx stops the pull.
func Pull(ctx context.Context, ref string, opt PullOptions) (string, error) {
	m, err := hub.FromEnv().Pull(ctx, ref, hub.PullOptions{Registry: hub.Registry(opt.Registry), MMProj: opt.MMProj,
		Progress: opt.Progress})
	if err != nil {
		return "", err
	}
	return m.Path, nil
}

// Resolve returns the model file a name stands for, without a network: a path, a name in the store (exact, as
// ORG/REPO:QUANT or REPO:QUANT, or a unique prefix), or a model in huggingface_hub's, llama.cpp's or Ollama's
// store. A name found nowhere is an error that errors.Is(err, fs.ErrNotExist) recognizes.
func Resolve(name string) (string, error) {
	m, err := hub.FromEnv().Resolve(name)
	if err != nil {
		return "", err
	}
	return m.Path, nil
}
