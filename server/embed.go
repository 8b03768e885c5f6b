package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/server/embedapi"
)

// Embeddings and reranking. The handlers decode their API's body strictly, resolve the model through the
// registry as chat requests do, and run package embedapi's function for the API. They use no session: an
// embedding request runs the model's own embedding passes (Model.EmbedTokens, Model.Rerank), which keep a
// scratch cache of their own and run one pass at a time per model, beside the engine's chat passes (a backend
// runs several programs at once). So chat and embeddings on one model neither wait for each other's sequences
// nor share state; embedding requests of one model take turns pass by pass. At most Config.Parallel +
// Config.MaxQueue embedding requests per model are admitted at once; more get the queue-full 503.

// embeds is a model's admission of embedding requests: a slot per request running or waiting for a pass.
type embeds chan struct{}

func newEmbeds(parallel, maxQueue int) embeds { return make(embeds, max(parallel, 1)+max(maxQueue, 0)) }

// enter admits a request or refuses it with 503; leave ends it.
func (q embeds) enter() error {
	select {
	case q <- struct{}{}:
		return nil
	default:
		return errQueueFull
	}
}

func (q embeds) leave() { <-q }

// embedModel acquires the request's model for embeddings or ranking: it must be loaded (or loadable) and admit
// the request. A request that names no model gets the first loaded one that can serve it (else the default
// model, which says why it cannot). Release it with the function returned.
func (s *Server) embedModel(r *http.Request, name string, rank bool) (*modelEntry, func(*time.Duration), error) {
	if name == "" {
		for _, e := range s.reg.list() {
			if embedCapable(e, rank) == nil {
				name = e.name
				break
			}
		}
	}
	e, err := s.acquireModel(r, name)
	if err != nil {
		return nil, nil, err
	}
	if err := embedCapable(e, rank); err != nil {
		s.reg.release(e, nil)
		return nil, nil, err
	}
	if err := e.embeds.enter(); err != nil {
		s.reg.release(e, nil)
		return nil, nil, err
	}
	return e, func(ka *time.Duration) { e.embeds.leave(); s.reg.release(e, ka) }, nil
}

// embedCapable refuses, before any work, a model that has no embeddings (a chat model whose file sets no
// pooling) or, for ranking, no rank head, naming what the model is.
func embedCapable(e *modelEntry, rank bool) error {
	info, ok := e.m.EmbedInfo()
	switch {
	case rank && (!ok || info.Classes == 0):
		what := "a text-generation model"
		if ok && info.Pooling != runtime.PoolNone {
			what = "an embedding model: use /v1/embeddings with it"
		}
		return modelUnsupported("model %s is not a reranker (it has no rank head; it is %s); /v1/rerank needs "+
			"a reranker such as bge-reranker", e.name, what)
	case !ok || (!rank && info.Pooling == runtime.PoolNone):
		return modelUnsupported("model %s does not produce embeddings (its file sets no pooling type: it is a "+
			"text-generation model); use an embedding model such as bge, nomic-embed-text or Qwen3-Embedding", e.name)
	case !rank && info.Pooling == runtime.PoolRank:
		return modelUnsupported("model %s is a reranker (rank pooling): use /v1/rerank with it", e.name)
	}
	return nil
}

// generative refuses a text-generation request to a model that only embeds or ranks.
func generative(e *modelEntry) error {
	info, ok := e.m.EmbedInfo()
	if ok && (info.Encoder || info.Pooling != runtime.PoolNone) {
		return modelUnsupported("model %s is an embedding model (pooling %s): it does not generate text; "+
			"use /v1/embeddings or /api/embed (or /v1/rerank for a reranker)", e.name, info.Pooling)
	}
	return nil
}

// acquireGenModel is acquireModel for the endpoints that generate text.
func (s *Server) acquireGenModel(r *http.Request, name string) (*modelEntry, error) {
	e, err := s.acquireModel(r, name)
	if err != nil {
		return nil, err
	}
	if err := generative(e); err != nil {
		s.reg.release(e, nil)
		return nil, err
	}
	return e, nil
}

func modelUnsupported(format string, args ...any) *apiError {
	return &apiError{status: http.StatusBadRequest, code: "model_not_supported", param: "model",
		msg: fmt.Sprintf(format, args...)}
}

// embedError turns an error of package embedapi or of the runtime's embedding passes into an apiError; field
// names the request's inputs.
func embedError(err error, field string) error {
	var ee *embedapi.Error
	switch {
	case errors.As(err, &ee):
		return &apiError{status: http.StatusBadRequest, code: "invalid_value", param: ee.Param, msg: ee.Msg}
	case errors.Is(err, runtime.ErrContextFull):
		return &apiError{status: http.StatusBadRequest, code: "context_length_exceeded", param: field,
			msg: err.Error() + "; shorten it, or start the server with a larger -c up to the model's training context"}
	case errors.Is(err, runtime.ErrBadInput):
		return &apiError{status: http.StatusBadRequest, code: "invalid_value", param: field, msg: err.Error()}
	case errors.Is(err, runtime.ErrNoEmbeddings):
		return modelUnsupported("%v", err)
	case errors.Is(err, runtime.ErrClosed):
		return errClosing
	}
	return err
}

// embedDone records an embedding request's inputs and tokens for the log line and the metrics.
func (s *Server) embedDone(ctx context.Context, inputs, tokens int) {
	if info := infoFrom(ctx); info != nil {
		info.inputs, info.embedTokens = inputs, tokens
	}
	s.metrics.addEmbeddings(inputs, tokens)
}

// oaiEmbeddings is POST /v1/embeddings (also llama-server's /embeddings).
func (s *Server) oaiEmbeddings(w http.ResponseWriter, r *http.Request) error {
	var q embedapi.OpenAIRequest
	if err := decode(r, &q); err != nil {
		return err
	}
	e, release, err := s.embedModel(r, q.Model, false)
	if err != nil {
		return err
	}
	defer release(nil)
	res, err := embedapi.OpenAI(r.Context(), e.m, e.name, &q)
	if err != nil {
		return embedError(err, "input")
	}
	s.embedDone(r.Context(), len(res.Data), res.Usage.PromptTokens)
	writeJSON(w, http.StatusOK, res)
	return nil
}

// ollamaEmbedRequest is /api/embed's body with the keep_alive the registry honours.
type ollamaEmbedRequest struct {
	embedapi.OllamaRequest
	KeepAlive *ollamaDuration `json:"keep_alive"`
}

func (q *ollamaEmbedRequest) keepAlive() *time.Duration {
	if q.KeepAlive == nil {
		return nil
	}
	return &q.KeepAlive.d
}

// ollamaEmbed is Ollama's POST /api/embed.
func (s *Server) ollamaEmbed(w http.ResponseWriter, r *http.Request) error {
	start := time.Now()
	var q ollamaEmbedRequest
	if err := decode(r, &q); err != nil {
		return err
	}
	e, release, err := s.embedModel(r, q.Model, false)
	if err != nil {
		return err
	}
	defer func() { release(q.keepAlive()) }()
	res, err := embedapi.Ollama(r.Context(), e.m, e.name, &q.OllamaRequest)
	if err != nil {
		return embedError(err, "input")
	}
	if e.loadedAt.After(start) { // loaded for this request
		res.LoadDuration = e.loadTime.Nanoseconds()
	}
	res.TotalDuration = time.Since(start).Nanoseconds()
	s.embedDone(r.Context(), len(res.Embeddings), res.PromptEvalCount)
	writeJSON(w, http.StatusOK, res)
	return nil
}

// ollamaEmbeddings is Ollama's older POST /api/embeddings: one prompt, a vector that is not normalised.
func (s *Server) ollamaEmbeddings(w http.ResponseWriter, r *http.Request) error {
	var q struct {
		embedapi.OllamaLegacyRequest
		KeepAlive *ollamaDuration `json:"keep_alive"`
	}
	if err := decode(r, &q); err != nil {
		return err
	}
	e, release, err := s.embedModel(r, q.Model, false)
	if err != nil {
		return err
	}
	defer func() {
		var ka *time.Duration
		if q.KeepAlive != nil {
			ka = &q.KeepAlive.d
		}
		release(ka)
	}()
	res, tokens, err := embedapi.OllamaLegacy(r.Context(), e.m, &q.OllamaLegacyRequest)
	if err != nil {
		return embedError(err, "prompt")
	}
	s.embedDone(r.Context(), min(tokens, 1), tokens)
	writeJSON(w, http.StatusOK, res)
	return nil
}

// rerank is llama-server's POST /v1/rerank (and its aliases /rerank, /reranking, /v1/reranking).
func (s *Server) rerank(w http.ResponseWriter, r *http.Request) error {
	var q embedapi.RerankRequest
	if err := decode(r, &q); err != nil {
		return err
	}
	e, release, err := s.embedModel(r, q.Model, true)
	if err != nil {
		return err
	}
	defer release(nil)
	res, docs, tokens, err := embedapi.Rerank(r.Context(), e.m, e.name, &q)
	if err != nil {
		return embedError(err, "documents")
	}
	s.embedDone(r.Context(), docs, tokens)
	writeJSON(w, http.StatusOK, res)
	return nil
}
