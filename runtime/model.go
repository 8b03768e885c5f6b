package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/internal/bundle"
	"github.com/forma-llm/forma/model"
	"github.com/forma-llm/forma/runtime/chat"
	"github.com/forma-llm/forma/runtime/sample"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// Model is a loaded model: the mapped file, the backend holding its weights, its architecture, tokenizer, chat
// template and sampling defaults. It is read-only and shared by any number of sessions, concurrently.
type Model struct {
	File      *gguf.File
	Backend   accel.Backend
	Arch      model.Model
	Tokenizer *tokenizer.Tokenizer

	template    *chat.Template
	templateErr error
	sampling    sample.Options
	compileOpts accel.CompileOptions
	opt         Options

	mu      sync.Mutex
	engines map[accel.DType]*engine // one per KV cache type, made by the first session that needs it
	open    map[*engine]int         // sessions open on each engine

	dryMu       sync.Mutex
	dryBreakers map[string]*sample.Breakers // by strings.Join(breakers, "\x00")
	vocab       lazyVocab                   // for output constraints
}

// Options configure loading.
type Options struct {
	// Backend runs the model (accel/cpu, accel/vulkan, …). It stays the caller's, who closes it after the Model,
	// unless CloseBackend is set.
	Backend      accel.Backend
	CloseBackend bool
	// ChatTemplate replaces the file's chat template: a built-in name (chatml, llama3, ...) or Jinja source.
	ChatTemplate string
	// Progress, when set, is called as the weights are uploaded with the bytes done and the total.
	Progress func(done, total int64)
	// Debug is passed to every compiled program (see accel.CompileOptions).
	Debug func(n *accel.Node, values []float32)

	// The engine that batches the sessions' tokens into shared passes (one per KV cache type, sized when the
	// first session of that type starts):
	//   - Parallel is the most sequences evaluated in one pass (DefaultParallel when 0); more wait in a queue.
	//   - Ctx is the context a sequence is configured for (0: the first session's), which sizes the KV memory
	//     and chooses RoPE factors where a model has short and long ones, as llama.cpp's context per sequence.
	//     A sequence may grow to the model's training context (at most 32768 tokens, or Ctx if larger); a later
	//     session may ask for more only while no session is open.
	//   - KVSize is the KV memory in tokens, shared by every sequence (0: Ctx × Parallel).
	//   - Batch is the most tokens in one pass (DefaultBatch when 0).
	//   - MaxQueue is the most requests waiting for a place in the passes; beyond it they fail with ErrBusy
	//     (DefaultMaxQueue when 0).
	Parallel, Ctx, KVSize, Batch, MaxQueue int
	// OnPass, when set, is called by an engine after each forward pass with the sequences and tokens it carried
	// (for metrics). It runs on the engine's goroutine between passes: it must return quickly.
	OnPass func(sequences, tokens int)
}

// Defaults of Options.
const (
	DefaultParallel = 4
	DefaultMaxQueue = 256
	// maxDefaultCells bounds the tokens a sequence may hold when no session asks for more.
	maxDefaultCells = 32768
)

// Load opens a GGUF file (or the model a forma bundle carries, mapped from the bundle), uploads its weights and
// reads its tokenizer and chat template. A vocabulary whose size differs from the embedding's rows is an error. A
// chat template that cannot be parsed is not: Load succeeds and the error is returned by the first Chat.
func Load(path string, opt Options) (*Model, error) {
	return LoadContext(context.Background(), path, opt)
}

// LoadContext is Load, cancellable while the weights upload.
func LoadContext(ctx context.Context, path string, opt Options) (m *Model, err error) {
	if opt.Parallel < 0 || opt.Ctx < 0 || opt.KVSize < 0 || opt.Batch < 0 || opt.MaxQueue < 0 {
		return nil, fmt.Errorf("runtime: negative engine option in %+v", opt)
	}
	f, err := bundle.OpenModel(path)
	if err != nil {
		return nil, err
	}
	if opt.Backend == nil {
		f.Close()
		return nil, errors.New("runtime: Options.Backend is required")
	}
	m = &Model{File: f, Backend: opt.Backend, compileOpts: accel.CompileOptions{Debug: opt.Debug}, opt: opt,
		engines: map[accel.DType]*engine{}, open: map[*engine]int{}}
	defer func() {
		if err != nil {
			m.Close()
			m = nil
		}
	}()
	be := accel.Backend(newProgressBackend(ctx, m.Backend, f, opt.Progress))
	if m.Arch, err = model.Load(f, be, model.LoadOptions{}); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	be.(*progressBackend).finish()
	if m.Tokenizer, err = tokenizer.Load(f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if v, n := m.Arch.HParams().Vocab, m.Tokenizer.Len(); v != n {
		return nil, fmt.Errorf("%s: the tokenizer has %d tokens but the model's embedding has %d rows", path, n, v)
	}
	if m.Tokenizer.Model() != tokenizer.ModelNone {
		m.template, m.templateErr = chat.Load(f, opt.ChatTemplate)
	} else {
		m.templateErr = fmt.Errorf("%s: %w", path, tokenizer.ErrNoVocab)
	}
	if m.sampling, err = readSampling(f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// engineFor returns the engine of KV type dt, making it (or, while it has no session, remaking it larger) so
// that a sequence can hold ctx tokens; the caller's session counts as open on it.
func (m *Model) engineFor(dt accel.DType, ctx int) (*engine, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.File == nil {
		return nil, ErrClosed
	}
	e := m.engines[dt]
	if e != nil && !e.fits(ctx) {
		if m.open[e] > 0 {
			return nil, fmt.Errorf("runtime: a context of %d exceeds the KV memory of %d tokens sized for the first session while others are open (set runtime.Options.Ctx or KVSize)",
				ctx, min(e.cells(), len(e.pool.pages)*PageSize))
		}
		e.close()
		delete(m.engines, dt)
		delete(m.open, e)
		e = nil
	}
	if e == nil {
		// A sequence may hold up to the training context (within a bound), whatever the first session asks
		// for, so that later sessions can ask for more; the memory is the pool's, sized by what was asked.
		nctx := max(ctx, m.opt.Ctx)
		c := engineConfig{ctx: max(nctx, min(m.HParams().CtxTrain, maxDefaultCells)), nctx: nctx, seqs: m.opt.Parallel,
			slots: m.opt.KVSize, batch: m.opt.Batch, maxQueue: m.opt.MaxQueue, kv: dt}
		if c.seqs == 0 {
			c.seqs = DefaultParallel
		}
		if c.slots == 0 {
			c.slots = nctx * c.seqs
		}
		if c.batch == 0 {
			c.batch = DefaultBatch
		}
		if c.maxQueue == 0 {
			c.maxQueue = DefaultMaxQueue
		}
		var err error
		if e, err = newEngine(m, c); err != nil {
			return nil, err
		}
		m.engines[dt] = e
	}
	m.open[e]++
	return e, nil
}

// releaseEngine ends a session's sequence.
func (m *Model) releaseEngine(e *engine, s *sequence) {
	s.close()
	m.mu.Lock()
	m.open[e]--
	m.mu.Unlock()
}

// EngineStats returns the counters of the engine for KV cache type kv (zero before its first session).
func (m *Model) EngineStats(kv KVType) EngineStats {
	dt, err := kv.DType()
	if err != nil {
		return EngineStats{}
	}
	m.mu.Lock()
	e := m.engines[dt]
	m.mu.Unlock()
	if e == nil {
		return EngineStats{}
	}
	return e.snapshot()
}

// HParams returns the architecture's hyperparameters.
func (m *Model) HParams() *model.HParams { return m.Arch.HParams() }

// Template returns the chat template, or why there is none (no vocabulary, or a template that does not parse).
func (m *Model) Template() (*chat.Template, error) { return m.template, m.templateErr }

// Sampling returns the model's default sampling parameters: llama.cpp's defaults, replaced by the file's
// general.sampling.* keys where present. Its seed is sample.RandomSeed.
func (m *Model) Sampling() sample.Options {
	return m.sampling
}

// Name returns general.name, or the architecture when the file has none.
func (m *Model) Name() string {
	if s, err := m.File.String("general.name"); err == nil && s != "" {
		return s
	}
	return m.Arch.HParams().Arch
}

// Close frees the model: its engines (sessions still open fail with ErrClosed), the backend when
// Options.CloseBackend is set, then the file mapping.
func (m *Model) Close() error {
	if m == nil {
		return nil
	}
	var errs []error
	m.mu.Lock()
	for _, e := range m.engines {
		errs = append(errs, e.close())
	}
	m.engines = nil
	m.mu.Unlock()
	if m.opt.CloseBackend && m.Backend != nil {
		errs = append(errs, m.Backend.Close())
		m.Backend = nil
	}
	if m.File != nil {
		if err := m.File.Close(); err != nil {
			errs = append(errs, fmt.Errorf("runtime: %w", err))
		}
		m.File = nil
	}
	return errors.Join(errs...)
}

// readSampling returns llama.cpp's defaults with the file's general.sampling.* values (the keys of
// sample.Params) in place of them. general.sampling.sequence, a sampler order, is not read: the chain's order is
// llama.cpp's default one.
func readSampling(f *gguf.File) (sample.Options, error) {
	o := sample.Defaults()
	for _, p := range sample.Params() {
		if p.GGUF == "" || !f.Has(p.GGUF) {
			continue
		}
		var v float64
		var err error
		if p.Kind == sample.Float {
			v, err = f.Float(p.GGUF)
		} else {
			var i int64
			i, err = f.Int(p.GGUF)
			v = float64(i)
		}
		if err == nil {
			err = p.SetNumber(&o, v)
		}
		if err != nil {
			return o, err
		}
	}
	if err := o.Validate(); err != nil {
		return o, fmt.Errorf("general.sampling: %w", err)
	}
	return o, nil
}

// progressBackend counts the bytes uploaded through it during Load and stops the upload when ctx is done.
type progressBackend struct {
	accel.Backend
	ctx         context.Context
	done, total int64
	fn          func(done, total int64)
}

func newProgressBackend(ctx context.Context, be accel.Backend, f *gguf.File, fn func(done, total int64)) *progressBackend {
	p := &progressBackend{Backend: be, ctx: ctx, fn: fn}
	for _, t := range f.Tensors {
		p.total += int64(t.Size)
	}
	if fn != nil {
		fn(0, p.total)
	}
	return p
}

func (p *progressBackend) Upload(w accel.WeightData) (accel.Weight, error) {
	if err := p.ctx.Err(); err != nil {
		return nil, err
	}
	wt, err := p.Backend.Upload(w)
	p.done = min(p.done+int64(len(w.Data)), p.total)
	if p.fn != nil {
		p.fn(p.done, p.total)
	}
	return wt, err
}

func (p *progressBackend) finish() {
	if p.fn != nil && p.done < p.total {
		p.fn(p.total, p.total)
	}
}
