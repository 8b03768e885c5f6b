package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/server"
)

// apiConfig is what the app serves: models and how to run them.
type apiConfig struct {
	models []string      // model files: GGUF files, or bundles (the executable itself, for a bundle's own model)
	ctx    int           // context per session (0: the runtime's default)
	be     *backendFlags // opens a backend per model
}

// newAPI builds the app's server: forma serve's handler (the chat page at / and the APIs) over the models,
// loaded before it returns. It returns the handler and a function that frees what it loaded.
func newAPI(c apiConfig) (http.Handler, func() error, error) {
	srv := server.New(server.Config{
		Models: c.models,
		Load: func(path string, opt runtime.Options) (*runtime.Model, func() error, error) {
			m, closeAll, err := c.be.loadModel(path, opt, false)
			if err != nil {
				return nil, nil, err
			}
			return m, func() error { closeAll(); return nil }, nil
		},
		Session:  runtime.SessionOptions{Ctx: c.ctx, KV: c.be.kvType},
		Parallel: 2,
		Logger:   slog.New(slog.DiscardHandler),
	})
	if err := srv.Load(context.Background()); err != nil {
		srv.Close()
		return nil, nil, err
	}
	return srv.Handler(), srv.Close, nil
}
