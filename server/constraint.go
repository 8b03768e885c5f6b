package server

import (
	"encoding/json"

	"github.com/forma-llm/forma/runtime"
)

// structured is what a request asks of the form of its answer, in its API's own JSON: the tools the model may
// call, how it must call them, and the answer's format (OpenAI's response_format and text.format, Anthropic's
// output_config.format, Ollama's format). Each handler gathers it; constrain turns it into generation options.
type structured struct {
	tools, toolChoice, format                json.RawMessage
	toolsField, toolChoiceField, formatField string // the request's names for them, for errors
}

// constrain applies s to opt; with opt nil it only checks s (handlers check before they load a model). Until the grammar engine and the tool-call parser land, it refuses every request
// for structure (tools, a tool choice that asks for a call, a format other than plain text) with a 400 naming
// the field, so that no answer comes back silently unconstrained. Wiring them in replaces this function's body
// (and newOutputParser gains the tool-call parser).
func constrain(s structured, opt *runtime.GenerateOptions) error {
	switch {
	case hasJSON(s.tools) && string(s.tools) != "[]":
		return notSupported(s.toolsField)
	case hasJSON(s.toolChoice) && !asksNoCall(s.toolChoice):
		return notSupported(s.toolChoiceField)
	case hasJSON(s.format) && !textFormat(s.format):
		return notSupported(s.formatField)
	}
	return nil
}

// asksNoCall reports whether a tool choice asks for nothing: "none" or "auto" (OpenAI, Responses), or an object
// of those types (Anthropic).
func asksNoCall(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s == "none" || s == "auto"
	}
	var o struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(raw, &o) == nil && (o.Type == "none" || o.Type == "auto")
}

// textFormat reports whether a format asks for plain text: {"type": "text"}, or Ollama's "".
func textFormat(raw json.RawMessage) bool {
	if string(raw) == `""` {
		return true
	}
	var o struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(raw, &o) == nil && o.Type == "text"
}
