package runtime

import (
	"errors"
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/model"
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

// SessionOptions configure a session.
type SessionOptions struct {
	Ctx int    // context size in tokens; 0 = the model's training context
	KV  KVType // KV cache type; KVDefault = F16
}

// Session is one conversation: its KV cache, its position, and the compiled programs of its forward passes. A
// session is used by one goroutine at a time; sessions of one Model run concurrently.
type Session struct {
	m      *Model
	ctx    int
	kv     []accel.Buffer
	pos    int
	progs  map[progKey]*program
	logits []float32 // rows of the last Eval
	ids    []int32   // scratch for positions
	closed bool
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
	if opt.Ctx <= 0 {
		opt.Ctx = hp.CtxTrain
	}
	dt, err := opt.KV.DType()
	if err != nil {
		return nil, err
	}
	kv, err := model.NewKVCache(m.Backend, hp, opt.Ctx, dt)
	if err != nil {
		return nil, err
	}
	return &Session{m: m, ctx: opt.Ctx, kv: kv, progs: map[progKey]*program{}}, nil
}

// Ctx returns the context size.
func (s *Session) Ctx() int { return s.ctx }

// Pos returns the number of tokens evaluated so far (the position of the next token).
func (s *Session) Pos() int { return s.pos }

// Truncate rewinds the session to its first n tokens (later evaluations overwrite the cache from there).
func (s *Session) Truncate(n int) error {
	if n < 0 || n > s.pos {
		return fmt.Errorf("runtime: cannot truncate a session of %d tokens to %d", s.pos, n)
	}
	s.pos = n
	return nil
}

// ErrContextFull is returned when tokens do not fit in the session's context.
var ErrContextFull = errors.New("runtime: context is full")

// Eval runs the tokens at the session's position and advances it. It returns the logits of the last token
// ([vocab]), or of every token ([len(tokens)][vocab] flattened) when all is set. The slice is reused by the next
// call. Eval allocates nothing once a pass of this length has been compiled.
func (s *Session) Eval(tokens []int32, all bool) ([]float32, error) {
	if s.closed {
		return nil, accel.ErrClosed
	}
	n := len(tokens)
	if n == 0 {
		return nil, errors.New("runtime: no tokens to evaluate")
	}
	if s.pos+n > s.ctx {
		return nil, fmt.Errorf("%w: %d tokens at position %d exceed the context of %d", ErrContextFull, n, s.pos, s.ctx)
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
		s.ids[i] = int32(s.pos + i)
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
	s.pos += n
	return out, nil
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

// Close frees the KV cache and compiled programs.
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
