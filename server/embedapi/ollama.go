package embedapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/forma-llm/forma/runtime"
)

// OllamaRequest is the body of Ollama's POST /api/embed.
type OllamaRequest struct {
	Model string          `json:"model"`
	Input json.RawMessage `json:"input"` // a string or an array of strings
	// Truncate shortens inputs longer than the context (Ollama's default: true); false makes them an error.
	Truncate   *bool           `json:"truncate"`
	Dimensions int             `json:"dimensions"`
	Options    json.RawMessage `json:"options"`    // accepted and ignored
	KeepAlive  json.RawMessage `json:"keep_alive"` // accepted and ignored
}

// OllamaResponse is the body of the answer: unit-length vectors, as Ollama returns them.
type OllamaResponse struct {
	Model           string      `json:"model"`
	Embeddings      [][]float32 `json:"embeddings"`
	TotalDuration   int64       `json:"total_duration"` // nanoseconds
	LoadDuration    int64       `json:"load_duration"`
	PromptEvalCount int         `json:"prompt_eval_count"`
}

// Ollama answers POST /api/embed with m; model names the model in the response.
func Ollama(ctx context.Context, m *runtime.Model, model string, req *OllamaRequest) (*OllamaResponse, error) {
	start := time.Now()
	in, err := parseInputs("input", req.Input, false)
	if err != nil {
		return nil, err
	}
	if err := dimensions(m, "dimensions", req.Dimensions); err != nil {
		return nil, err
	}
	opt := runtime.EmbedOptions{Dimensions: req.Dimensions, Truncate: req.Truncate == nil || *req.Truncate}
	toks, n, err := tokenize(m, in, opt)
	if err != nil {
		return nil, err
	}
	vecs, err := m.EmbedTokens(ctx, toks, opt)
	if err != nil {
		return nil, err
	}
	return &OllamaResponse{Model: model, Embeddings: vecs, PromptEvalCount: n, TotalDuration: int64(time.Since(start))}, nil
}

// OllamaLegacyRequest is the body of Ollama's older POST /api/embeddings.
type OllamaLegacyRequest struct {
	Model     string          `json:"model"`
	Prompt    string          `json:"prompt"`
	Options   json.RawMessage `json:"options"`    // accepted and ignored
	KeepAlive json.RawMessage `json:"keep_alive"` // accepted and ignored
}

// OllamaLegacyResponse is its answer: one vector, not normalised (as that endpoint returns it).
type OllamaLegacyResponse struct {
	Embedding []float32 `json:"embedding"`
}

// OllamaLegacy answers POST /api/embeddings.
func OllamaLegacy(ctx context.Context, m *runtime.Model, req *OllamaLegacyRequest) (*OllamaLegacyResponse, error) {
	opt := runtime.EmbedOptions{Normalize: runtime.NormNone, Truncate: true}
	vecs, err := m.Embed(ctx, []string{req.Prompt}, opt)
	if err != nil {
		return nil, err
	}
	return &OllamaLegacyResponse{Embedding: vecs[0]}, nil
}
