package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/web"
)

// Defaults of Config.
const (
	DefaultParallel  = 4
	DefaultMaxQueue  = 64
	DefaultKeepAlive = 5 * time.Minute // Ollama's
	DefaultMaxBody   = 32 << 20
	DefaultGrace     = 30 * time.Second
)

// Config configures a Server. The zero value of each field means its default.
type Config struct {
	// Models are the model files loaded at start (forma serve -m); they stay loaded unless a request's keep_alive
	// says otherwise. The first is the default model of requests that name none.
	Models []string
	// Resolve turns a model name that is not loaded into a file (as forma run resolves its MODEL argument). Nil:
	// only loaded models are served.
	Resolve func(name string) (path string, err error)
	// Load loads a model file with the engine options the server sets (Parallel, MaxQueue, Ctx and a metrics hook;
	// the loader adds its backend and the like); the function it returns frees it. Nil: runtime.Load on a CPU
	// backend of its own.
	Load func(path string, opt runtime.Options) (*runtime.Model, func() error, error)
	// Session configures every sequence: context size (Ctx, 0: the runtime's default), KV cache type, batch.
	Session runtime.SessionOptions
	// FlashAttention loads models with runtime.Options.FlashAttention (llama-server's -fa on); a quantized KV
	// cache type in Session uses flash attention whatever this says.
	FlashAttention bool
	// Parallel is the most sequences of one model generating at once (llama-server's --parallel).
	Parallel int
	// MaxQueue is the most requests waiting for a sequence per model; past it, 503 with Retry-After. Negative:
	// no queue.
	MaxQueue int
	// KeepAlive is how long a model loaded on demand stays loaded without requests; negative: forever.
	KeepAlive time.Duration
	// APIKeys, when any is set, are required by every endpoint but /health (Authorization: Bearer or x-api-key).
	// Empty keys are ignored.
	APIKeys []string
	// CORS lists the origins allowed to call the API from a browser ("*" for any); empty: CORS is off.
	CORS []string
	// MaxBody is the largest request body in bytes; larger ones get 413.
	MaxBody int64
	// Grace is how long Run lets running requests finish after its context ends, before cancelling them.
	Grace time.Duration
	// Logger receives one line per request and the model loads; nil: slog.Default().
	Logger *slog.Logger
}

// Server serves the APIs. Create it with New, then Run it (or mount Handler and call Load).
type Server struct {
	cfg     Config
	log     *slog.Logger
	reg     *registry
	metrics *Metrics
	handler http.Handler
	ready   atomic.Bool // the start-up models are loaded
}

// New returns a server for cfg. It loads nothing yet: Run (or Load) does.
func New(cfg Config) *Server {
	if cfg.Parallel <= 0 {
		cfg.Parallel = DefaultParallel
	}
	switch {
	case cfg.MaxQueue == 0:
		cfg.MaxQueue = DefaultMaxQueue
	case cfg.MaxQueue < 0:
		cfg.MaxQueue = 0
	}
	if cfg.KeepAlive == 0 {
		cfg.KeepAlive = DefaultKeepAlive
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.APIKeys = slices.DeleteFunc(slices.Clone(cfg.APIKeys), func(k string) bool { return k == "" })
	if cfg.Load == nil {
		cfg.Load = func(path string, opt runtime.Options) (*runtime.Model, func() error, error) {
			be, err := cpu.New(cpu.Options{})
			if err != nil {
				return nil, nil, err
			}
			opt.Backend, opt.CloseBackend = be, true
			m, err := runtime.Load(path, opt)
			if err != nil {
				be.Close()
				return nil, nil, err
			}
			return m, m.Close, nil
		}
	}
	s := &Server{cfg: cfg, log: cfg.Logger, metrics: newMetrics()}
	s.reg = newRegistry(&s.cfg, s.metrics, s.log)
	s.metrics.gauges = s.reg.gauges
	s.handler = s.routes()
	return s
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// StepObserver is where the engine's scheduler reports each forward pass (batch-size metrics).
func (s *Server) StepObserver() StepObserver { return s.metrics }

// Load loads the start-up models; /health answers 200 once it succeeds.
func (s *Server) Load(ctx context.Context) error {
	for _, p := range s.cfg.Models {
		e, err := s.reg.load(ctx, p, true)
		if err != nil {
			return err
		}
		s.reg.release(e, nil)
	}
	s.ready.Store(true)
	return nil
}

// Close unloads every model. Requests must have ended (Run closes the server itself).
func (s *Server) Close() error { return s.reg.close() }

// Run serves on ln until ctx ends, then shuts down gracefully: it stops accepting connections, lets running
// requests finish for up to Config.Grace, then cancels the rest (their generations stop within one step) and
// unloads the models. The start-up models load while it already answers (/health is 503 until they are
// loaded); a model that fails to load ends Run with that error.
func (s *Server) Run(ctx context.Context, ln net.Listener) error {
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	hs := &http.Server{Handler: s.handler, BaseContext: func(net.Listener) context.Context { return base },
		ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	loaded := make(chan error, 1)
	go func() { loaded <- s.Load(base) }()
	var loadErr error
	for waiting := true; waiting; {
		select {
		case <-ctx.Done():
			waiting = false
		case err := <-loaded:
			loaded = nil
			if err != nil {
				loadErr, waiting = err, false
			}
		case err := <-served: // the listener failed
			cancel()
			if loaded != nil {
				<-loaded
			}
			return errors.Join(err, s.Close())
		}
	}
	s.log.Info("shutting down", "grace", s.cfg.Grace.String())
	graceCtx, graceCancel := context.WithTimeout(context.Background(), s.cfg.Grace)
	defer graceCancel()
	err := hs.Shutdown(graceCtx)
	if err != nil {
		// The grace period is over: cancel the requests still running (their generations stop within one
		// step) and wait for their handlers to return.
		s.log.Warn("grace period over: cancelling the requests still running")
		cancel()
		waitCtx, waitCancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer waitCancel()
		if err = hs.Shutdown(waitCtx); err != nil {
			hs.Close()
		}
	}
	cancel()
	if loaded != nil {
		<-loaded
	}
	return errors.Join(loadErr, err, s.Close())
}

// ListenAndServe listens on addr and runs the server until ctx ends.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.log.Info("listening", "addr", ln.Addr().String())
	return s.Run(ctx, ln)
}

// route is one endpoint.
type route struct {
	method, path string
	api          apiKind
	h            func(w http.ResponseWriter, r *http.Request) error
}

func (s *Server) routeTable() []route {
	return []route{
		{"GET", "/health", kindNative, s.health},
		{"GET", "/metrics", kindNative, s.metricsHandler},
		{"POST", "/tokenize", kindNative, s.tokenize},
		{"POST", "/detokenize", kindNative, s.detokenize},
		{"POST", "/apply-template", kindNative, s.applyTemplate},
		{"GET", "/v1/models", kindOpenAI, s.oaiModels},
		{"GET", "/v1/models/{model...}", kindOpenAI, s.oaiModel},
		{"POST", "/v1/chat/completions", kindOpenAI, s.oaiChat},
		{"POST", "/v1/completions", kindOpenAI, s.oaiCompletions},
		{"POST", "/v1/responses", kindOpenAI, s.oaiResponses},
		{"POST", "/v1/embeddings", kindOpenAI, s.oaiEmbeddings},
		{"POST", "/embeddings", kindNative, s.oaiEmbeddings},
		{"POST", "/v1/rerank", kindOpenAI, s.rerank},
		{"POST", "/v1/reranking", kindOpenAI, s.rerank},
		{"POST", "/rerank", kindNative, s.rerank},
		{"POST", "/reranking", kindNative, s.rerank},
		{"POST", "/v1/messages", kindAnthropic, s.antMessages},
		{"POST", "/v1/messages/count_tokens", kindAnthropic, s.antCountTokens},
		{"POST", "/api/chat", kindOllama, s.ollamaChat},
		{"POST", "/api/generate", kindOllama, s.ollamaGenerate},
		{"POST", "/api/embed", kindOllama, s.ollamaEmbed},
		{"POST", "/api/embeddings", kindOllama, s.ollamaEmbeddings},
		{"GET", "/api/tags", kindOllama, s.ollamaTags},
		{"POST", "/api/show", kindOllama, s.ollamaShow},
		{"GET", "/api/ps", kindOllama, s.ollamaPS},
		{"GET", "/api/version", kindOllama, s.ollamaVersion},
		{"GET", "/{$}", kindOllama, s.root},
	}
}

// routes builds the handler: a mux of the route table behind the middleware (request id and log line, CORS,
// API key, body limit, panic recovery). Unknown paths and methods get JSON errors too.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	methods := map[string][]string{}
	for _, rt := range s.routeTable() {
		rt := rt
		mux.Handle(rt.method+" "+rt.path, s.wrap(rt))
		methods[rt.path] = append(methods[rt.path], rt.method)
	}
	page := web.Handler()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if web.IsPage(r.URL.Path) { // the chat page's files
			page.ServeHTTP(w, r)
			return
		}
		kind := apiOf(r.URL.Path)
		if ms, ok := methods[r.URL.Path]; ok {
			w.Header().Set("Allow", strings.Join(ms, ", "))
			writeError(w, r, kind, &apiError{status: http.StatusMethodNotAllowed, code: "method_not_allowed",
				msg: fmt.Sprintf("%s %s: method not allowed", r.Method, r.URL.Path)})
			return
		}
		writeError(w, r, kind, notFound("not_found", "no endpoint %s %s", r.Method, r.URL.Path))
	})
	return s.middleware(mux)
}

// wrap turns a route's handler into an http.Handler that writes its error in the API's shape and counts it.
func (s *Server) wrap(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := infoFrom(r.Context()); info != nil {
			info.api, info.endpoint = rt.api, rt.path
		}
		if err := rt.h(w, r); err != nil {
			if info := infoFrom(r.Context()); info != nil && info.wrote {
				return // a stream already started carries its own error event
			}
			writeError(w, r, rt.api, err)
		}
	})
}
