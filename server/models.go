package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/toolcall"
)

// modelEntry is a loaded model: its engine, and what the listing endpoints report.
type modelEntry struct {
	name, path string
	m          *runtime.Model
	closeFn    func() error
	eng        *engine
	size       int64 // file size
	loadedAt   time.Time
	loadTime   time.Duration
	family     toolcall.Family // the chat template's syntax of reasoning and tool calls

	// guarded by registry.mu
	refs      int
	keepAlive time.Duration // after the last request; negative: forever
	expires   time.Time     // zero while in use or kept forever
	timer     *time.Timer
}

// registry holds the loaded models by name and loads others on demand.
type registry struct {
	cfg     *Config
	metrics *Metrics
	log     *slog.Logger

	mu      sync.Mutex
	models  map[string]*modelEntry // by name
	order   []string               // names in load order; the first is the default model
	loading map[string]*loadCall   // by path
	closed  bool
}

type loadCall struct {
	done chan struct{}
	e    *modelEntry
	err  error
}

func newRegistry(cfg *Config, metrics *Metrics, log *slog.Logger) *registry {
	return &registry{cfg: cfg, metrics: metrics, log: log, models: map[string]*modelEntry{}, loading: map[string]*loadCall{}}
}

// modelName is a model's name: its file's name without the .gguf extension.
func modelName(path string) string { return strings.TrimSuffix(filepath.Base(path), ".gguf") }

// lookup finds a loaded model by name (case-insensitively, an Ollama ":latest" tag ignored); "" is the default.
// Called with r.mu held.
func (r *registry) lookup(name string) *modelEntry {
	if name == "" {
		if len(r.order) == 0 {
			return nil
		}
		return r.models[r.order[0]]
	}
	if e, ok := r.models[name]; ok {
		return e
	}
	base := strings.TrimSuffix(name, ":latest")
	for n, e := range r.models {
		if strings.EqualFold(n, base) {
			return e
		}
	}
	return nil
}

// acquire returns the model named name, loading it if needed, and holds it until release.
func (r *registry) acquire(ctx context.Context, name string) (*modelEntry, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, errClosing
	}
	if e := r.lookup(name); e != nil {
		r.hold(e)
		r.mu.Unlock()
		return e, nil
	}
	r.mu.Unlock()
	if name == "" {
		return nil, badRequest("model", "no model is loaded: name one")
	}
	if r.cfg.Resolve == nil {
		return nil, notFound("model_not_found", "model %q is not loaded", name)
	}
	path, err := r.cfg.Resolve(strings.TrimSuffix(name, ":latest"))
	if err != nil {
		return nil, notFound("model_not_found", "model %q: %v", name, err)
	}
	return r.load(ctx, path, false)
}

// load loads the file at path (once, however many requests ask for it at the same time) and holds it.
func (r *registry) load(ctx context.Context, path string, pinned bool) (*modelEntry, error) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	r.mu.Lock()
	for _, e := range r.models {
		if e.path == path {
			r.hold(e)
			r.mu.Unlock()
			return e, nil
		}
	}
	c, ok := r.loading[path]
	if !ok {
		c = &loadCall{done: make(chan struct{})}
		r.loading[path] = c
		go r.doLoad(c, path, pinned)
	}
	r.mu.Unlock()
	select {
	case <-c.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if c.err != nil {
		return nil, c.err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.models[c.e.name] != c.e {
		return nil, errClosing // unloaded or closed meanwhile
	}
	r.hold(c.e)
	return c.e, nil
}

func (r *registry) doLoad(c *loadCall, path string, pinned bool) {
	defer close(c.done)
	start := time.Now()
	opt := runtime.Options{Parallel: max(r.cfg.Parallel, 1), Ctx: r.cfg.Session.Ctx, MaxQueue: max(r.cfg.MaxQueue, 1),
		OnPass: r.metrics.ObserveStep}
	m, closeFn, err := r.cfg.Load(path, opt)
	if err != nil {
		c.err = fmt.Errorf("loading %s: %w", path, err)
		r.mu.Lock()
		delete(r.loading, path)
		r.mu.Unlock()
		return
	}
	e := &modelEntry{name: modelName(path), path: path, m: m, closeFn: closeFn, loadedAt: time.Now(),
		loadTime: time.Since(start), keepAlive: r.cfg.KeepAlive}
	if pinned {
		e.keepAlive = -1
	}
	if st, err := os.Stat(path); err == nil {
		e.size = st.Size()
	}
	e.family = m.ToolFamily()
	e.eng = newEngine(m, r.cfg.Session, r.cfg.Parallel, r.cfg.MaxQueue, r.metrics)
	r.mu.Lock()
	delete(r.loading, path)
	if r.closed {
		r.mu.Unlock()
		e.eng.close()
		closeFn()
		c.err = errClosing
		return
	}
	if _, ok := r.models[e.name]; ok {
		e.name += "@" + filepath.Base(filepath.Dir(path)) // two files with one stem
	}
	r.models[e.name] = e
	r.order = append(r.order, e.name)
	r.mu.Unlock()
	c.e = e
	r.log.Info("model loaded", "model", e.name, "path", path, "ms", e.loadTime.Milliseconds(), "ctx", e.eng.ctx)
}

// hold counts a request on e and stops its unload timer. Called with r.mu held.
func (r *registry) hold(e *modelEntry) {
	e.refs++
	e.expires = time.Time{}
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
}

// release ends a request on e. keepAlive, when not nil, replaces the model's idle time (Ollama's keep_alive):
// 0 unloads it as soon as no request uses it, a negative value keeps it loaded.
func (r *registry) release(e *modelEntry, keepAlive *time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.refs--
	if keepAlive != nil {
		e.keepAlive = *keepAlive
	}
	if e.refs > 0 || e.keepAlive < 0 || r.closed {
		return
	}
	if e.keepAlive == 0 {
		r.unload(e)
		return
	}
	e.expires = time.Now().Add(e.keepAlive)
	var t *time.Timer
	t = time.AfterFunc(e.keepAlive, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if e.timer == t && e.refs == 0 && r.models[e.name] == e {
			r.unload(e)
		}
	})
	e.timer = t
}

// unload removes e and frees it. Called with r.mu held and e unused.
func (r *registry) unload(e *modelEntry) {
	delete(r.models, e.name)
	for i, n := range r.order {
		if n == e.name {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
	if e.timer != nil {
		e.timer.Stop()
		e.timer = nil
	}
	err := errors.Join(e.eng.close(), e.closeFn())
	r.log.Info("model unloaded", "model", e.name, "err", err)
}

// list returns the loaded models in load order.
func (r *registry) list() []*modelEntry {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*modelEntry, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.models[n])
	}
	return out
}

// expiry returns when e unloads (zero: in use, or never).
func (r *registry) expiry(e *modelEntry) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return e.expires
}

// gauges sums the engines' sequences in use and requests queued.
func (r *registry) gauges() (active, queued, models int) {
	for _, e := range r.list() {
		a, q := e.eng.busy()
		active += a
		queued += q
		models++
	}
	return active, queued, models
}

// close unloads every model. Requests must have ended.
func (r *registry) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	var errs []error
	for _, n := range append([]string(nil), r.order...) {
		e := r.models[n]
		if e.refs > 0 {
			errs = append(errs, fmt.Errorf("server: model %s still in use", n))
			continue
		}
		r.unload(e)
	}
	return errors.Join(errs...)
}
