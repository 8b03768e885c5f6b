package main

import (
	"errors"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/forma-llm/forma/internal/chatstub"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/web"
)

// apiConfig is what the app serves: models and how to run them.
type apiConfig struct {
	models []string      // model files: GGUF files, or bundles (the executable itself, for a bundle's own model)
	ctx    int           // context per session (0: the runtime's default)
	be     *backendFlags // opens a backend per model
}

// newAPI builds the app's server: the chat page at / and the OpenAI-compatible API over the models. It returns
// the handler and a function that frees what it loaded.
//
// This is the seam for package server: when it lands, its handler over the same models replaces chatstub here
// (it mounts web.Handler at / itself).
func newAPI(c apiConfig) (http.Handler, func() error, error) {
	var models []chatstub.Model
	var closers []func()
	closeAll := func() error {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
		return nil
	}
	for _, path := range c.models {
		m, closeModel, err := c.be.load(path)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, closeModel)
		models = append(models, chatstub.Model{Name: modelName(path), Model: m})
	}
	api, err := chatstub.New(models, runtime.SessionOptions{Ctx: c.ctx, KV: c.be.kvType})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/v1/", api)
	mux.Handle("/", web.Handler())
	return mux, func() error { return errors.Join(api.Close(), closeAll()) }, nil
}

// modelName is the name the API gives a model file: its name without .gguf (or .exe, for a bundle).
func modelName(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".gguf", ".exe"} {
		if strings.HasSuffix(strings.ToLower(base), ext) {
			return base[:len(base)-len(ext)]
		}
	}
	return base
}
