package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/chat"
)

// antRequest is Anthropic's Messages request (and, less the generation fields, count_tokens').
type antRequest struct {
	Model         string          `json:"model"`
	MaxTokens     *int            `json:"max_tokens"`
	Messages      []antMessage    `json:"messages"`
	System        antContent      `json:"system"`
	StopSequences []string        `json:"stop_sequences"`
	Stream        bool            `json:"stream"`
	Temperature   *float64        `json:"temperature"`
	TopP          *float64        `json:"top_p"`
	TopK          *int            `json:"top_k"`
	Thinking      *antThinking    `json:"thinking"`
	Metadata      json.RawMessage `json:"metadata"`
	ServiceTier   string          `json:"service_tier"`
	InferenceGeo  string          `json:"inference_geo"`
	Speed         string          `json:"speed"`
	CacheControl  json.RawMessage `json:"cache_control"`
	Diagnostics   json.RawMessage `json:"diagnostics"`
	OutputConfig  *struct {
		Effort string          `json:"effort"`
		Format json.RawMessage `json:"format"`
	} `json:"output_config"`

	Tools             json.RawMessage `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	Container         json.RawMessage `json:"container"`
	MCPServers        json.RawMessage `json:"mcp_servers"`
	ContextManagement json.RawMessage `json:"context_management"`
}

type antThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
	Display      string `json:"display"`
}

type antMessage struct {
	Role    string     `json:"role"`
	Content antContent `json:"content"`
}

// antContent is a string (one text block) or an array of content blocks.
type antContent struct {
	blocks []antBlock
	set    bool
}

type antBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	Data         string          `json:"data"`
	CacheControl json.RawMessage `json:"cache_control"`
	Citations    json.RawMessage `json:"citations"`
	// tool_use
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	// tool_result
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (c *antContent) UnmarshalJSON(b []byte) error {
	c.set = true
	switch jsonKind(b) {
	case "null":
		c.set = false
		return nil
	case "string":
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		c.blocks = []antBlock{{Type: "text", Text: s}}
		return nil
	case "array":
		if err := json.Unmarshal(b, &c.blocks); err != nil {
			return typeError(b, []antBlock{})
		}
		for _, bl := range c.blocks {
			switch bl.Type {
			case "text", "thinking", "redacted_thinking", "tool_use", "tool_result":
			default:
				return notSupported(fmt.Sprintf("content block of type %q", bl.Type))
			}
		}
		return nil
	}
	return typeError(b, "")
}

// text joins the content's text blocks; any other block is an error naming field.
func (c *antContent) text(field string) (string, error) {
	var sb strings.Builder
	for i, bl := range c.blocks {
		if bl.Type != "text" {
			return "", badRequest(fmt.Sprintf("%s[%d]", field, i), "a %s block cannot be here: text blocks only", bl.Type)
		}
		sb.WriteString(bl.Text)
	}
	return sb.String(), nil
}

// message converts one message: an assistant's text, thinking and tool_use blocks make one assistant message;
// a user's tool_result blocks become tool messages, followed by the user's text, if any.
func (m *antMessage) message(field string) ([]chat.Message, error) {
	var text, thinking strings.Builder
	var calls []chat.ToolCall
	var out []chat.Message
	for j, bl := range m.Content.blocks {
		bf := fmt.Sprintf("%s.content[%d]", field, j)
		switch bl.Type {
		case "text":
			text.WriteString(bl.Text)
		case "thinking":
			thinking.WriteString(bl.Thinking)
		case "tool_use":
			if m.Role != "assistant" {
				return nil, badRequest(bf, "tool_use blocks belong to assistant messages")
			}
			if bl.ID == "" || bl.Name == "" {
				return nil, badRequest(bf, "a tool_use block needs an id and a name")
			}
			args, err := callArguments(bf+".input", bl.Input)
			if err != nil {
				return nil, err
			}
			calls = append(calls, chat.ToolCall{ID: bl.ID, Type: "function", Function: chat.FunctionCall{Name: bl.Name, Arguments: args}})
		case "tool_result":
			if m.Role != "user" {
				return nil, badRequest(bf, "tool_result blocks belong to user messages")
			}
			result, err := antResultText(bf+".content", bl.Content)
			if err != nil {
				return nil, err
			}
			out = append(out, chat.Message{Role: "tool", Content: result, ToolCallID: bl.ToolUseID})
		}
	}
	if m.Role == "assistant" || text.Len() > 0 || len(out) == 0 {
		out = append(out, chat.Message{Role: m.Role, Content: text.String(), ReasoningContent: thinking.String(), ToolCalls: calls})
	}
	return out, nil
}

// antResultText is a tool result's content: a string, or text blocks.
func antResultText(field string, raw json.RawMessage) (string, error) {
	if !hasJSON(raw) {
		return "", nil
	}
	if s, ok := asString(raw); ok {
		return s, nil
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return "", badRequest(field, "expected a string or an array of text blocks, got %s", jsonKind(raw))
	}
	var sb strings.Builder
	for i, b := range blocks {
		if b.Type != "text" {
			return "", notSupported(fmt.Sprintf("%s[%d] of type %q", field, i, b.Type))
		}
		sb.WriteString(b.Text)
	}
	return sb.String(), nil
}

func (q *antRequest) refuse() error {
	for _, f := range []struct {
		name string
		v    json.RawMessage
	}{{"container", q.Container}, {"mcp_servers", q.MCPServers}, {"context_management", q.ContextManagement}} {
		if hasJSON(f.v) && string(f.v) != "[]" {
			return notSupported(f.name)
		}
	}
	return nil
}

// shape reads tools (custom tools: name, description, input_schema), tool_choice ({"type": auto, any, tool or
// none, "name", "disable_parallel_tool_use"}) and output_config.format ({"type": "json_schema", "schema"}).
func (q *antRequest) shape() (shape, error) {
	s := shape{parallel: true, toolsField: "tools", paramsField: "tools[%d].input_schema",
		formatField: "output_config.format", schemaField: "output_config.format.schema"}
	if hasJSON(q.Tools) {
		var tools []struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		if err := json.Unmarshal(q.Tools, &tools); err != nil {
			return s, badRequest("tools", "expected an array of tools: %v", strings.TrimPrefix(err.Error(), "json: "))
		}
		oai := make([]json.RawMessage, len(tools))
		for i, t := range tools {
			if t.Type != "" && t.Type != "custom" {
				return s, notSupported(fmt.Sprintf("tools[%d] of type %q (server tools)", i, t.Type))
			}
			if !hasJSON(t.InputSchema) {
				return s, badRequest(fmt.Sprintf("tools[%d].input_schema", i), "required")
			}
			oai[i] = functionTool(t.Name, t.Description, t.InputSchema)
		}
		raw, _ := json.Marshal(oai)
		if err := s.readTools(raw); err != nil {
			return s, err
		}
	}
	if hasJSON(q.ToolChoice) {
		var c struct {
			Type                   string `json:"type"`
			Name                   string `json:"name"`
			DisableParallelToolUse bool   `json:"disable_parallel_tool_use"`
		}
		if err := decodeStrict("tool_choice", q.ToolChoice, &c); err != nil {
			return s, err
		}
		choice := map[string]json.RawMessage{"auto": json.RawMessage(`"auto"`), "any": json.RawMessage(`"required"`),
			"none": json.RawMessage(`"none"`), "tool": namedChoice(c.Name)}[c.Type]
		if choice == nil {
			return s, badRequest("tool_choice.type", "unknown value %q (auto, any, tool or none)", c.Type)
		}
		if err := s.readChoice("tool_choice", choice); err != nil {
			return s, err
		}
		s.parallel = !c.DisableParallelToolUse
	}
	if q.OutputConfig != nil && hasJSON(q.OutputConfig.Format) {
		var f struct {
			Type   string          `json:"type"`
			Schema json.RawMessage `json:"schema"`
		}
		if err := decodeStrict("output_config.format", q.OutputConfig.Format, &f); err != nil {
			return s, err
		}
		if f.Type != "json_schema" {
			return s, badRequest("output_config.format.type", "unknown value %q (json_schema)", f.Type)
		}
		if !hasJSON(f.Schema) {
			return s, badRequest("output_config.format.schema", "required")
		}
		if err := s.setSchema(f.Schema); err != nil {
			return s, err
		}
	}
	return s, s.check()
}

// conversation returns the chat messages and the thinking setting (nil: the template's default).
func (q *antRequest) conversation() ([]chat.Message, *bool, error) {
	var msgs []chat.Message
	system, err := q.System.text("system")
	if err != nil {
		return nil, nil, err
	}
	if system != "" {
		msgs = append(msgs, chat.Message{Role: "system", Content: system})
	}
	if len(q.Messages) == 0 {
		return nil, nil, badRequest("messages", "at least one message is needed")
	}
	for i, m := range q.Messages {
		field := fmt.Sprintf("messages[%d]", i)
		if m.Role != "user" && m.Role != "assistant" {
			return nil, nil, badRequest(field+".role", "unknown role %q (user or assistant)", m.Role)
		}
		out, err := m.message(field)
		if err != nil {
			return nil, nil, err
		}
		msgs = append(msgs, out...)
	}
	var thinking *bool
	if q.Thinking != nil {
		switch q.Thinking.Type {
		case "enabled", "adaptive", "between_tools":
			thinking = ptr(true)
		case "disabled":
			thinking = ptr(false)
		default:
			return nil, nil, badRequest("thinking.type", "unknown value %q (enabled, adaptive or disabled)", q.Thinking.Type)
		}
	}
	return withNames(msgs), thinking, nil
}

// thinkingKwargs are the template variables of a thinking setting.
func thinkingKwargs(e *modelEntry, on *bool) map[string]json.RawMessage {
	if on == nil {
		return nil
	}
	return thinkingVars(e, *on)
}

type antUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

type antOutBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
}

type antResponse struct {
	ID           string        `json:"id"`
	Type         string        `json:"type"`
	Role         string        `json:"role"`
	Model        string        `json:"model"`
	Content      []antOutBlock `json:"content"`
	StopReason   *string       `json:"stop_reason"`
	StopSequence *string       `json:"stop_sequence"`
	Usage        antUsage      `json:"usage"`
}

// antStop is Anthropic's stop_reason and stop_sequence.
func antStop(c *choice) (*string, *string) {
	st := c.res.stats
	switch {
	case c.cut():
		return ptr("max_tokens"), nil
	case st.Stop == runtime.StopString:
		return ptr("stop_sequence"), ptr(st.StopString)
	case c.calledTools():
		return ptr("tool_use"), nil
	}
	return ptr("end_turn"), nil
}

// antUsageOf counts as Anthropic does: input_tokens are the prompt tokens not read from the cache.
func antUsageOf(u usage) antUsage {
	return antUsage{InputTokens: u.prompt - u.cached, OutputTokens: u.generated, CacheReadInputTokens: u.cached}
}

// antContentOf is the content of a whole answer: thinking, text (left out when the answer is only tool
// calls), tool_use blocks.
func antContentOf(c *choice) []antOutBlock {
	out := []antOutBlock{}
	if c.reasoning.Len() > 0 {
		out = append(out, antOutBlock{Type: "thinking", Thinking: ptr(c.reasoning.String()), Signature: ptr("")})
	}
	calls := c.toolCalls()
	if c.content.Len() > 0 || len(calls) == 0 {
		out = append(out, antOutBlock{Type: "text", Text: ptr(c.content.String())})
	}
	for _, tc := range calls {
		out = append(out, antOutBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: json.RawMessage(tc.Arguments)})
	}
	return out
}

// antMessages is POST /v1/messages.
func (s *Server) antMessages(w http.ResponseWriter, r *http.Request) error {
	var q antRequest
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
	if q.MaxTokens == nil {
		return badRequest("max_tokens", "required")
	}
	if err := inRange("temperature", q.Temperature, 0, 1); err != nil {
		return err
	}
	msgs, thinking, err := q.conversation()
	if err != nil {
		return err
	}
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	defer s.reg.release(e, nil)
	smp := sampling{temperature: q.Temperature, topP: q.TopP, topK: q.TopK}
	if err := smp.check(); err != nil {
		return err
	}
	req := genRequest{n: 1}
	if req.opt.MaxTokens, err = maxTokens("max_tokens", q.MaxTokens); err != nil {
		return err
	}
	if err := checkStops("stop_sequences", q.StopSequences); err != nil {
		return err
	}
	req.opt.Stop = q.StopSequences
	so := smp.options(e.m.Sampling())
	req.opt.Sampling = &so
	if err := sh.checkModel(e); err != nil {
		return err
	}
	sh.apply(&req)
	p, err := chatPrompt(e, msgs, sh.tools, thinkingKwargs(e, thinking))
	if err != nil {
		return err
	}
	resp := antResponse{ID: newID("msg_"), Type: "message", Role: "assistant", Model: e.name, Content: []antOutBlock{}}
	if !q.Stream {
		choices, err := s.generate(r.Context(), e, p, req, nil)
		if err != nil {
			return err
		}
		c := choices[0]
		resp.Content = antContentOf(c)
		resp.StopReason, resp.StopSequence = antStop(c)
		resp.Usage = antUsageOf(usageOf(choices))
		writeJSON(w, http.StatusOK, resp)
		return nil
	}
	as := &antStream{resp: resp, promptTokens: len(p.ids)}
	choices, err := s.generate(r.Context(), e, p, req, func(_ int, _ *choice, tok runtime.Token) error {
		if err := as.start(w, r); err != nil {
			return err
		}
		return as.token(tok)
	})
	if as.sw == nil {
		if err != nil {
			return err
		}
		if as.start(w, r) != nil {
			return nil
		}
	}
	if msg := streamError(r.Context(), choices, err); msg != "" {
		as.sw.event("error", errorBody(kindAnthropic, asAPIError(fmt.Errorf("%s", msg))))
		return nil
	}
	if r.Context().Err() != nil {
		return nil
	}
	as.finish(choices[0])
	return nil
}

// antCountTokens is POST /v1/messages/count_tokens: the prompt's tokens as the template renders it, tools
// included.
func (s *Server) antCountTokens(w http.ResponseWriter, r *http.Request) error {
	var q struct {
		Model        string          `json:"model"`
		Messages     []antMessage    `json:"messages"`
		System       antContent      `json:"system"`
		Thinking     *antThinking    `json:"thinking"`
		Tools        json.RawMessage `json:"tools"`
		ToolChoice   json.RawMessage `json:"tool_choice"`
		OutputConfig *struct {
			Effort string          `json:"effort"`
			Format json.RawMessage `json:"format"`
		} `json:"output_config"`
		CacheControl json.RawMessage `json:"cache_control"`
		Speed        string          `json:"speed"`
	}
	if err := decode(r, &q); err != nil {
		return err
	}
	ar := antRequest{Model: q.Model, Messages: q.Messages, System: q.System, Thinking: q.Thinking, Tools: q.Tools,
		ToolChoice: q.ToolChoice, OutputConfig: q.OutputConfig}
	sh, err := ar.shape()
	if err != nil {
		return err
	}
	msgs, thinking, err := ar.conversation()
	if err != nil {
		return err
	}
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	defer s.reg.release(e, nil)
	p, err := chatPrompt(e, msgs, sh.tools, thinkingKwargs(e, thinking))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]int{"input_tokens": len(p.ids)})
	return nil
}
