package embedapi

import (
	"context"
	"encoding/json"

	"github.com/forma-llm/forma/runtime"
)

// OpenAIRequest is the body of OpenAI's POST /v1/embeddings.
type OpenAIRequest struct {
	Model string `json:"model"`
	// Input is a string, an array of strings, an array of token ids, or an array of token-id arrays (mixed with
	// strings, as llama-server takes them). Texts get the vocabulary's special tokens; token arrays are taken
	// as they are.
	Input json.RawMessage `json:"input"`
	// EncodingFormat is "float" (the default) or "base64" (the little-endian float32 bytes).
	EncodingFormat string `json:"encoding_format"`
	// Dimensions keeps each vector's first values, renormalised (Matryoshka embeddings); at least 1.
	Dimensions *int   `json:"dimensions"`
	User       string `json:"user"` // accepted and ignored
}

// OpenAIResponse is the body of the answer.
type OpenAIResponse struct {
	Object string            `json:"object"` // "list"
	Data   []OpenAIEmbedding `json:"data"`
	Model  string            `json:"model"`
	Usage  OpenAIUsage       `json:"usage"`
}

// OpenAIEmbedding is one input's vector: []float32, or a base64 string.
type OpenAIEmbedding struct {
	Object    string `json:"object"` // "embedding"
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"`
}

// OpenAIUsage counts the tokens evaluated.
type OpenAIUsage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// OpenAI answers POST /v1/embeddings with m; model names the model in the response.
func OpenAI(ctx context.Context, m *runtime.Model, model string, req *OpenAIRequest) (*OpenAIResponse, error) {
	in, err := parseInputs("input", req.Input, true, false)
	if err != nil {
		return nil, err
	}
	if req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64" {
		return nil, badRequest("encoding_format", "\"encoding_format\" %q: float or base64", req.EncodingFormat)
	}
	dims := 0
	if req.Dimensions != nil {
		if dims = *req.Dimensions; dims < 1 {
			return nil, badRequest("dimensions", "\"dimensions\" = %d must be at least 1", dims)
		}
	}
	if err := dimensions(m, "dimensions", dims); err != nil {
		return nil, err
	}
	opt := runtime.EmbedOptions{Dimensions: dims}
	toks, n, err := tokenize(m, in, opt)
	if err != nil {
		return nil, err
	}
	vecs, err := m.EmbedTokens(ctx, toks, opt)
	if err != nil {
		return nil, err
	}
	res := &OpenAIResponse{Object: "list", Model: model, Data: make([]OpenAIEmbedding, len(vecs)),
		Usage: OpenAIUsage{PromptTokens: n, TotalTokens: n}}
	for i, v := range vecs {
		res.Data[i] = OpenAIEmbedding{Object: "embedding", Index: i, Embedding: v}
		if req.EncodingFormat == "base64" {
			res.Data[i].Embedding = base64Floats(v)
		}
	}
	return res, nil
}
