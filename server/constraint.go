package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/grammar/jsonschema"
	"github.com/forma-llm/forma/runtime/toolcall"
)

// shape is what a request asks of the form of its answer, in the engine's terms: the tools the model may call
// and how, or the answer's format (a JSON object, or JSON valid against a schema). Each API reads its own
// fields into one (openai.go, responses.go, anthropic.go, ollama.go) before it loads a model; check refuses
// what the engine cannot enforce, and apply sets the generation options. Nothing is ever answered
// unconstrained: a schema with a keyword the engine cannot enforce is a 400 naming the field and the keyword.
type shape struct {
	tools    []toolcall.Tool
	choice   toolcall.Choice
	parallel bool
	json     bool            // any JSON object
	schema   json.RawMessage // JSON valid against this schema

	// The request's names, for errors: of the tools, of tool i's parameters (a format with %d), of the
	// format, and of the format's schema.
	toolsField, paramsField, formatField, schemaField string
}

// calls reports whether the answer may or must be tool calls (tools given, tool_choice not none).
func (s *shape) calls() bool { return len(s.tools) > 0 && s.choice.Mode != toolcall.None }

func (s *shape) formatted() bool { return s.json || s.schema != nil }

// readTools parses tools in OpenAI's Chat Completions shape ([{"type": "function", "function": {…}}]); other
// APIs convert theirs to it first.
func (s *shape) readTools(raw json.RawMessage) error {
	if !hasJSON(raw) {
		return nil
	}
	tools, err := toolcall.ParseTools(raw)
	if err != nil {
		return badRequest(s.toolsField, "%s", strings.TrimPrefix(err.Error(), "toolcall: "))
	}
	s.tools = tools
	return nil
}

// readChoice parses tool_choice in OpenAI's Chat Completions shape ("auto", "none", "required", or
// {"type": "function", "function": {"name": …}}). A choice that asks for a call needs tools.
func (s *shape) readChoice(field string, raw json.RawMessage) error {
	c, err := toolcall.ParseChoice(raw, s.tools)
	if err != nil {
		return badRequest(field, "%s", strings.TrimPrefix(err.Error(), "toolcall: "))
	}
	if c.Mode == toolcall.Required && len(s.tools) == 0 {
		return badRequest(field, "asks for a tool call, and the request has no tools")
	}
	s.choice = c
	return nil
}

// setSchema sets the format to a JSON Schema (an absent or null schema: any JSON value).
func (s *shape) setSchema(schema json.RawMessage) error {
	schema = bytes.TrimSpace(schema)
	if !hasJSON(schema) {
		schema = json.RawMessage("{}")
	}
	if k := jsonKind(schema); k != "object" && k != "bool" {
		return badRequest(s.schemaField, "expected a JSON Schema (an object), got %s", k)
	}
	s.schema = schema
	return nil
}

// check refuses what the engine cannot enforce: tool calls and a format for one answer, and a schema (a
// format's, or the parameters of a tool the model may call) with a keyword it cannot enforce.
func (s *shape) check() error {
	if s.calls() && s.formatted() {
		return badRequest(s.formatField, "cannot be combined with %s: an answer is constrained to tool calls or "+
			"to a format, not both (tool_choice none keeps the tools in the prompt and lets the format apply)", s.toolsField)
	}
	if s.calls() {
		for i, t := range s.tools {
			if err := checkSchema(fmt.Sprintf(s.paramsField, i), t.Parameters); err != nil {
				return err
			}
		}
	}
	if s.schema != nil {
		return checkSchema(s.schemaField, s.schema)
	}
	return nil
}

// checkSchema compiles a schema as the engine will: a keyword it cannot enforce is a 400 naming it.
func checkSchema(field string, schema json.RawMessage) error {
	if _, err := jsonschema.Compile(schema, jsonschema.Options{}); err != nil {
		return &apiError{status: http.StatusBadRequest, code: "unsupported_schema", param: field,
			msg: fmt.Sprintf("%s: the schema cannot be enforced: %v", field, err)}
	}
	return nil
}

// checkModel refuses tool calls for a model whose chat template has no tool-call syntax: nothing could
// constrain or read its calls.
func (s *shape) checkModel(e *modelEntry) error {
	if s.calls() && !e.family.SupportsTools() {
		return badRequest(s.toolsField, "model %s's chat template has no tool-call syntax that forma knows "+
			"(family %s): it cannot call tools (tool_choice none keeps them in the prompt only)", e.name, e.family)
	}
	return nil
}

// apply sets the generation options, and the field to name if the engine still refuses the constraint.
func (s *shape) apply(req *genRequest) {
	req.opt.Tools, req.opt.ToolChoice, req.opt.ParallelToolCalls = s.tools, s.choice, s.parallel
	req.opt.JSON, req.opt.JSONSchema = s.json, s.schema
	req.constraintField = s.formatField
	if s.calls() {
		req.constraintField = s.toolsField
	}
}

// constraintError turns the engine's refusal of a constraint (returned before any token) into a 400 naming the
// request's field; other errors are returned as they are.
func constraintError(field string, err error) error {
	if errors.Is(err, runtime.ErrConstraint) || errors.Is(err, runtime.ErrToolsAndFormat) {
		return &apiError{status: http.StatusBadRequest, code: "unsupported_schema", param: field, msg: field + ": " + err.Error()}
	}
	return err
}

// decodeStrict decodes a sub-object of a request (one the request keeps raw) as strictly as the request: an
// unknown field or a wrong type is a 400 naming it under field.
func decodeStrict(field string, raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok { // the decoder gives no path
			return badRequest(field, "unknown field %s", name)
		}
		var ae *apiError
		if errors.As(jsonError(err), &ae) {
			if ae.param != "" {
				return badRequest(field+"."+ae.param, "%s", strings.TrimPrefix(ae.msg, ae.param+": "))
			}
			return badRequest(field, "%s", ae.msg)
		}
		return badRequest(field, "%v", err)
	}
	return nil
}

// asString returns a raw value's string, if it is one.
func asString(raw json.RawMessage) (string, bool) {
	var s string
	if jsonKind(raw) != "string" || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// callArguments reads the arguments of a tool call of an earlier turn for the chat template: a JSON object, or
// a JSON string holding one (OpenAI's wire form); nothing is {}.
func callArguments(field string, raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if s, ok := asString(raw); ok {
		raw = bytes.TrimSpace([]byte(s))
	}
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	if jsonKind(raw) != "object" || !json.Valid(raw) {
		return nil, badRequest(field, "the arguments of a tool call must be a JSON object")
	}
	return raw, nil
}

// functionTool writes a tool in OpenAI's Chat Completions shape, the one toolcall.ParseTools reads and chat
// templates print; the schema's key order is kept.
func functionTool(name, description string, parameters json.RawMessage) json.RawMessage {
	var t struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Parameters  json.RawMessage `json:"parameters,omitempty"`
		} `json:"function"`
	}
	t.Type, t.Function.Name, t.Function.Description = "function", name, description
	if hasJSON(parameters) {
		t.Function.Parameters = parameters
	}
	b, _ := json.Marshal(t) // parameters were decoded from the request: valid JSON
	return b
}

// namedChoice writes a tool_choice naming a function in OpenAI's Chat Completions shape.
func namedChoice(name string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": name}})
	return b
}
