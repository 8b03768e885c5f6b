package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/runtime/chat"
)

// KVType is the element type of a session's KV cache. It is its own enum rather than an accel.DType because
// DType's zero value is F32 (ggml's numbering), which would make "not set" indistinguishable from F32.
type KVType uint8

// KV cache types. The zero value, KVDefault, is F16, llama.cpp's default.
const (
	KVDefault KVType = iota
	KVF16
	KVF32
)

// DType returns the cache's element type.
func (k KVType) DType() (accel.DType, error) {
	switch k {
	case KVDefault, KVF16:
		return accel.F16, nil
	case KVF32:
		return accel.F32, nil
	}
	return 0, fmt.Errorf("runtime: unknown KV cache type %d", k)
}

func (k KVType) String() string {
	switch k {
	case KVDefault:
		return "default"
	case KVF16:
		return "f16"
	case KVF32:
		return "f32"
	}
	return fmt.Sprintf("KVType(%d)", uint8(k))
}

// Defaults of SessionOptions.
const (
	// DefaultCtx is the context size of a session that asks for none (llama-cli's default), or the model's
	// training context when that is smaller.
	DefaultCtx = 4096
	// DefaultBatch is the most prompt tokens evaluated in one pass (llama.cpp's n_batch).
	DefaultBatch = 512
)

// SessionOptions configure a session.
type SessionOptions struct {
	Ctx   int    // context size in tokens; 0 = DefaultCtx, or the model's training context if smaller
	KV    KVType // KV cache type; KVDefault = F16
	Batch int    // prompt tokens per forward pass; 0 = DefaultBatch
	// ContextShift, when the context is full, keeps the first Keep tokens, drops the oldest half of the rest
	// and goes on (llama.cpp's context shift). Without it a prompt that does not fit is an error and generation
	// stops when the context is full.
	ContextShift bool
	// Keep is the number of prompt tokens a context shift keeps (after a BOS the vocabulary adds); -1 keeps the
	// whole prompt of the turn being answered.
	Keep int
	// System is the system message a chat starts with ("" for none).
	System string
	// TemplateVars are extra chat template variables, e.g. {"enable_thinking": false}.
	TemplateVars map[string]any
}

// Session is one conversation: its sequence in the Model's engine (the tokens in the cache and the KV pages
// holding them), its chat history, and the state of its generation loop. A session is used by one goroutine at
// a time; sessions of one Model run concurrently and share the engine's forward passes.
type Session struct {
	m      *Model
	opt    SessionOptions
	ctx    int
	eng    *engine
	seq    *sequence
	closed bool

	history   []chat.Message
	kwargs    map[string]json.RawMessage // SessionOptions.TemplateVars as JSON
	promptLen int                        // tokens of the prompt of the last generation
	stats     Stats
	gen       generator // reused state of the generation loop
}

// NewSession starts a sequence in the Model's engine (KV memory is taken page by page as tokens are added).
func (m *Model) NewSession(opt SessionOptions) (*Session, error) {
	hp := m.Arch.HParams()
	if opt.Ctx < 0 || opt.Batch < 0 {
		return nil, fmt.Errorf("runtime: context %d and batch %d must not be negative", opt.Ctx, opt.Batch)
	}
	if opt.Ctx == 0 {
		opt.Ctx = min(DefaultCtx, hp.CtxTrain)
	}
	if opt.Batch == 0 {
		opt.Batch = DefaultBatch
	}
	dt, err := opt.KV.DType()
	if err != nil {
		return nil, err
	}
	s := &Session{m: m, opt: opt, ctx: opt.Ctx}
	for k, v := range opt.TemplateVars {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("runtime: template variable %q: %w", k, err)
		}
		if s.kwargs == nil {
			s.kwargs = map[string]json.RawMessage{}
		}
		s.kwargs[k] = raw
	}
	if s.eng, err = m.engineFor(dt, opt.Ctx); err != nil {
		return nil, err
	}
	s.seq = s.eng.newSequence(opt.Ctx, opt.Batch)
	s.Reset()
	return s, nil
}

// Model returns the model the session runs.
func (s *Session) Model() *Model { return s.m }

// Ctx returns the context size.
func (s *Session) Ctx() int { return s.ctx }

// Pos returns the number of tokens in the cache (the position of the next token).
func (s *Session) Pos() int { return len(s.seq.toks) }

// Tokens returns the tokens in the cache. The slice is the session's: it changes with the next evaluation.
func (s *Session) Tokens() []int32 { return s.seq.toks }

// Truncate rewinds the session to its first n tokens (later evaluations overwrite the cache from there).
func (s *Session) Truncate(n int) error {
	if s.closed {
		return ErrClosed
	}
	return s.seq.truncate(n)
}

// Reset empties the cache and the chat history (the system message stays).
func (s *Session) Reset() {
	if !s.closed {
		s.seq.truncate(0)
	}
	s.history = s.history[:0]
	if s.opt.System != "" {
		s.history = append(s.history, chat.Message{Role: "system", Content: s.opt.System})
	}
}

// ErrContextFull is returned when tokens do not fit in the session's context.
var ErrContextFull = errors.New("runtime: context is full")

// Eval evaluates the tokens at the session's position and advances it. It returns the logits of the last token
// ([vocab]), or of every token ([len(tokens)][vocab] flattened) when all is set. The slice is reused by the next
// call. The engine evaluates the tokens in passes of at most the session's batch, shared with other sessions;
// the logits do not depend on how they were split or what else shared the passes. Eval allocates nothing once
// the engine has compiled its passes.
func (s *Session) Eval(tokens []int32, all bool) ([]float32, error) {
	return s.eval(context.Background(), tokens, all)
}

// EvalBatches is Eval of the logits of the last token, cancellable between passes.
func (s *Session) EvalBatches(ctx context.Context, tokens []int32) ([]float32, error) {
	return s.eval(ctx, tokens, false)
}

func (s *Session) eval(ctx context.Context, tokens []int32, all bool) ([]float32, error) {
	if s.closed {
		return nil, ErrClosed
	}
	return s.seq.run(ctx, len(s.seq.toks), tokens, all)
}

// Close ends the session's sequence: its full pages stay cached for other sessions with the same prefix until
// the memory is needed. It is safe to call twice.
func (s *Session) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.gen.drafter.close()
	s.m.releaseEngine(s.eng, s.seq)
	return nil
}
