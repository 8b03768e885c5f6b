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

	// Refused until structured output lands (tools, formats), or never available here (audio, prediction).
	Tools            json.RawMessage `json:"tools"`
	ToolChoice       json.RawMessage `json:"tool_choice"`
	ResponseFormat   json.RawMessage `json:"response_format"`
	Functions        json.RawMessage `json:"functions"`
	FunctionCall     json.RawMessage `json:"function_call"`
	Audio            json.RawMessage `json:"audio"`
	Modalities       []string        `json:"modalities"`
	Prediction       json.RawMessage `json:"prediction"`
	WebSearchOptions json.RawMessage `json:"web_search_options"`

	// Accepted and ignored: they change nothing in a local server's answer.
	ParallelToolCalls *bool             `json:"parallel_tool_calls"`
	User              string            `json:"user"`
	Store             *bool             `json:"store"`
	Metadata          map[string]string `json:"metadata"`
	ServiceTier       string            `json:"service_tier"`
	ReasoningEffort   string            `json:"reasoning_effort"`
	Verbosity         string            `json:"verbosity"`
	PromptCacheKey    string            `json:"prompt_cache_key"`
	SafetyIdentifier  string            `json:"safety_identifier"`
	CachePrompt       *bool             `json:"cache_prompt"`
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
	ToolCalls        []chat.ToolCall `json:"tool_calls"`
	ToolCallID       string          `json:"tool_call_id"`
	ReasoningContent string          `json:"reasoning_content"`
	Refusal          *string         `json:"refusal"`
	Audio            json.RawMessage `json:"audio"`
	FunctionCall     json.RawMessage `json:"function_call"`
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
		out[i] = chat.Message{Role: m.Role, Content: m.Content.text, Name: m.Name, ToolCalls: m.ToolCalls,
			ToolCallID: m.ToolCallID, ReasoningContent: m.ReasoningContent}
	}
	return out, nil
}

// refuse rejects the fields the server does not serve (tools and formats go through constrain).
func (q *oaiChatRequest) refuse() error {
	for _, f := range []struct {
		name string
		v    json.RawMessage
	}{{"functions", q.Functions}, {"function_call", q.FunctionCall}, {"audio", q.Audio}, {"prediction", q.Prediction},
		{"web_search_options", q.WebSearchOptions}} {
		if hasJSON(f.v) {
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

func (q *oaiChatRequest) structured() structured {
	return structured{tools: q.Tools, toolChoice: q.ToolChoice, format: q.ResponseFormat,
		toolsField: "tools", toolChoiceField: "tool_choice", formatField: "response_format"}
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
func finishReason(st runtime.Stats) string {
	switch st.Stop {
	case runtime.StopMaxTokens, runtime.StopContext:
		return "length"
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
	Role             string  `json:"role,omitempty"`
	Content          *string `json:"content,omitempty"`
	ReasoningContent *string `json:"reasoning_content,omitempty"`
	Refusal          *string `json:"refusal,omitempty"`
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
	if err := constrain(q.structured(), nil); err != nil { // before loading a model for nothing
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
	if err := constrain(q.structured(), &req.opt); err != nil {
		return err
	}
	p, err := chatPrompt(e, msgs, q.ChatTemplateKwargs)
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
			msg := &oaiOutMessage{Role: "assistant", Content: ptr(c.content.String())}
			if c.reasoning.Len() > 0 {
				msg.ReasoningContent = ptr(c.reasoning.String())
			}
			ch := oaiChatChoice{Index: i, Message: msg, FinishReason: ptr(finishReason(c.res.stats))}
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

func (s *Server) oaiChatStream(w http.ResponseWriter, r *http.Request, e *modelEntry, p prompt, req genRequest,
	chunk oaiChatResponse, includeUsage, lp bool) error {
	chunk.Object = "chat.completion.chunk"
	var sw *streamWriter
	start := func() error {
		if sw != nil {
			return nil
		}
		sw = newSSE(w)
		streamStarted(r.Context())
		for i := range max(req.n, 1) { // the first chunk of each choice carries the role
			c := chunk
			c.Choices = []oaiChatChoice{{Index: i, Delta: &oaiOutMessage{Role: "assistant", Content: ptr("")}}}
			if err := sw.event("", c); err != nil {
				return err
			}
		}
		return nil
	}
	var one [1]tokenLogprob
	choices, err := s.generate(r.Context(), e, p, req, func(i int, tok runtime.Token, segs []segment) error {
		if err := start(); err != nil {
			return err
		}
		var lps *oaiLogprobs
		if lp && tok.ID >= 0 {
			one[0] = tokenLogprob{tok.ID, tok.Logprob, tok.Top}
			lps = &oaiLogprobs{Content: oaiLogprobEntries(e, one[:]), Refusal: []oaiTokenLogprob{}}
		}
		if len(segs) == 0 && lps == nil {
			return nil
		}
		delta := &oaiOutMessage{}
		for _, sg := range segs {
			if sg.kind == outReasoning {
				delta.ReasoningContent = ptr(deref(delta.ReasoningContent) + sg.text)
			} else {
				delta.Content = ptr(deref(delta.Content) + sg.text)
			}
		}
		c := chunk
		c.Choices = []oaiChatChoice{{Index: i, Delta: delta, Logprobs: lps}}
		return sw.event("", c)
	})
	if sw == nil {
		if err != nil {
			return err // nothing streamed yet: a plain error response
		}
		if err := start(); err != nil {
			return nil
		}
	}
	if msg := streamError(r.Context(), choices, err); msg != "" {
		sw.event("", errorBody(kindOpenAI, asAPIError(fmt.Errorf("%s", msg))))
		return nil
	}
	if r.Context().Err() != nil {
		return nil
	}
	for i, c := range choices {
		ch := chunk
		ch.Choices = []oaiChatChoice{{Index: i, Delta: &oaiOutMessage{}, FinishReason: ptr(finishReason(c.res.stats))}}
		if sw.event("", ch) != nil {
			return nil
		}
	}
	if includeUsage {
		ch := chunk
		ch.Choices = []oaiChatChoice{}
		ch.Usage = oaiUsageOf(usageOf(choices))
		if sw.event("", ch) != nil {
			return nil
		}
	}
	sw.done()
	return nil
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
