package server

import (
	"encoding/json"
	"fmt"
	"net/http"

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

// antContent is a string or an array of content blocks; text and thinking blocks are kept.
type antContent struct {
	text, thinking string
	set            bool
}

type antBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	Data         string          `json:"data"`
	CacheControl json.RawMessage `json:"cache_control"`
	Citations    json.RawMessage `json:"citations"`
}

func (c *antContent) UnmarshalJSON(b []byte) error {
	c.set = true
	switch jsonKind(b) {
	case "null":
		c.set = false
		return nil
	case "string":
		return json.Unmarshal(b, &c.text)
	case "array":
		var blocks []antBlock
		if err := json.Unmarshal(b, &blocks); err != nil {
			return typeError(b, []antBlock{})
		}
		for _, bl := range blocks {
			switch bl.Type {
			case "text":
				c.text += bl.Text
			case "thinking":
				c.thinking += bl.Thinking
			case "redacted_thinking":
			default:
				return notSupported(fmt.Sprintf("content block of type %q", bl.Type))
			}
		}
		return nil
	}
	return typeError(b, "")
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

func (q *antRequest) structured() structured {
	s := structured{tools: q.Tools, toolChoice: q.ToolChoice, toolsField: "tools", toolChoiceField: "tool_choice",
		formatField: "output_config.format"}
	if q.OutputConfig != nil {
		s.format = q.OutputConfig.Format
	}
	return s
}

// conversation returns the chat messages and the template variables of the thinking setting.
func (q *antRequest) conversation() ([]chat.Message, map[string]json.RawMessage, error) {
	var msgs []chat.Message
	if q.System.text != "" {
		msgs = append(msgs, chat.Message{Role: "system", Content: q.System.text})
	}
	if len(q.Messages) == 0 {
		return nil, nil, badRequest("messages", "at least one message is needed")
	}
	for i, m := range q.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return nil, nil, badRequest(fmt.Sprintf("messages[%d].role", i), "unknown role %q (user or assistant)", m.Role)
		}
		msgs = append(msgs, chat.Message{Role: m.Role, Content: m.Content.text, ReasoningContent: m.Content.thinking})
	}
	var kwargs map[string]json.RawMessage
	if q.Thinking != nil {
		switch q.Thinking.Type {
		case "enabled", "adaptive", "between_tools":
			kwargs = map[string]json.RawMessage{"enable_thinking": json.RawMessage("true")}
		case "disabled":
			kwargs = map[string]json.RawMessage{"enable_thinking": json.RawMessage("false")}
		default:
			return nil, nil, badRequest("thinking.type", "unknown value %q (enabled, adaptive or disabled)", q.Thinking.Type)
		}
	}
	return msgs, kwargs, nil
}

type antUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

type antOutBlock struct {
	Type      string  `json:"type"`
	Text      *string `json:"text,omitempty"`
	Thinking  *string `json:"thinking,omitempty"`
	Signature *string `json:"signature,omitempty"`
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
func antStop(st runtime.Stats) (*string, *string) {
	switch st.Stop {
	case runtime.StopMaxTokens, runtime.StopContext:
		return ptr("max_tokens"), nil
	case runtime.StopString:
		return ptr("stop_sequence"), ptr(st.StopString)
	}
	return ptr("end_turn"), nil
}

// antUsageOf counts as Anthropic does: input_tokens are the prompt tokens not read from the cache.
func antUsageOf(u usage) antUsage {
	return antUsage{InputTokens: u.prompt - u.cached, OutputTokens: u.generated, CacheReadInputTokens: u.cached}
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
	if err := constrain(q.structured(), nil); err != nil {
		return err
	}
	if q.MaxTokens == nil {
		return badRequest("max_tokens", "required")
	}
	if err := inRange("temperature", q.Temperature, 0, 1); err != nil {
		return err
	}
	msgs, kwargs, err := q.conversation()
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
	if err := constrain(q.structured(), &req.opt); err != nil {
		return err
	}
	p, err := chatPrompt(e, msgs, kwargs)
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
		if c.reasoning.Len() > 0 {
			resp.Content = append(resp.Content, antOutBlock{Type: "thinking", Thinking: ptr(c.reasoning.String()), Signature: ptr("")})
		}
		resp.Content = append(resp.Content, antOutBlock{Type: "text", Text: ptr(c.content.String())})
		resp.StopReason, resp.StopSequence = antStop(c.res.stats)
		resp.Usage = antUsageOf(usageOf(choices))
		writeJSON(w, http.StatusOK, resp)
		return nil
	}
	as := &antStream{resp: resp, promptTokens: len(p.ids)}
	choices, err := s.generate(r.Context(), e, p, req, func(_ int, _ runtime.Token, segs []segment) error {
		if err := as.start(w, r); err != nil {
			return err
		}
		for _, sg := range segs {
			if err := as.delta(sg); err != nil {
				return err
			}
		}
		return nil
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

// antStream writes the Messages API's streaming events.
type antStream struct {
	sw           *streamWriter
	resp         antResponse
	promptTokens int
	open         string // the block being written: "", "thinking" or "text"
	index        int    // its index
	blocks       int
}

func (as *antStream) start(w http.ResponseWriter, r *http.Request) error {
	if as.sw != nil {
		return nil
	}
	as.sw = newSSE(w)
	streamStarted(r.Context())
	m := as.resp
	m.Usage = antUsage{InputTokens: as.promptTokens}
	if err := as.sw.event("message_start", map[string]any{"type": "message_start", "message": m}); err != nil {
		return err
	}
	return as.sw.event("ping", map[string]any{"type": "ping"})
}

func (as *antStream) openBlock(kind string) error {
	if as.open == kind {
		return nil
	}
	if err := as.closeBlock(); err != nil {
		return err
	}
	as.open, as.index = kind, as.blocks
	as.blocks++
	block := antOutBlock{Type: "text", Text: ptr("")}
	if kind == "thinking" {
		block = antOutBlock{Type: "thinking", Thinking: ptr(""), Signature: ptr("")}
	}
	return as.sw.event("content_block_start", map[string]any{"type": "content_block_start", "index": as.index, "content_block": block})
}

func (as *antStream) closeBlock() error {
	if as.open == "" {
		return nil
	}
	if as.open == "thinking" {
		if err := as.sw.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": as.index,
			"delta": map[string]any{"type": "signature_delta", "signature": ""}}); err != nil {
			return err
		}
	}
	as.open = ""
	return as.sw.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": as.index})
}

func (as *antStream) delta(sg segment) error {
	kind, delta := "text", map[string]any{"type": "text_delta", "text": sg.text}
	if sg.kind == outReasoning {
		kind, delta = "thinking", map[string]any{"type": "thinking_delta", "thinking": sg.text}
	}
	if err := as.openBlock(kind); err != nil {
		return err
	}
	return as.sw.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": as.index, "delta": delta})
}

func (as *antStream) finish(c *choice) {
	if as.blocks == 0 && as.openBlock("text") != nil {
		return
	}
	if as.closeBlock() != nil {
		return
	}
	reason, seq := antStop(c.res.stats)
	u := antUsageOf(usageOf([]*choice{c}))
	if as.sw.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": reason, "stop_sequence": seq}, "usage": u}) != nil {
		return
	}
	as.sw.event("message_stop", map[string]any{"type": "message_stop"})
}

// antCountTokens is POST /v1/messages/count_tokens: the prompt's tokens as the template renders it.
func (s *Server) antCountTokens(w http.ResponseWriter, r *http.Request) error {
	var q struct {
		Model      string          `json:"model"`
		Messages   []antMessage    `json:"messages"`
		System     antContent      `json:"system"`
		Thinking   *antThinking    `json:"thinking"`
		Tools      json.RawMessage `json:"tools"`
		ToolChoice json.RawMessage `json:"tool_choice"`
	}
	if err := decode(r, &q); err != nil {
		return err
	}
	ar := antRequest{Model: q.Model, Messages: q.Messages, System: q.System, Thinking: q.Thinking, Tools: q.Tools, ToolChoice: q.ToolChoice}
	if err := ar.refuse(); err != nil {
		return err
	}
	if err := constrain(ar.structured(), nil); err != nil {
		return err
	}
	msgs, kwargs, err := ar.conversation()
	if err != nil {
		return err
	}
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	defer s.reg.release(e, nil)
	p, err := chatPrompt(e, msgs, kwargs)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]int{"input_tokens": len(p.ids)})
	return nil
}
