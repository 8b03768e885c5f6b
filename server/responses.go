package server

import (
	"encoding/json"
	"fmt"
	"net/http"
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

// respInput is a string (one user message) or a list of input items (messages).
type respInput struct{ msgs []chat.Message }

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
		var items []struct {
			Type    string     `json:"type"`
			Role    string     `json:"role"`
			Content oaiContent `json:"content"`
			ID      string     `json:"id"`
			Status  string     `json:"status"`
		}
		if err := json.Unmarshal(b, &items); err != nil {
			return err
		}
		for i, it := range items {
			if it.Type != "" && it.Type != "message" {
				return notSupported(fmt.Sprintf("input[%d] of type %q", i, it.Type))
			}
			role := it.Role
			switch role {
			case "developer":
				role = "system"
			case "system", "user", "assistant":
			default:
				return badRequest(fmt.Sprintf("input[%d].role", i), "unknown role %q", it.Role)
			}
			in.msgs = append(in.msgs, chat.Message{Role: role, Content: it.Content.text})
		}
		return nil
	}
	return typeError(b, "")
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

func (q *oaiResponsesRequest) structured() structured {
	s := structured{tools: q.Tools, toolChoice: q.ToolChoice, toolsField: "tools", toolChoiceField: "tool_choice",
		formatField: "text.format"}
	if q.Text != nil {
		s.format = q.Text.Format
	}
	return s
}

// respOutput is one output item: a message or reasoning.
type respOutput struct {
	Type    string     `json:"type"`
	ID      string     `json:"id"`
	Status  string     `json:"status,omitempty"`
	Role    string     `json:"role,omitempty"`
	Content []respPart `json:"content"`
	Summary []respPart `json:"summary,omitempty"`
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
	ID                string         `json:"id"`
	Object            string         `json:"object"`
	CreatedAt         int64          `json:"created_at"`
	Status            string         `json:"status"`
	Model             string         `json:"model"`
	Output            []respOutput   `json:"output"`
	Usage             *respUsage     `json:"usage,omitempty"`
	IncompleteDetails map[string]any `json:"incomplete_details"`
	Instructions      *string        `json:"instructions"`
	Error             any            `json:"error"`
	ParallelToolCalls bool           `json:"parallel_tool_calls"`
	Tools             []any          `json:"tools"`
	ToolChoice        string         `json:"tool_choice"`
	Temperature       *float64       `json:"temperature"`
	TopP              *float64       `json:"top_p"`
	MaxOutputTokens   *int           `json:"max_output_tokens"`
	Store             bool           `json:"store"`
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
	if err := constrain(q.structured(), nil); err != nil {
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
	if err := constrain(q.structured(), &req.opt); err != nil {
		return err
	}
	p, err := chatPrompt(e, msgs, q.ChatTemplateKwargs)
	if err != nil {
		return err
	}
	resp := respObject{ID: newID("resp_"), Object: "response", CreatedAt: time.Now().Unix(), Status: "in_progress",
		Model: e.name, Output: []respOutput{}, Tools: []any{}, ToolChoice: "auto", Temperature: q.Temperature,
		TopP: q.TopP, MaxOutputTokens: q.MaxOutputTokens, ParallelToolCalls: true}
	if q.Instructions != "" {
		resp.Instructions = &q.Instructions
	}
	msgID, reasonID := newID("msg_"), newID("rs_")
	finish := func(c *choice) {
		if c.reasoning.Len() > 0 {
			resp.Output = append(resp.Output, respOutput{Type: "reasoning", ID: reasonID, Summary: []respPart{},
				Content: []respPart{{Type: "reasoning_text", Text: c.reasoning.String()}}})
		}
		resp.Output = append(resp.Output, respOutput{Type: "message", ID: msgID, Status: "completed", Role: "assistant",
			Content: []respPart{{Type: "output_text", Text: c.content.String(), Annotations: []any{}}}})
		resp.Status = "completed"
		if st := c.res.stats.Stop; st == runtime.StopMaxTokens || st == runtime.StopContext {
			resp.Status = "incomplete"
			resp.IncompleteDetails = map[string]any{"reason": "max_output_tokens"}
			resp.Output[len(resp.Output)-1].Status = "incomplete"
		}
		u := usageOf([]*choice{c})
		resp.Usage = &respUsage{InputTokens: u.prompt, OutputTokens: u.generated, TotalTokens: u.prompt + u.generated}
		resp.Usage.InputTokensDetails.CachedTokens = u.cached
	}
	if !q.Stream {
		choices, err := s.generate(r.Context(), e, p, req, nil)
		if err != nil {
			return err
		}
		finish(choices[0])
		writeJSON(w, http.StatusOK, resp)
		return nil
	}
	rs := &respStream{resp: &resp, msgID: msgID, reasonID: reasonID}
	choices, err := s.generate(r.Context(), e, p, req, func(_ int, _ runtime.Token, segs []segment) error {
		if err := rs.start(w, r); err != nil {
			return err
		}
		for _, sg := range segs {
			if err := rs.delta(sg); err != nil {
				return err
			}
		}
		return nil
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
	finish(choices[0])
	rs.finish()
	return nil
}

// respStream writes the Responses API's streaming events.
type respStream struct {
	sw              *streamWriter
	resp            *respObject
	msgID, reasonID string
	seq             int
	open            string // the output item being written: "", "reasoning" or "message"
	index           int    // its output_index
	items           int    // output items opened
	text            string // its text so far
}

func (rs *respStream) event(typ string, fields map[string]any) error {
	fields["type"] = typ
	fields["sequence_number"] = rs.seq
	rs.seq++
	return rs.sw.event(typ, fields)
}

func (rs *respStream) start(w http.ResponseWriter, r *http.Request) error {
	if rs.sw != nil {
		return nil
	}
	rs.sw = newSSE(w)
	streamStarted(r.Context())
	if err := rs.event("response.created", map[string]any{"response": rs.resp}); err != nil {
		return err
	}
	return rs.event("response.in_progress", map[string]any{"response": rs.resp})
}

// item returns the current output item's skeleton.
func (rs *respStream) item(status string) respOutput {
	if rs.open == "reasoning" {
		return respOutput{Type: "reasoning", ID: rs.reasonID, Summary: []respPart{}, Content: []respPart{}}
	}
	return respOutput{Type: "message", ID: rs.msgID, Status: status, Role: "assistant", Content: []respPart{}}
}

func (rs *respStream) openItem(kind string) error {
	if rs.open == kind {
		return nil
	}
	if err := rs.closeItem(); err != nil {
		return err
	}
	rs.index, rs.items = rs.items, rs.items+1
	rs.open, rs.text = kind, ""
	if err := rs.event("response.output_item.added", map[string]any{"output_index": rs.index, "item": rs.item("in_progress")}); err != nil {
		return err
	}
	if kind == "message" {
		return rs.event("response.content_part.added", map[string]any{"item_id": rs.msgID, "output_index": rs.index,
			"content_index": 0, "part": respPart{Type: "output_text", Text: "", Annotations: []any{}}})
	}
	return nil
}

func (rs *respStream) closeItem() error {
	switch rs.open {
	case "reasoning":
		if err := rs.event("response.reasoning_text.done", map[string]any{"item_id": rs.reasonID, "output_index": rs.index,
			"content_index": 0, "text": rs.text}); err != nil {
			return err
		}
		it := rs.item("completed")
		it.Content = []respPart{{Type: "reasoning_text", Text: rs.text}}
		return rs.event("response.output_item.done", map[string]any{"output_index": rs.index, "item": it})
	case "message":
		part := respPart{Type: "output_text", Text: rs.text, Annotations: []any{}}
		if err := rs.event("response.output_text.done", map[string]any{"item_id": rs.msgID, "output_index": rs.index,
			"content_index": 0, "text": rs.text, "logprobs": []any{}}); err != nil {
			return err
		}
		if err := rs.event("response.content_part.done", map[string]any{"item_id": rs.msgID, "output_index": rs.index,
			"content_index": 0, "part": part}); err != nil {
			return err
		}
		it := rs.item(rs.resp.Status)
		it.Content = []respPart{part}
		return rs.event("response.output_item.done", map[string]any{"output_index": rs.index, "item": it})
	}
	return nil
}

func (rs *respStream) delta(sg segment) error {
	kind, typ, id := "message", "response.output_text.delta", rs.msgID
	if sg.kind == outReasoning {
		kind, typ, id = "reasoning", "response.reasoning_text.delta", rs.reasonID
	}
	if err := rs.openItem(kind); err != nil {
		return err
	}
	rs.text += sg.text
	f := map[string]any{"item_id": id, "output_index": rs.index, "content_index": 0, "delta": sg.text}
	if kind == "message" {
		f["logprobs"] = []any{}
	}
	return rs.event(typ, f)
}

func (rs *respStream) finish() {
	if rs.openItem("message") != nil { // an empty answer still has its message item
		return
	}
	if rs.closeItem() != nil {
		return
	}
	typ := "response.completed"
	if rs.resp.Status == "incomplete" {
		typ = "response.incomplete"
	}
	rs.event(typ, map[string]any{"response": rs.resp})
}
