package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/server"
)

func init() {
	register(command{name: "serve", summary: "serve models over OpenAI, Anthropic and Ollama APIs (like llama-server)", run: runServe})
}

func runServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", "[flags] [-m MODEL]... [MODEL]...", stderr)
	be := addBackendFlags(fs, stderr)
	var models, keys, cors stringList
	fs.Var(&models, "m", "model `file` or name to load at start (repeatable)")
	fs.Var(&models, "model", "same as -m")
	host := fs.String("host", "127.0.0.1", "`address` to listen on (0.0.0.0: every interface)")
	port := fs.Int("port", 8080, "`port` to listen on")
	parallel := fs.Int("parallel", server.DefaultParallel, "sequences of one model generating at once (`N`)")
	fs.IntVar(parallel, "np", server.DefaultParallel, "same as --parallel")
	ctxSize := fs.Int("c", 0, "context size of each sequence in `tokens` (0: 4096, or the model's training context if smaller)")
	fs.IntVar(ctxSize, "ctx-size", 0, "same as -c")
	batch := fs.Int("batch", runtime.DefaultBatch, "prompt `tokens` evaluated per pass")
	maxQueue := fs.Int("max-queue", server.DefaultMaxQueue, "requests that may wait for a sequence per model; more get 503 (`N`, 0: none)")
	keepAlive := fs.Duration("keep-alive", server.DefaultKeepAlive, "how long a model loaded on demand stays loaded without requests (`duration`, negative: forever)")
	fs.Var(&keys, "api-key", "require this `key` (Authorization: Bearer or x-api-key) on every endpoint but /health (repeatable; also $FORMA_API_KEY)")
	fs.Var(&cors, "cors", "allow browser calls from this `origin` (repeatable; * for any)")
	grace := fs.Duration("grace", server.DefaultGrace, "on SIGINT/SIGTERM, how long running requests may finish before they are cancelled")
	maxBody := fs.Int64("max-body", server.DefaultMaxBody, "largest request body in `bytes` (413 past it)")
	template := fs.String("chat-template", "", "chat template of every model: Jinja `file` or a built-in name")
	logJSON := fs.Bool("log-json", false, "log as JSON lines instead of text")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return errUsage
	}
	models = append(models, pos...)
	if k := os.Getenv("FORMA_API_KEY"); k != "" {
		keys = append(keys, k)
	}
	if *port < 0 || *port > 65535 {
		return fmt.Errorf("--port %d: out of range", *port)
	}
	if *ctxSize < 0 || *batch < 1 || *parallel < 1 {
		return errors.New("need -c ≥ 0, --batch ≥ 1 and --parallel ≥ 1")
	}
	b, err := be.open() // check the backend and KV type flags before anything starts
	if err != nil {
		return err
	}
	b.Close()
	if *maxQueue == 0 {
		*maxQueue = -1 // no queue (Config's 0 is the default)
	}
	tmplSrc, err := templateOverride(*template)
	if err != nil {
		return err
	}
	paths := make([]string, len(models))
	for i, m := range models {
		if paths[i], err = resolveModel(m); err != nil {
			return err
		}
	}
	var h slog.Handler = slog.NewTextHandler(stderr, nil)
	if *logJSON {
		h = slog.NewJSONHandler(stderr, nil)
	}
	ka := *keepAlive
	if ka == 0 {
		ka = time.Nanosecond // unload as soon as idle
	}
	cfg := server.Config{
		Models:  paths,
		Resolve: resolveModel,
		Load: func(path string, opt runtime.Options) (*runtime.Model, func() error, error) {
			opt.ChatTemplate = tmplSrc
			m, closeAll, err := be.loadModel(path, opt, false)
			if err != nil {
				return nil, nil, err
			}
			return m, func() error { closeAll(); return nil }, nil
		},
		Session:   runtime.SessionOptions{Ctx: *ctxSize, KV: be.kvType, Batch: *batch},
		Parallel:  *parallel,
		MaxQueue:  *maxQueue,
		KeepAlive: ka,
		APIKeys:   keys,
		CORS:      cors,
		MaxBody:   *maxBody,
		Grace:     *grace,
		Logger:    slog.New(h),
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return server.New(cfg).ListenAndServe(ctx, net.JoinHostPort(*host, strconv.Itoa(*port)))
}
