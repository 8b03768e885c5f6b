package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/chat"
)

// oaiResponsesRequest is OpenAI's Responses API request, served statelessly (as llama-server maps it onto chat):
// nothing is stored, so previous_response_id is refused.
type oaiResponsesRequest struct {
	Model              string                     `json:"model"`
	Input              respInput                  `json:"input"`
	Instructions       string                     `json:"instructions"`
	MaxOutputTokens    *int                       `json:"max_output_tokens"`
	Stream             bool                       `json:"stream"`
	Temperature        *float64                   `json:"temperature"`
	TopP               *float64                   `json:"top_p"`
	TopLogprobs        *int                       `json:"top_logprobs"`
	Text               *respText                  `json:"text"`
	Reasoning          json.RawMessage            `json:"reasoning"`
	ChatTemplateKwargs map[string]json.RawMessage `json:"chat_template_kwargs"`

	Tools              json.RawMessage `json:"tools"`
	ToolChoice         json.RawMessage `json:"tool_choice"`
	PreviousResponseID string          `json:"previous_response_id"`
	Background         bool            `json:"background"`
	Conversation       json.RawMessage `json:"conversation"`
	Prompt             json.RawMessage `json:"prompt"`

	ParallelToolCalls *bool             `json:"parallel_tool_calls"`
	Store             *bool             `json:"store"`
	Metadata          map[string]string `json:"metadata"`
	User              string            `json:"user"`
	ServiceTier       string            `json:"service_tier"`
	Include           []string          `json:"include"`
	Truncation        string            `json:"truncation"`
	PromptCacheKey    string            `json:"prompt_cache_key"`
	SafetyIdentifier  string            `json:"safety_identifier"`
	MaxToolCalls      *int              `json:"max_tool_calls"`
	StreamOptions     json.RawMessage   `json:"stream_options"`
}

type respText struct {
	Format    json.RawMessage `json:"format"`
	Verbosity string          `json:"verbosity"`
}

// respInput is a string (one user message) or a list of input items: messages, the function calls of earlier
// turns and their outputs, and reasoning (kept with the next assistant turn).
type respInput struct{ msgs []chat.Message }

// respInputItem is the union of the input items' fields.
type respInputItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ID               string          `json:"id"`
	Status           string          `json:"status"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	Output           json.RawMessage `json:"output"`
	Summary          []respPart      `json:"summary"`
	EncryptedContent *string         `json:"encrypted_content"`
}

func (in *respInput) UnmarshalJSON(b []byte) error {
	switch jsonKind(b) {
	case "string":
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		in.msgs = []chat.Message{{Role: "user", Content: s}}
		return nil
	case "array":
		var items []respInputItem
		if err := json.Unmarshal(b, &items); err != nil {
			return err
		}
		reasoning := "" // of the next assistant turn
		for i, it := range items {
			field := fmt.Sprintf("input[%d]", i)
			var err error
			switch it.Type {
			case "", "message":
				err = in.message(field, it, &reasoning)
			case "reasoning":
				reasoning += respReasoningText(it)
			case "function_call":
				err = in.functionCall(field, it, &reasoning)
			case "function_call_output":
				var out string
				if out, err = respOutputText(field+".output", it.Output); err == nil {
					in.msgs = append(in.msgs, chat.Message{Role: "tool", Content: out, ToolCallID: it.CallID})
				}
			default:
				err = notSupported(fmt.Sprintf("%s of type %q", field, it.Type))
			}
			if err != nil {
				return err
			}
		}
		in.msgs = withNames(in.msgs)
		return nil
	}
	return typeError(b, "")
}

func (in *respInput) message(field string, it respInputItem, reasoning *string) error {
	role := it.Role
	switch role {
	case "developer":
		role = "system"
	case "system", "user", "assistant":
	default:
		return badRequest(field+".role", "unknown role %q", it.Role)
	}
	var c oaiContent
	if hasJSON(it.Content) {
		if err := c.UnmarshalJSON(it.Content); err != nil {
			var ae *apiError
			if errors.As(err, &ae) {
				return err
			}
			return badRequest(field+".content", "expected a string or an array of text parts, got %s", jsonKind(it.Content))
		}
	}
	m := chat.Message{Role: role, Content: c.text}
	if role == "assistant" {
		m.ReasoningContent, *reasoning = *reasoning, ""
	}
	in.msgs = append(in.msgs, m)
	return nil
}

// functionCall adds a call to the assistant turn it belongs to: the last message when it is the assistant's,
// else a new assistant message.
func (in *respInput) functionCall(field string, it respInputItem, reasoning *string) error {
	if it.Name == "" {
		return badRequest(field+".name", "required")
	}
	args, err := callArguments(field+".arguments", it.Arguments)
	if err != nil {
		return err
	}
	if n := len(in.msgs); n == 0 || in.msgs[n-1].Role != "assistant" {
		in.msgs = append(in.msgs, chat.Message{Role: "assistant", ReasoningContent: *reasoning})
		*reasoning = ""
	}
	last := &in.msgs[len(in.msgs)-1]
	last.ToolCalls = append(last.ToolCalls, chat.ToolCall{ID: it.CallID, Type: "function",
		Function: chat.FunctionCall{Name: it.Name, Arguments: args}})
	return nil
}

// respReasoningText is a reasoning item's text: its reasoning_text content, else its summary.
func respReasoningText(it respInputItem) string {
	var parts []respPart
	if json.Unmarshal(it.Content, &parts) != nil || len(parts) == 0 {
		parts = it.Summary
	}
	var sb strings.Builder
	for _, p := range parts {
		sb.WriteString(p.Text)
	}
	return sb.String()
}

// respOutputText is a function call's output: a string, or text parts.
func respOutputText(field string, raw json.RawMessage) (string, error) {
	if s, ok := asString(raw); ok || !hasJSON(raw) {
		return s, nil
	}
	var c oaiContent
	if err := c.UnmarshalJSON(raw); err != nil {
		return "", badRequest(field, "expected a string or an array of text parts")
	}
	return c.text, nil
}

func (q *oaiResponsesRequest) refuse() error {
	switch {
	case q.PreviousResponseID != "":
		return notSupported("previous_response_id (the server keeps no state: send the whole conversation)")
	case hasJSON(q.Conversation):
		return notSupported("conversation (the server keeps no state: send the whole conversation)")
	case hasJSON(q.Prompt):
		return notSupported("prompt (stored prompt templates)")
	case q.Background:
		return notSupported("background")
	}
	return nil
}

// shape reads tools (function tools: {"type": "function", "name", "description", "parameters", "strict"}),
// tool_choice ("auto", "none", "required" or {"type": "function", "name"}), parallel_tool_calls (default true)
// and text.format ({"type": "text"}, {"type": "json_object"}, {"type": "json_schema", "name", "schema", …}).
func (q *oaiResponsesRequest) shape() (shape, error) {
	s := shape{parallel: q.ParallelToolCalls == nil || *q.ParallelToolCalls, toolsField: "tools",
		paramsField: "tools[%d].parameters", formatField: "text.format", schemaField: "text.format.schema"}
	if hasJSON(q.Tools) {
		var tools []struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal(q.Tools, &tools); err != nil {
			return s, badRequest("tools", "expected an array of tools: %v", strings.TrimPrefix(err.Error(), "json: "))
		}
		oai := make([]json.RawMessage, len(tools))
		for i, t := range tools {
			if t.Type != "function" {
				return s, notSupported(fmt.Sprintf("tools[%d] of type %q (only function tools)", i, t.Type))
			}
			oai[i] = functionTool(t.Name, t.Description, t.Parameters)
		}
		raw, _ := json.Marshal(oai)
		if err := s.readTools(raw); err != nil {
			return s, err
		}
	}
	if choice := q.ToolChoice; hasJSON(choice) {
		if jsonKind(choice) == "object" {
			var c struct {
				Type string `json:"type"`
				Name string `json:"name"`
			}
			if err := json.Unmarshal(choice, &c); err != nil || c.Type != "function" {
				return s, notSupported(fmt.Sprintf("tool_choice of type %q (only \"auto\", \"none\", \"required\" or a function)", c.Type))
			}
			choice = namedChoice(c.Name)
		}
		if err := s.readChoice("tool_choice", choice); err != nil {
			return s, err
		}
	}
	if q.Text != nil && hasJSON(q.Text.Format) {
		var f struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
			Strict      *bool           `json:"strict"`
		}
		if err := decodeStrict("text.format", q.Text.Format, &f); err != nil {
			return s, err
		}
		switch f.Type {
		case "text":
		case "json_object":
			s.json = true
		case "json_schema":
			if err := s.setSchema(f.Schema); err != nil {
				return s, err
			}
		default:
			return s, badRequest("text.format.type", "unknown value %q (text, json_object or json_schema)", f.Type)
		}
	}
	return s, s.check()
}

// respOutput is one output item: reasoning, a message or a function call.
type respOutput struct {
	Type    string     `json:"type"`
	ID      string     `json:"id"`
	Status  string     `json:"status,omitempty"`
	Role    string     `json:"role,omitempty"`
	Content []respPart `json:"content,omitempty"`
	Summary []respPart `json:"summary,omitempty"`
	// function_call
	CallID    string  `json:"call_id,omitempty"`
	Name      string  `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
}

type respPart struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations,omitempty"`
	Logprobs    []any  `json:"logprobs,omitempty"`
}

type respUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

type respObject struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	CreatedAt         int64           `json:"created_at"`
	Status            string          `json:"status"`
	Model             string          `json:"model"`
	Output            []respOutput    `json:"output"`
	Usage             *respUsage      `json:"usage,omitempty"`
	IncompleteDetails map[string]any  `json:"incomplete_details"`
	Instructions      *string         `json:"instructions"`
	Error             any             `json:"error"`
	ParallelToolCalls bool            `json:"parallel_tool_calls"`
	Tools             json.RawMessage `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	Temperature       *float64        `json:"temperature"`
	TopP              *float64        `json:"top_p"`
	MaxOutputTokens   *int            `json:"max_output_tokens"`
	Store             bool            `json:"store"`
}

// oaiResponses is POST /v1/responses.
func (s *Server) oaiResponses(w http.ResponseWriter, r *http.Request) error {
	var q oaiResponsesRequest
	if err := decode(r, &q); err != nil {
		return err
	}
	if err := q.refuse(); err != nil {
		return err
	}
	sh, err := q.shape()
	if err != nil {
		return err
	}
	msgs := q.Input.msgs
	if q.Instructions != "" {
		msgs = append([]chat.Message{{Role: "system", Content: q.Instructions}}, msgs...)
	}
	if len(q.Input.msgs) == 0 {
		return badRequest("input", "required")
	}
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	defer s.reg.release(e, nil)
	req, err := oaiGenRequest(e, oaiSampling{Temperature: q.Temperature, TopP: q.TopP}, q.MaxOutputTokens,
		"max_output_tokens", nil, nil, nil, q.TopLogprobs != nil, q.TopLogprobs)
	if err != nil {
		return err
	}
	if err := sh.checkModel(e); err != nil {
		return err
	}
	sh.apply(&req)
	p, err := chatPrompt(e, msgs, sh.tools, q.ChatTemplateKwargs)
	if err != nil {
		return err
	}
	resp := respObject{ID: newID("resp_"), Object: "response", CreatedAt: time.Now().Unix(), Status: "in_progress",
		Model: e.name, Output: []respOutput{}, Tools: json.RawMessage("[]"), ToolChoice: json.RawMessage(`"auto"`),
		Temperature: q.Temperature, TopP: q.TopP, MaxOutputTokens: q.MaxOutputTokens, ParallelToolCalls: sh.parallel}
	if hasJSON(q.Tools) {
		resp.Tools = q.Tools
	}
	if hasJSON(q.ToolChoice) {
		resp.ToolChoice = q.ToolChoice
	}
	if q.Instructions != "" {
		resp.Instructions = &q.Instructions
	}
	finish := func(c *choice, items *respItems) {
		resp.Status = "completed"
		if c.cut() {
			resp.Status = "incomplete"
			resp.IncompleteDetails = map[string]any{"reason": "max_output_tokens"}
		}
		items.finish(c.cut())
		resp.Output = items.out
		u := usageOf([]*choice{c})
		resp.Usage = &respUsage{InputTokens: u.prompt, OutputTokens: u.generated, TotalTokens: u.prompt + u.generated}
		resp.Usage.InputTokensDetails.CachedTokens = u.cached
	}
	if !q.Stream {
		choices, err := s.generate(r.Context(), e, p, req, nil)
		if err != nil {
			return err
		}
		items := &respItems{}
		items.whole(choices[0])
		finish(choices[0], items)
		writeJSON(w, http.StatusOK, resp)
		return nil
	}
	rs := &respStream{resp: &resp}
	items := &respItems{emit: rs.event}
	choices, err := s.generate(r.Context(), e, p, req, func(_ int, _ *choice, tok runtime.Token) error {
		if err := rs.start(w, r); err != nil {
			return err
		}
		return items.token(tok)
	})
	if rs.sw == nil {
		if err != nil {
			return err
		}
		if rs.start(w, r) != nil {
			return nil
		}
	}
	if msg := streamError(r.Context(), choices, err); msg != "" {
		rs.event("error", map[string]any{"type": "error", "code": "server_error", "message": msg, "param": nil})
		return nil
	}
	if r.Context().Err() != nil {
		return nil
	}
	finish(choices[0], items)
	typ := "response.completed"
	if resp.Status == "incomplete" {
		typ = "response.incomplete"
	}
	rs.event(typ, map[string]any{"response": rs.resp})
	return nil
}
