// Package embedapi handles the embedding and rerank requests of the HTTP APIs forma serves, as functions from a
// decoded request to a response, over a runtime.Model: OpenAI's POST /v1/embeddings, Ollama's POST /api/embed
// (and the older /api/embeddings), and llama-server's POST /v1/rerank (also its TEI-style /rerank with "texts").
// The server decodes the JSON body into the request type, calls the function with the request's context, and
// writes the response as JSON, or for an error the HTTP status Status gives with the error's message.
//
// Inputs are validated before anything runs: an input of the wrong JSON type, an empty list, more than
// MaxInputs inputs, an unknown encoding format or a dimension count outside the model's are errors of status
// 400 naming the field; a text longer than the model's context is 400 too (Ollama's truncate, on by default,
// shortens it instead); a model that cannot embed or rank as asked is 501.
package embedapi

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/forma-llm/forma/runtime"
)

// MaxInputs is the most inputs one request may carry (OpenAI's limit).
const MaxInputs = 2048

// Error is a request the API refuses; Status maps it to 400.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func badRequest(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Status is the HTTP status for an error of this package's functions: 400 for a bad request (Error, a text over
// the context, tokens outside the vocabulary), 501 for a model without the embeddings or ranking asked for, 503 for a closed model, 500 else.
func Status(err error) int {
	var e *Error
	switch {
	case errors.As(err, &e), errors.Is(err, runtime.ErrContextFull), errors.Is(err, runtime.ErrBadInput):
		return http.StatusBadRequest
	case errors.Is(err, runtime.ErrNoEmbeddings):
		return http.StatusNotImplemented
	case errors.Is(err, runtime.ErrClosed):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// input is one element of an input list: a text, or tokens taken as they are.
type input struct {
	text   string
	tokens []int32
	isText bool
}

// parseInputs reads field: a string, an array of strings, an array of token ids (one input), or an array whose
// elements are strings or arrays of token ids (tokens only when tokensOK).
func parseInputs(field string, raw json.RawMessage, tokensOK bool) ([]input, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, badRequest("%q is required", field)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []input{{text: s, isText: true}}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, badRequest("%q must be a string or an array", field)
	}
	if len(items) == 0 {
		return nil, badRequest("%q must not be empty", field)
	}
	if len(items) > MaxInputs {
		return nil, badRequest("%q has %d inputs, more than %d", field, len(items), MaxInputs)
	}
	var ids []int32
	if tokensOK && json.Unmarshal(raw, &ids) == nil {
		return []input{{tokens: ids}}, nil
	}
	out := make([]input, len(items))
	for i, it := range items {
		if json.Unmarshal(it, &out[i].text) == nil {
			out[i].isText = true
			continue
		}
		if !tokensOK || json.Unmarshal(it, &out[i].tokens) != nil {
			what := "a string"
			if tokensOK {
				what = "a string or an array of token ids"
			}
			return nil, badRequest("%s[%d] must be %s", field, i, what)
		}
		if len(out[i].tokens) == 0 {
			return nil, badRequest("%s[%d] has no tokens", field, i)
		}
	}
	return out, nil
}

// tokenize turns inputs into the tokens Embed evaluates and counts them.
func tokenize(m *runtime.Model, in []input, opt runtime.EmbedOptions) ([][]int32, int, error) {
	toks := make([][]int32, len(in))
	n := 0
	for i, it := range in {
		toks[i] = it.tokens
		if it.isText {
			var err error
			if toks[i], err = m.EmbedTokenize(it.text, opt); err != nil {
				return nil, 0, err
			}
		}
		n += len(toks[i])
	}
	return toks, n, nil
}

// dimensions checks a requested dimension count (0: the model's).
func dimensions(m *runtime.Model, field string, d int) error {
	info, ok := m.EmbedInfo()
	if d < 0 || (ok && d > info.Dims) {
		return badRequest("%q = %d: the model's vectors have %d dimensions", field, d, info.Dims)
	}
	return nil
}

// base64Floats encodes v as OpenAI's base64 encoding format does: the little-endian float32 bytes.
func base64Floats(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}
