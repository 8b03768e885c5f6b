package embedapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/forma-llm/forma/runtime"
)

// OllamaRequest is the body of Ollama's POST /api/embed (the server adds keep_alive).
type OllamaRequest struct {
	Model string `json:"model"`
	// Input is a string or an array of strings. None (absent, "" or []) only loads the model, as Ollama does:
	// the answer has no embeddings.
	Input json.RawMessage `json:"input"`
	// Truncate shortens inputs longer than the context (Ollama's default: true); false makes them an error.
	Truncate   *bool           `json:"truncate"`
	Dimensions int             `json:"dimensions"`
	Options    json.RawMessage `json:"options"` // accepted and ignored
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
	if noInput(req.Input) {
		return &OllamaResponse{Model: model, Embeddings: [][]float32{}}, nil
	}
	in, err := parseInputs("input", req.Input, false, true)
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

// noInput reports an absent input, an empty string or an empty array.
func noInput(raw json.RawMessage) bool {
	var s string
	var a []json.RawMessage
	return len(raw) == 0 || string(raw) == "null" || (json.Unmarshal(raw, &s) == nil && s == "") ||
		(json.Unmarshal(raw, &a) == nil && len(a) == 0)
}

// OllamaLegacyRequest is the body of Ollama's older POST /api/embeddings (the server adds keep_alive).
type OllamaLegacyRequest struct {
	Model   string          `json:"model"`
	Prompt  string          `json:"prompt"`  // "" only loads the model (the answer's vector is empty)
	Options json.RawMessage `json:"options"` // accepted and ignored
}

// OllamaLegacyResponse is its answer: one vector, not normalised (as that endpoint returns it).
type OllamaLegacyResponse struct {
	Embedding []float32 `json:"embedding"`
}

// OllamaLegacy answers POST /api/embeddings; it also returns the tokens evaluated.
func OllamaLegacy(ctx context.Context, m *runtime.Model, req *OllamaLegacyRequest) (*OllamaLegacyResponse, int, error) {
	if req.Prompt == "" {
		return &OllamaLegacyResponse{Embedding: []float32{}}, 0, nil
	}
	opt := runtime.EmbedOptions{Normalize: runtime.NormNone, Truncate: true}
	ids, err := m.EmbedTokenize(req.Prompt, opt)
	if err != nil {
		return nil, 0, err
	}
	vecs, err := m.EmbedTokens(ctx, [][]int32{ids}, opt)
	if err != nil {
		return nil, 0, err
	}
	return &OllamaLegacyResponse{Embedding: vecs[0]}, len(ids), nil
}
