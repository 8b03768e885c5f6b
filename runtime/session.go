package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/model"
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

// Session is one conversation: its KV cache and the tokens in it, its chat history, and the compiled programs
// of its forward passes. A session is used by one goroutine at a time; sessions of one Model run concurrently.
type Session struct {
	m      *Model
	opt    SessionOptions
	ctx    int
	kv     []accel.Buffer
	tokens []int32 // the tokens in the cache, in order (len = position of the next token)
	progs  map[progKey]*program
	logits []float32 // rows of the last Eval
	ids    []int32   // scratch for positions
	closed bool

	history   []chat.Message
	kwargs    map[string]json.RawMessage // SessionOptions.TemplateVars as JSON
	promptLen int                        // tokens of the prompt of the last generation
	stats     Stats
	gen       generator // reused state of the generation loop
}

type progKey struct {
	n   int  // tokens per pass
	all bool // logits for every token (else only the last)
}

// program is one compiled forward pass and its I/O handles.
type program struct {
	p           accel.Program
	tokens, pos accel.Tensor
	logits      accel.Tensor
	rows        int
}

// NewSession allocates a session's KV cache.
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
	kv, err := model.NewKVCache(m.Backend, hp, opt.Ctx, dt)
	if err != nil {
		return nil, err
	}
	s := &Session{m: m, opt: opt, ctx: opt.Ctx, kv: kv, progs: map[progKey]*program{},
		tokens: make([]int32, 0, opt.Ctx)}
	for k, v := range opt.TemplateVars {
		raw, err := json.Marshal(v)
		if err != nil {
			model.CloseKV(kv)
			return nil, fmt.Errorf("runtime: template variable %q: %w", k, err)
		}
		if s.kwargs == nil {
			s.kwargs = map[string]json.RawMessage{}
		}
		s.kwargs[k] = raw
	}
	s.Reset()
	return s, nil
}

// Model returns the model the session runs.
func (s *Session) Model() *Model { return s.m }

// Ctx returns the context size.
func (s *Session) Ctx() int { return s.ctx }

// Pos returns the number of tokens in the cache (the position of the next token).
func (s *Session) Pos() int { return len(s.tokens) }

// Tokens returns the tokens in the cache. The slice is the session's: it changes with the next evaluation.
func (s *Session) Tokens() []int32 { return s.tokens }

// Truncate rewinds the session to its first n tokens (later evaluations overwrite the cache from there).
func (s *Session) Truncate(n int) error {
	if n < 0 || n > len(s.tokens) {
		return fmt.Errorf("runtime: cannot truncate a session of %d tokens to %d", len(s.tokens), n)
	}
	s.tokens = s.tokens[:n]
	return nil
}

// Reset empties the cache and the chat history (the system message stays).
func (s *Session) Reset() {
	s.tokens = s.tokens[:0]
	s.history = s.history[:0]
	if s.opt.System != "" {
		s.history = append(s.history, chat.Message{Role: "system", Content: s.opt.System})
	}
}

// ErrContextFull is returned when tokens do not fit in the session's context.
var ErrContextFull = errors.New("runtime: context is full")

// Eval runs the tokens at the session's position in one forward pass and advances it. It returns the logits of
// the last token ([vocab]), or of every token ([len(tokens)][vocab] flattened) when all is set. The slice is
// reused by the next call. Eval allocates nothing once a pass of this length has been compiled; each distinct
// length compiles its own program (see EvalBatches for prompts).
func (s *Session) Eval(tokens []int32, all bool) ([]float32, error) {
	if s.closed {
		return nil, accel.ErrClosed
	}
	n := len(tokens)
	if n == 0 {
		return nil, errors.New("runtime: no tokens to evaluate")
	}
	pos := len(s.tokens)
	if pos+n > s.ctx {
		return nil, fmt.Errorf("%w: %d tokens at position %d exceed the context of %d", ErrContextFull, n, pos, s.ctx)
	}
	vocab := s.m.Arch.HParams().Vocab
	for _, t := range tokens {
		if t < 0 || int(t) >= vocab {
			return nil, fmt.Errorf("runtime: token id %d is outside the vocabulary of %d", t, vocab)
		}
	}
	pr, err := s.program(progKey{n: n, all: all})
	if err != nil {
		return nil, err
	}
	for i := range s.ids[:n] {
		s.ids[i] = int32(pos + i)
	}
	if err := pr.p.SetInt32(pr.tokens, tokens); err != nil {
		return nil, err
	}
	if err := pr.p.SetInt32(pr.pos, s.ids[:n]); err != nil {
		return nil, err
	}
	if err := pr.p.Run(); err != nil {
		return nil, err
	}
	out := s.logits[:pr.rows*vocab]
	if err := pr.p.Read(pr.logits, out); err != nil {
		return nil, err
	}
	s.tokens = append(s.tokens, tokens...)
	return out, nil
}

// EvalBatches evaluates tokens in passes of at most the session's batch size and returns the logits of the last
// token. A remainder shorter than the batch is evaluated in power-of-two pieces, so that a session compiles at
// most log2(batch)+2 programs however its prompts vary. It checks ctx between passes.
func (s *Session) EvalBatches(ctx context.Context, tokens []int32) ([]float32, error) {
	var logits []float32
	for len(tokens) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := batchLen(len(tokens), s.opt.Batch)
		var err error
		if logits, err = s.Eval(tokens[:n], false); err != nil {
			return nil, err
		}
		tokens = tokens[n:]
	}
	return logits, nil
}

// batchLen is the length of the next pass over n tokens: the batch, or the largest power of two ≤ n.
func batchLen(n, batch int) int {
	if n >= batch {
		return batch
	}
	return 1 << (bits.Len(uint(n)) - 1)
}

func (s *Session) program(k progKey) (*program, error) {
	if pr, ok := s.progs[k]; ok {
		return pr, nil
	}
	hp := s.m.Arch.HParams()
	b := accel.NewBuilder()
	pr := &program{rows: 1}
	if k.all {
		pr.rows = k.n
	}
	pr.tokens = b.Input("tokens", accel.I32, k.n)
	pr.pos = b.Input("pos", accel.I32, k.n)
	in := model.Inputs{Tokens: pr.tokens, Pos: pr.pos, KV: model.BindKV(b, s.kv), NCtx: s.ctx, OutRows: pr.rows}
	pr.logits = b.Output(s.m.Arch.Forward(b, in))
	g, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("runtime: building the graph: %w", err)
	}
	if pr.p, err = s.m.Backend.Compile(g, s.m.compileOpts); err != nil {
		return nil, err
	}
	s.progs[k] = pr
	if need := pr.rows * hp.Vocab; need > len(s.logits) {
		s.logits = make([]float32, need)
	}
	if k.n > len(s.ids) {
		s.ids = make([]int32, k.n)
	}
	return pr, nil
}

// Close frees the KV cache and compiled programs. It is safe to call twice.
func (s *Session) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for _, pr := range s.progs {
		errs = append(errs, pr.p.Close())
	}
	model.CloseKV(s.kv)
	s.progs, s.kv = nil, nil
	return errors.Join(errs...)
}
