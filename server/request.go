package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"strings"

	"github.com/forma-llm/forma/runtime/sample"
)

// decode reads a request body into v strictly: malformed JSON, a value of the wrong type, an unknown field or
// data after the object are 400s naming what is wrong; a body over the limit is a 413.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		return badRequest("", "unexpected data after the JSON object")
	}
	return nil
}

// jsonError turns a decoding error into a 400 naming the field (or a 413 for a body over the limit).
func jsonError(err error) error {
	var mbe *http.MaxBytesError
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return err
	case errors.Is(err, io.EOF):
		return badRequest("", "the request body is empty: a JSON object is expected")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("", "malformed JSON: the body ends in the middle of a value")
	case errors.As(err, &se):
		return badRequest("", "malformed JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case errors.As(err, &te):
		got, _, _ := strings.Cut(te.Value, " ")
		return badRequest(te.Field, "expected %s, got %s", jsonTypeName(te.Type), got)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name = strings.Trim(name, `"`)
		return badRequest(name, "unknown field")
	}
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return badRequest("", "%s", strings.TrimPrefix(err.Error(), "json: "))
}

// jsonTypeName names the JSON type a Go type decodes from.
func jsonTypeName(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a " + t.String()
}

// jsonKind names the JSON type of raw (for type errors of polymorphic fields).
func jsonKind(raw []byte) string {
	s := strings.TrimSpace(string(raw))
	if s == "" {
		return "nothing"
	}
	switch s[0] {
	case '"':
		return "string"
	case '[':
		return "array"
	case '{':
		return "object"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// typeError is the error a polymorphic field's UnmarshalJSON returns; the decoder adds the field's path.
func typeError(raw []byte, want any) error {
	return &json.UnmarshalTypeError{Value: jsonKind(raw), Type: reflect.TypeOf(want)}
}

// stringList is a string or an array of strings (stop, stop_sequences).
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	switch jsonKind(b) {
	case "null":
		*l = nil
		return nil
	case "string":
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*l = stringList{s}
		return nil
	case "array":
		var ss []string
		if err := json.Unmarshal(b, &ss); err != nil {
			return typeError(b, "")
		}
		*l = ss
		return nil
	}
	return typeError(b, "")
}

// maxStops is the most stop strings a request may give (OpenAI's limit is 4; llama-server has none).
const maxStops = 16

func checkStops(field string, stops []string) error {
	if len(stops) > maxStops {
		return badRequest(field, "%d stop strings: at most %d", len(stops), maxStops)
	}
	return nil
}

// sampling holds the sampling fields a request may set; nil fields keep the model's defaults (its
// general.sampling.* keys, else llama.cpp's), as llama-server and Ollama do.
type sampling struct {
	temperature, topP, minP, typicalP, repeatPenalty, presence, frequency *float64
	topK, repeatLastN                                                     *int
	seed                                                                  *int64
	logitBias                                                             map[int32]float32
}

// options returns base with the request's values applied.
func (p *sampling) options(base sample.Options) sample.Options {
	f := func(dst *float32, v *float64) {
		if v != nil {
			*dst = float32(*v)
		}
	}
	f(&base.Temperature, p.temperature)
	f(&base.TopP, p.topP)
	f(&base.MinP, p.minP)
	f(&base.TypicalP, p.typicalP)
	f(&base.RepeatPenalty, p.repeatPenalty)
	f(&base.PresPenalty, p.presence)
	f(&base.FreqPenalty, p.frequency)
	if p.topK != nil {
		base.TopK = *p.topK
	}
	if p.repeatLastN != nil {
		base.RepeatLastN = *p.repeatLastN
	}
	if p.seed != nil {
		base.Seed = uint64(*p.seed)
		if base.Seed == sample.RandomSeed {
			base.Seed = 0 // -1 as a seed would mean "random": keep it repeatable
		}
	}
	if base.TopP == 0 {
		base.TopP = math.SmallestNonzeroFloat32 // OpenAI allows 0: keep only the most likely token
	}
	if p.logitBias != nil {
		base.LogitBias = p.logitBias
	}
	return base
}

// check validates every value against the ranges the samplers accept.
func (p *sampling) check() error {
	checks := []struct {
		name   string
		v      *float64
		lo, hi float64
	}{{"temperature", p.temperature, 0, math.MaxFloat32}, {"top_p", p.topP, 0, 1}, {"min_p", p.minP, 0, 1},
		{"typical_p", p.typicalP, math.SmallestNonzeroFloat32, 1}, {"repeat_penalty", p.repeatPenalty, 0, math.MaxFloat32},
		{"presence_penalty", p.presence, -math.MaxFloat32, math.MaxFloat32},
		{"frequency_penalty", p.frequency, -math.MaxFloat32, math.MaxFloat32}}
	for _, c := range checks {
		if err := inRange(c.name, c.v, c.lo, c.hi); err != nil {
			return err
		}
	}
	if p.minP != nil && *p.minP >= 1 {
		return badRequest("min_p", "%g must be below 1", *p.minP)
	}
	if p.topK != nil && *p.topK < 0 {
		return badRequest("top_k", "%d must not be negative", *p.topK)
	}
	if p.repeatLastN != nil && *p.repeatLastN < -1 {
		return badRequest("repeat_last_n", "%d must be -1 (the whole context) or more", *p.repeatLastN)
	}
	return nil
}

// inRange checks an optional number against [lo, hi] (NaN is out of every range).
func inRange(field string, v *float64, lo, hi float64) error {
	if v != nil && !(*v >= lo && *v <= hi) {
		return badRequest(field, "%g is out of range [%g, %g]", *v, lo, hi)
	}
	return nil
}

// maxTokens returns the generation limit from an optional field: nil is no limit (the context's end); 0 or
// less is a 400 (OpenAI's and Anthropic's APIs require at least 1).
func maxTokens(field string, v *int) (int, error) {
	if v == nil {
		return 0, nil
	}
	if *v < 1 {
		return 0, badRequest(field, "%d must be at least 1", *v)
	}
	return *v, nil
}

// logitBias converts OpenAI's logit_bias (token id strings to biases in [-100, 100]) for a vocabulary.
func logitBias(field string, m map[string]float64, vocab int) (map[int32]float32, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[int32]float32, len(m))
	for k, v := range m {
		var id int32
		if _, err := fmt.Sscan(k, &id); err != nil || fmt.Sprint(id) != k || id < 0 || int(id) >= vocab {
			return nil, badRequest(field, "key %q is not a token id of the model's vocabulary of %d", k, vocab)
		}
		if !(v >= -100 && v <= 100) {
			return nil, badRequest(field, "bias %g of token %s is out of range [-100, 100]", v, k)
		}
		if v == -100 {
			out[id] = float32(math.Inf(-1)) // as OpenAI: -100 bans the token
		} else {
			out[id] = float32(v)
		}
	}
	return out, nil
}
