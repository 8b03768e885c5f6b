package runtime

import (
	"errors"
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf"
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
	ownBackend  bool
	vocab       lazyVocab // for output constraints
}

// Options configure loading.
type Options struct {
	// Backend runs the model. Nil means a new CPU backend (Threads threads), owned and closed by the Model; a
	// backend given here stays the caller's, who closes it after the Model.
	Backend accel.Backend
	// Threads is the thread count of the default CPU backend; 0 means the physical cores.
	Threads int
	// ChatTemplate replaces the file's chat template: a built-in name (chatml, llama3, ...) or Jinja source.
	ChatTemplate string
	// Progress, when set, is called as the weights are uploaded with the bytes done and the total.
	Progress func(done, total int64)
	// Debug is passed to every compiled program (see accel.CompileOptions).
	Debug func(n *accel.Node, values []float32)
}

// Load opens a GGUF file, uploads its weights and reads its tokenizer and chat template. A vocabulary whose size
// differs from the embedding's rows is an error. A chat template that cannot be parsed is not: Load succeeds and
// the error is returned by the first Chat.
func Load(path string, opt Options) (m *Model, err error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	m = &Model{File: f, Backend: opt.Backend, compileOpts: accel.CompileOptions{Debug: opt.Debug}}
	defer func() {
		if err != nil {
			m.Close()
			m = nil
		}
	}()
	if m.Backend == nil {
		if m.Backend, err = cpu.New(cpu.Options{Threads: opt.Threads}); err != nil {
			return nil, err
		}
		m.ownBackend = true
	}
	be := m.Backend
	if opt.Progress != nil {
		be = newProgressBackend(m.Backend, f, opt.Progress)
	}
	if m.Arch, err = model.Load(f, be, model.LoadOptions{}); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if opt.Progress != nil {
		be.(*progressBackend).finish()
	}
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

// Close frees the model: the backend when the Model created it, then the file mapping. Sessions must be closed
// first. A backend given in Options, which refers to the mapping, must not be used after Close.
func (m *Model) Close() error {
	if m == nil {
		return nil
	}
	var errs []error
	if m.ownBackend && m.Backend != nil {
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

// Sampling keys llama.cpp's converter writes from a model's generation_config.json.
const (
	keySamplingTopK     = "general.sampling.top_k"
	keySamplingTopP     = "general.sampling.top_p"
	keySamplingMinP     = "general.sampling.min_p"
	keySamplingTemp     = "general.sampling.temp"
	keySamplingLastN    = "general.sampling.penalty_last_n"
	keySamplingRepeat   = "general.sampling.penalty_repeat"
	keySamplingTypicalP = "general.sampling.typ_p"
)

// readSampling returns llama.cpp's defaults with the file's general.sampling.* values in place of them. Keys for
// samplers forma does not have (XTC, mirostat) are ignored.
func readSampling(f *gguf.File) (sample.Options, error) {
	o := sample.Defaults()
	ints := []struct {
		key string
		dst *int
	}{{keySamplingTopK, &o.TopK}, {keySamplingLastN, &o.RepeatLastN}}
	for _, k := range ints {
		v, err := f.Int(k.key)
		switch {
		case gguf.IsNotFound(err):
		case err != nil:
			return o, err
		default:
			*k.dst = int(v)
		}
	}
	floats := []struct {
		key string
		dst *float32
	}{{keySamplingTopP, &o.TopP}, {keySamplingMinP, &o.MinP}, {keySamplingTemp, &o.Temperature},
		{keySamplingRepeat, &o.RepeatPenalty}, {keySamplingTypicalP, &o.TypicalP}}
	for _, k := range floats {
		v, err := f.Float(k.key)
		switch {
		case gguf.IsNotFound(err):
		case err != nil:
			return o, err
		default:
			*k.dst = float32(v)
		}
	}
	if err := o.Validate(); err != nil {
		return o, fmt.Errorf("general.sampling: %w", err)
	}
	return o, nil
}

// progressBackend counts the bytes uploaded through it during Load.
type progressBackend struct {
	accel.Backend
	done, total int64
	fn          func(done, total int64)
}

func newProgressBackend(be accel.Backend, f *gguf.File, fn func(done, total int64)) *progressBackend {
	p := &progressBackend{Backend: be, fn: fn}
	for _, t := range f.Tensors {
		p.total += int64(t.Size)
	}
	fn(0, p.total)
	return p
}

func (p *progressBackend) Upload(w accel.WeightData) (accel.Weight, error) {
	wt, err := p.Backend.Upload(w)
	p.done = min(p.done+int64(len(w.Data)), p.total)
	p.fn(p.done, p.total)
	return wt, err
}

func (p *progressBackend) finish() {
	if p.done < p.total {
		p.fn(p.total, p.total)
	}
}
