package server

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/chat"
)

// oaiChatRequest is OpenAI's Chat Completions request, with llama-server's sampling extensions. Fields the
// server cannot honour yet are refused (refuse); fields that change nothing here are accepted and ignored.
type oaiChatRequest struct {
	Model               string                     `json:"model"`
	Messages            []oaiMessage               `json:"messages"`
	Stream              bool                       `json:"stream"`
	StreamOptions       *oaiStreamOptions          `json:"stream_options"`
	MaxTokens           *int                       `json:"max_tokens"`
	MaxCompletionTokens *int                       `json:"max_completion_tokens"`
	Stop                stringList                 `json:"stop"`
	N                   *int                       `json:"n"`
	Logprobs            *bool                      `json:"logprobs"`
	TopLogprobs         *int                       `json:"top_logprobs"`
	LogitBias           map[string]float64         `json:"logit_bias"`
	ChatTemplateKwargs  map[string]json.RawMessage `json:"chat_template_kwargs"`
	oaiSampling

	// The answer's form (constraint.go).
	Tools             json.RawMessage `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	ParallelToolCalls *bool           `json:"parallel_tool_calls"`
	ResponseFormat    json.RawMessage `json:"response_format"`

	// Refused: the deprecated function fields (tools replace them), and what a local text model has not.
	Functions        json.RawMessage `json:"functions"`
	FunctionCall     json.RawMessage `json:"function_call"`
	Audio            json.RawMessage `json:"audio"`
	Modalities       []string        `json:"modalities"`
	Prediction       json.RawMessage `json:"prediction"`
	WebSearchOptions json.RawMessage `json:"web_search_options"`

	// Accepted and ignored: they change nothing in a local server's answer.
	User             string            `json:"user"`
	Store            *bool             `json:"store"`
	Metadata         map[string]string `json:"metadata"`
	ServiceTier      string            `json:"service_tier"`
	ReasoningEffort  string            `json:"reasoning_effort"`
	Verbosity        string            `json:"verbosity"`
	PromptCacheKey   string            `json:"prompt_cache_key"`
	SafetyIdentifier string            `json:"safety_identifier"`
	CachePrompt      *bool             `json:"cache_prompt"`
}

type oaiStreamOptions struct {
	IncludeUsage       bool  `json:"include_usage"`
	IncludeObfuscation *bool `json:"include_obfuscation"`
}

// oaiSampling are the sampling fields of OpenAI's requests and llama-server's extensions.
type oaiSampling struct {
	Temperature      *float64 `json:"temperature"`
	TopP             *float64 `json:"top_p"`
	Seed             *int64   `json:"seed"`
	PresencePenalty  *float64 `json:"presence_penalty"`
	FrequencyPenalty *float64 `json:"frequency_penalty"`
	TopK             *int     `json:"top_k"`
	MinP             *float64 `json:"min_p"`
	TypicalP         *float64 `json:"typical_p"`
	RepeatPenalty    *float64 `json:"repeat_penalty"`
	RepeatLastN      *int     `json:"repeat_last_n"`
	IgnoreEOS        bool     `json:"ignore_eos"` // generate past end-of-generation tokens (llama-server's)
}

// sampling checks OpenAI's ranges and returns the request's sampling fields.
func (o *oaiSampling) sampling() (sampling, error) {
	for _, c := range []struct {
		name   string
		v      *float64
		lo, hi float64
	}{{"temperature", o.Temperature, 0, 2}, {"top_p", o.TopP, 0, 1}, {"presence_penalty", o.PresencePenalty, -2, 2},
		{"frequency_penalty", o.FrequencyPenalty, -2, 2}} {
		if err := inRange(c.name, c.v, c.lo, c.hi); err != nil {
			return sampling{}, err
		}
	}
	p := sampling{temperature: o.Temperature, topP: o.TopP, seed: o.Seed, presence: o.PresencePenalty,
		frequency: o.FrequencyPenalty, topK: o.TopK, minP: o.MinP, typicalP: o.TypicalP,
		repeatPenalty: o.RepeatPenalty, repeatLastN: o.RepeatLastN}
	return p, p.check()
}

// oaiMessage is a chat message; content is a string, an array of text parts, or null.
type oaiMessage struct {
	Role             string          `json:"role"`
	Content          oaiContent      `json:"content"`
	Name             string          `json:"name"`
	ToolCalls        []oaiToolCallIn `json:"tool_calls"`
	ToolCallID       string          `json:"tool_call_id"`
	ReasoningContent string          `json:"reasoning_content"`
	Refusal          *string         `json:"refusal"`
	Audio            json.RawMessage `json:"audio"`
	FunctionCall     json.RawMessage `json:"function_call"`
}

// oaiToolCallIn is a tool call of an earlier assistant turn; its arguments are a JSON string holding an object
// (an object is accepted too).
type oaiToolCallIn struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Index    *int   `json:"index"` // sent back by clients that accumulate streamed calls; ignored
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type oaiContent struct{ text string }

func (c *oaiContent) UnmarshalJSON(b []byte) error {
	switch jsonKind(b) {
	case "null":
		return nil
	case "string":
		return json.Unmarshal(b, &c.text)
	case "array":
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &parts); err != nil {
			return typeError(b, []struct{}{})
		}
		for _, p := range parts {
			switch p.Type {
			case "text", "input_text", "output_text":
				c.text += p.Text
			default:
				return notSupported(fmt.Sprintf("content part of type %q", p.Type))
			}
		}
		return nil
	}
	return typeError(b, "")
}

// messages converts and checks the conversation.
func oaiMessages(in []oaiMessage) ([]chat.Message, error) {
	out := make([]chat.Message, len(in))
	for i, m := range in {
		field := fmt.Sprintf("messages[%d]", i)
		switch m.Role {
		case "system", "user", "assistant", "tool":
		case "developer":
			m.Role = "system"
		case "function":
			return nil, notSupported(field + ".role function")
		default:
			return nil, badRequest(field+".role", "unknown role %q (system, developer, user, assistant, tool)", m.Role)
		}
		if m.Audio != nil || m.FunctionCall != nil {
			return nil, notSupported(field + ".audio/function_call")
		}
		out[i] = chat.Message{Role: m.Role, Content: m.Content.text, Name: m.Name, ToolCallID: m.ToolCallID,
			ReasoningContent: m.ReasoningContent}
		if len(m.ToolCalls) > 0 && m.Role != "assistant" {
			return nil, badRequest(field+".tool_calls", "only assistant messages carry tool calls")
		}
		for j, tc := range m.ToolCalls {
			f := fmt.Sprintf("%s.tool_calls[%d]", field, j)
			if tc.Type != "" && tc.Type != "function" {
				return nil, notSupported(fmt.Sprintf("%s of type %q", f, tc.Type))
			}
			if tc.Function.Name == "" {
				return nil, badRequest(f+".function.name", "required")
			}
			args, err := callArguments(f+".function.arguments", tc.Function.Arguments)
			if err != nil {
				return nil, err
			}
			out[i].ToolCalls = append(out[i].ToolCalls, chat.ToolCall{ID: tc.ID, Type: "function",
				Function: chat.FunctionCall{Name: tc.Function.Name, Arguments: args}})
		}
	}
	return withNames(out), nil
}

// refuse rejects the fields the server does not serve (tools and formats make the request's shape).
func (q *oaiChatRequest) refuse() error {
	for _, f := range []struct {
		name string
		v    json.RawMessage
	}{{"functions", q.Functions}, {"function_call", q.FunctionCall}, {"audio", q.Audio}, {"prediction", q.Prediction},
		{"web_search_options", q.WebSearchOptions}} {
		if hasJSON(f.v) {
			if f.name == "functions" || f.name == "function_call" {
				return notSupported(f.name + " (deprecated: use tools and tool_choice)")
			}
			return notSupported(f.name)
		}
	}
	for _, m := range q.Modalities {
		if m != "text" {
			return notSupported("modalities")
		}
	}
	return nil
}

// shape reads tools, tool_choice, parallel_tool_calls (default true) and response_format.
func (q *oaiChatRequest) shape() (shape, error) {
	s := shape{parallel: q.ParallelToolCalls == nil || *q.ParallelToolCalls, toolsField: "tools",
		paramsField: "tools[%d].function.parameters", formatField: "response_format",
		schemaField: "response_format.json_schema.schema"}
	if err := s.readTools(q.Tools); err != nil {
		return s, err
	}
	if err := s.readChoice("tool_choice", q.ToolChoice); err != nil {
		return s, err
	}
	if hasJSON(q.ResponseFormat) {
		var f struct {
			Type       string `json:"type"`
			JSONSchema *struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Schema      json.RawMessage `json:"schema"`
				Strict      *bool           `json:"strict"`
			} `json:"json_schema"`
			Schema json.RawMessage `json:"schema"` // llama-server's json_object with a schema
		}
		if err := decodeStrict("response_format", q.ResponseFormat, &f); err != nil {
			return s, err
		}
		switch {
		case f.Type == "text":
		case f.Type == "json_object" && hasJSON(f.Schema):
			s.schemaField = "response_format.schema"
			if err := s.setSchema(f.Schema); err != nil {
				return s, err
			}
		case f.Type == "json_object":
			s.json = true
		case f.Type == "json_schema" && f.JSONSchema == nil:
			return s, badRequest("response_format.json_schema", "required with type json_schema")
		case f.Type == "json_schema":
			if err := s.setSchema(f.JSONSchema.Schema); err != nil {
				return s, err
			}
		default:
			return s, badRequest("response_format.type", "unknown value %q (text, json_object or json_schema)", f.Type)
		}
	}
	return s, s.check()
}

// hasJSON reports whether a raw field was given a value other than null.
func hasJSON(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// genOptions builds the engine request shared by chat and completions.
func oaiGenRequest(e *modelEntry, smp oaiSampling, maxTok *int, maxField string, stop []string, n *int,
	bias map[string]float64, logprobs bool, top *int) (genRequest, error) {
	p, err := smp.sampling()
	if err != nil {
		return genRequest{}, err
	}
	if p.logitBias, err = logitBias("logit_bias", bias, e.m.HParams().Vocab); err != nil {
		return genRequest{}, err
	}
	req := genRequest{n: 1}
	if n != nil {
		if *n < 1 || *n > 128 {
			return genRequest{}, badRequest("n", "%d is out of range [1, 128]", *n)
		}
		req.n = *n
	}
	if req.opt.MaxTokens, err = maxTokens(maxField, maxTok); err != nil {
		return genRequest{}, err
	}
	if err := checkStops("stop", stop); err != nil {
		return genRequest{}, err
	}
	req.opt.Stop = stop
	so := p.options(e.m.Sampling())
	req.opt.Sampling = &so
	req.opt.IgnoreEOG = smp.IgnoreEOS
	req.opt.Logprobs = logprobs
	if top != nil {
		if *top < 0 || *top > runtime.MaxTopLogprobs {
			return genRequest{}, badRequest("top_logprobs", "%d is out of range [0, %d]", *top, runtime.MaxTopLogprobs)
		}
		if !logprobs && *top > 0 {
			return genRequest{}, badRequest("top_logprobs", "needs logprobs: true")
		}
		req.opt.TopLogprobs = *top
	}
	return req, nil
}

func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// finishReason is OpenAI's name for how a choice ended.
func finishReason(c *choice) string {
	switch {
	case c.cut():
		return "length"
	case c.calledTools():
		return "tool_calls"
	}
	return "stop"
}

type oaiUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func oaiUsageOf(u usage) *oaiUsage {
	o := &oaiUsage{PromptTokens: u.prompt, CompletionTokens: u.generated, TotalTokens: u.prompt + u.generated}
	o.PromptTokensDetails.CachedTokens = u.cached
	return o
}

// oaiTokenLogprob is one entry of a chat choice's logprobs.content.
type oaiTokenLogprob struct {
	Token       string               `json:"token"`
	Logprob     float32              `json:"logprob"`
	Bytes       []int                `json:"bytes"`
	TopLogprobs []oaiTopLogprobEntry `json:"top_logprobs"`
}

type oaiTopLogprobEntry struct {
	Token   string  `json:"token"`
	Logprob float32 `json:"logprob"`
	Bytes   []int   `json:"bytes"`
}

type oaiLogprobs struct {
	Content []oaiTokenLogprob `json:"content"`
	Refusal []oaiTokenLogprob `json:"refusal"`
}

func bytesOf(b []byte) []int {
	out := make([]int, len(b))
	for i, c := range b {
		out[i] = int(c)
	}
	return out
}

func oaiLogprobEntries(e *modelEntry, lps []tokenLogprob) []oaiTokenLogprob {
	out := make([]oaiTokenLogprob, len(lps))
	for i, lp := range lps {
		p := piece(e, lp.id)
		out[i] = oaiTokenLogprob{Token: string(p), Logprob: lp.logprob, Bytes: bytesOf(p), TopLogprobs: []oaiTopLogprobEntry{}}
		for _, t := range lp.top {
			tp := piece(e, t.ID)
			out[i].TopLogprobs = append(out[i].TopLogprobs, oaiTopLogprobEntry{string(tp), t.Logprob, bytesOf(tp)})
		}
	}
	return out
}

type oaiOutMessage struct {
	Role             string        `json:"role,omitempty"`
	Content          *string       `json:"content,omitempty"`
	ReasoningContent *string       `json:"reasoning_content,omitempty"`
	Refusal          *string       `json:"refusal,omitempty"`
	ToolCalls        []oaiToolCall `json:"tool_calls,omitempty"`
}

// oaiToolCall is a tool call of an answer, or a piece of one in a stream: the first delta of a call carries
// its index, id, type and name; later ones extend function.arguments.
type oaiToolCall struct {
	Index    *int            `json:"index,omitempty"`
	ID       string          `json:"id,omitempty"`
	Type     string          `json:"type,omitempty"`
	Function oaiFunctionCall `json:"function"`
}

type oaiFunctionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// oaiMessageOf is the whole message of a choice: content (null when the answer is only tool calls), reasoning
// and tool calls.
func oaiMessageOf(c *choice) *oaiOutMessage {
	msg := &oaiOutMessage{Role: "assistant", Content: ptr(c.content.String())}
	if c.reasoning.Len() > 0 {
		msg.ReasoningContent = ptr(c.reasoning.String())
	}
	for _, tc := range c.toolCalls() {
		msg.ToolCalls = append(msg.ToolCalls, oaiToolCall{ID: tc.ID, Type: "function",
			Function: oaiFunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
	}
	if len(msg.ToolCalls) > 0 && c.content.Len() == 0 {
		msg.Content = nil
	}
	return msg
}

type oaiChatChoice struct {
	Index        int            `json:"index"`
	Message      *oaiOutMessage `json:"message,omitempty"`
	Delta        *oaiOutMessage `json:"delta,omitempty"`
	Logprobs     *oaiLogprobs   `json:"logprobs"`
	FinishReason *string        `json:"finish_reason"`
}

type oaiChatResponse struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []oaiChatChoice `json:"choices"`
	Usage             *oaiUsage       `json:"usage,omitempty"`
}

const fingerprint = "forma"

// oaiChat is POST /v1/chat/completions.
func (s *Server) oaiChat(w http.ResponseWriter, r *http.Request) error {
	var q oaiChatRequest
	if err := decode(r, &q); err != nil {
		return err
	}
	if err := q.refuse(); err != nil {
		return err
	}
	sh, err := q.shape() // before loading a model for nothing
	if err != nil {
		return err
	}
	msgs, err := oaiMessages(q.Messages)
	if err != nil {
		return err
	}
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	defer s.reg.release(e, nil)
	maxTok, maxField := q.MaxCompletionTokens, "max_completion_tokens"
	if maxTok == nil {
		maxTok, maxField = q.MaxTokens, "max_tokens"
	}
	lp := q.Logprobs != nil && *q.Logprobs
	req, err := oaiGenRequest(e, q.oaiSampling, maxTok, maxField, q.Stop, q.N, q.LogitBias, lp, q.TopLogprobs)
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
	resp := oaiChatResponse{ID: newID("chatcmpl-"), Object: "chat.completion", Created: time.Now().Unix(),
		Model: e.name, SystemFingerprint: fingerprint}
	if !q.Stream {
		choices, err := s.generate(r.Context(), e, p, req, nil)
		if err != nil {
			return err
		}
		for i, c := range choices {
			ch := oaiChatChoice{Index: i, Message: oaiMessageOf(c), FinishReason: ptr(finishReason(c))}
			if lp {
				ch.Logprobs = &oaiLogprobs{Content: oaiLogprobEntries(e, c.logprobs), Refusal: []oaiTokenLogprob{}}
			}
			resp.Choices = append(resp.Choices, ch)
		}
		resp.Usage = oaiUsageOf(usageOf(choices))
		writeJSON(w, http.StatusOK, resp)
		return nil
	}
	return s.oaiChatStream(w, r, e, p, req, resp, q.StreamOptions != nil && q.StreamOptions.IncludeUsage, lp)
}

func ptr[T any](v T) *T { return &v }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// oaiModelObject is one entry of GET /v1/models.
type oaiModelObject struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	// ContextLength is the context of a sequence (as llama-server's and vLLM's max_model_len); the chat page
	// shows how much of it a conversation uses.
	ContextLength int `json:"context_length,omitempty"`
}

func modelObject(e *modelEntry) oaiModelObject {
	return oaiModelObject{ID: e.name, Object: "model", Created: e.loadedAt.Unix(), OwnedBy: "forma", ContextLength: e.eng.ctx}
}

// oaiModels is GET /v1/models: the models loaded.
func (s *Server) oaiModels(w http.ResponseWriter, r *http.Request) error {
	list := []oaiModelObject{}
	for _, e := range s.reg.list() {
		list = append(list, modelObject(e))
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": list})
	return nil
}

// oaiModel is GET /v1/models/{model}.
func (s *Server) oaiModel(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("model")
	s.reg.mu.Lock()
	e := s.reg.lookup(name)
	s.reg.mu.Unlock()
	if e == nil || name == "" {
		return notFound("model_not_found", "model %q is not loaded", name)
	}
	writeJSON(w, http.StatusOK, modelObject(e))
	return nil
}
