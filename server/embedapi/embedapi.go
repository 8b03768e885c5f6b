// Package embedapi handles the embedding and rerank requests of the HTTP APIs forma serves, as functions from a
// decoded request to a response, over a runtime.Model: OpenAI's POST /v1/embeddings, Ollama's POST /api/embed
// (and the older /api/embeddings), and llama-server's POST /v1/rerank (also its TEI-style shape with "texts").
// Package server decodes the JSON body into the request type, resolves the model, calls the function with the
// request's context and writes the response or the error in its API's shape.
//
// Inputs are validated before anything runs: an input of the wrong JSON type, an empty list or string, more than
// MaxInputs inputs, an unknown encoding format or a dimension count outside the model's are an *Error naming the
// field. Errors of the runtime pass through wrapped: runtime.ErrContextFull for a text longer than the model's
// context (Ollama's truncate, on by default, shortens it instead), runtime.ErrBadInput for tokens outside the
// vocabulary, runtime.ErrNoEmbeddings for a model that cannot embed or rank as asked.
package embedapi

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/forma-llm/forma/runtime"
)

// MaxInputs is the most inputs one request may carry (OpenAI's limit).
const MaxInputs = 2048

// Error is a request the API refuses (a 400): Param names the field at fault.
type Error struct{ Param, Msg string }

func (e *Error) Error() string { return e.Msg }

func badRequest(param, format string, args ...any) error {
	return &Error{Param: param, Msg: fmt.Sprintf(format, args...)}
}

// input is one element of an input list: a text, or tokens taken as they are.
type input struct {
	text   string
	tokens []int32
	isText bool
}

// parseInputs reads field: a string, an array of strings, an array of token ids (one input), or an array whose
// elements are strings or arrays of token ids (tokens only when tokensOK). Empty strings are refused unless
// emptyOK.
func parseInputs(field string, raw json.RawMessage, tokensOK, emptyOK bool) ([]input, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, badRequest(field, "%q is required", field)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" && !emptyOK {
			return nil, badRequest(field, "%q is an empty string", field)
		}
		return []input{{text: s, isText: true}}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, badRequest(field, "%q must be a string or an array, not %s", field, kind(raw))
	}
	if len(items) == 0 {
		return nil, badRequest(field, "%q must not be empty", field)
	}
	if len(items) > MaxInputs {
		return nil, badRequest(field, "%q has %d inputs, more than %d", field, len(items), MaxInputs)
	}
	var ids []int32
	if tokensOK && json.Unmarshal(raw, &ids) == nil {
		return []input{{tokens: ids}}, nil
	}
	out := make([]input, len(items))
	for i, it := range items {
		at := fmt.Sprintf("%s[%d]", field, i)
		if json.Unmarshal(it, &out[i].text) == nil {
			if out[i].text == "" && !emptyOK {
				return nil, badRequest(at, "%s is an empty string", at)
			}
			out[i].isText = true
			continue
		}
		if !tokensOK || json.Unmarshal(it, &out[i].tokens) != nil {
			what := "a string"
			if tokensOK {
				what = "a string or an array of token ids"
			}
			return nil, badRequest(at, "%s must be %s, not %s", at, what, kind(it))
		}
		if len(out[i].tokens) == 0 {
			return nil, badRequest(at, "%s has no tokens", at)
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
		return badRequest(field, "%q = %d: the model's vectors have %d dimensions", field, d, info.Dims)
	}
	return nil
}

// kind names the JSON type of raw for errors.
func kind(raw json.RawMessage) string {
	switch s := strings.TrimSpace(string(raw)); {
	case s == "":
		return "nothing"
	case s[0] == '"':
		return "a string"
	case s[0] == '[':
		return "an array"
	case s[0] == '{':
		return "an object"
	case s == "true" || s == "false":
		return "a boolean"
	case s == "null":
		return "null"
	}
	return "a number"
}

// base64Floats encodes v as OpenAI's base64 encoding format does: the little-endian float32 bytes.
func base64Floats(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}
