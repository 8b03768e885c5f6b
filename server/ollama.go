package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/chat"
)

// ollamaVersion is the version of Ollama's API whose wire format these endpoints follow.
const ollamaVersion = "0.12.0"

type ollamaMessage struct {
	Role       string             `json:"role"`
	Content    string             `json:"content"`
	Thinking   string             `json:"thinking"`
	Images     []string           `json:"images"`
	ToolCalls  []ollamaToolCallIn `json:"tool_calls"`
	ToolName   string             `json:"tool_name"`
	ToolCallID string             `json:"tool_call_id"`
}

// ollamaToolCallIn is a tool call of an earlier assistant turn: arguments are an object (a JSON string holding
// one is accepted too).
type ollamaToolCallIn struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Index     *int            `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// ollamaToolCall is a tool call of an answer, sent whole.
type ollamaToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Index     int             `json:"index"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

func ollamaCall(i int, id, name, args string) ollamaToolCall {
	var c ollamaToolCall
	c.ID, c.Function.Index, c.Function.Name, c.Function.Arguments = id, i, name, json.RawMessage(args)
	return c
}

// ollamaCommon are the fields /api/chat and /api/generate share.
type ollamaCommon struct {
	Model       string          `json:"model"`
	Stream      *bool           `json:"stream"`
	Format      json.RawMessage `json:"format"`
	Options     ollamaOptions   `json:"options"`
	KeepAlive   *ollamaDuration `json:"keep_alive"`
	Think       json.RawMessage `json:"think"`
	Truncate    *bool           `json:"truncate"`
	Shift       *bool           `json:"shift"`
	Logprobs    bool            `json:"logprobs"`
	TopLogprobs int             `json:"top_logprobs"`
	Tools       json.RawMessage `json:"tools"`
}

type ollamaChatRequest struct {
	ollamaCommon
	Messages []ollamaMessage `json:"messages"`
	// ToolChoice is forma's extension, in OpenAI's form: Ollama has none (the model may call a tool).
	ToolChoice json.RawMessage `json:"tool_choice"`
}

type ollamaGenerateRequest struct {
	ollamaCommon
	Prompt   string   `json:"prompt"`
	Suffix   string   `json:"suffix"`
	System   string   `json:"system"`
	Template string   `json:"template"`
	Context  []int32  `json:"context"`
	Raw      bool     `json:"raw"`
	Images   []string `json:"images"`
}

// ollamaDuration is keep_alive: a duration string ("5m", "-1") or a number of seconds.
type ollamaDuration struct{ d time.Duration }

func (d *ollamaDuration) UnmarshalJSON(b []byte) error {
	switch jsonKind(b) {
	case "number":
		var s float64
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		d.d = time.Duration(s * float64(time.Second))
	case "string":
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			var n float64
			if _, e := fmt.Sscan(s, &n); e != nil {
				return badRequest("keep_alive", "%q is not a duration", s)
			}
			v = time.Duration(n * float64(time.Second))
		}
		d.d = v
	default:
		return typeError(b, "")
	}
	if d.d < 0 {
		d.d = -1
	}
	return nil
}

// ollamaOptions are the model options of a request, checked key by key.
type ollamaOptions struct {
	smp        sampling
	numPredict *int
	stop       []string
}

// ollamaIgnored are options that tune hardware or the runner and change no answer here.
var ollamaIgnored = map[string]bool{"num_ctx": true, "num_batch": true, "num_gpu": true, "main_gpu": true,
	"use_mmap": true, "use_mlock": true, "num_thread": true, "numa": true, "low_vram": true, "f16_kv": true,
	"vocab_only": true, "num_keep": true, "penalize_newline": true}

func (o *ollamaOptions) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return typeError(b, map[string]any{})
	}
	floats := map[string]**float64{"temperature": &o.smp.temperature, "top_p": &o.smp.topP, "min_p": &o.smp.minP,
		"typical_p": &o.smp.typicalP, "repeat_penalty": &o.smp.repeatPenalty, "presence_penalty": &o.smp.presence,
		"frequency_penalty": &o.smp.frequency}
	ints := map[string]**int{"top_k": &o.smp.topK, "repeat_last_n": &o.smp.repeatLastN, "num_predict": &o.numPredict}
	for k, raw := range m {
		field := "options." + k
		if string(raw) == "null" {
			continue
		}
		switch {
		case floats[k] != nil:
			var v float64
			if json.Unmarshal(raw, &v) != nil {
				return badRequest(field, "expected a number, got %s", jsonKind(raw))
			}
			*floats[k] = &v
		case ints[k] != nil:
			var v int
			if json.Unmarshal(raw, &v) != nil {
				return badRequest(field, "expected an integer, got %s", jsonKind(raw))
			}
			*ints[k] = &v
		case k == "seed":
			var v int64
			if json.Unmarshal(raw, &v) != nil {
				return badRequest(field, "expected an integer, got %s", jsonKind(raw))
			}
			o.smp.seed = &v
		case k == "stop":
			var v stringList
			if json.Unmarshal(raw, &v) != nil {
				return badRequest(field, "expected an array of strings, got %s", jsonKind(raw))
			}
			o.stop = v
		case k == "mirostat":
			var v float64
			if json.Unmarshal(raw, &v) != nil || v != 0 {
				return notSupported(field)
			}
		case k == "mirostat_tau" || k == "mirostat_eta" || k == "tfs_z":
		case ollamaIgnored[k]:
		default:
			return badRequest(field, "unknown option")
		}
	}
	return nil
}

// shape reads tools (OpenAI's shape), tool_choice (forma's extension, OpenAI's values; without it the model
// may call a tool) and format ("json" for a JSON object, or a JSON Schema).
func (q *ollamaCommon) shape(toolChoice json.RawMessage) (shape, error) {
	s := shape{parallel: true, toolsField: "tools", paramsField: "tools[%d].function.parameters",
		formatField: "format", schemaField: "format"}
	if err := s.readTools(q.Tools); err != nil {
		return s, err
	}
	if err := s.readChoice("tool_choice", toolChoice); err != nil {
		return s, err
	}
	if f, ok := asString(q.Format); ok {
		switch f {
		case "":
		case "json":
			s.json = true
		default:
			return s, badRequest("format", "unknown value %q (\"json\" or a JSON Schema)", f)
		}
	} else if hasJSON(q.Format) {
		if err := s.setSchema(q.Format); err != nil {
			return s, err
		}
	}
	return s, s.check()
}

// thinking reads think: a boolean, or an effort (high, medium, low: thinking on).
func (q *ollamaCommon) thinking() (on *bool, effort string, err error) {
	if !hasJSON(q.Think) {
		return nil, "", nil
	}
	var b bool
	if json.Unmarshal(q.Think, &b) == nil {
		return &b, "", nil
	}
	var s string
	if json.Unmarshal(q.Think, &s) == nil && (s == "high" || s == "medium" || s == "low") {
		return ptr(true), s, nil
	}
	return nil, "", badRequest("think", "expected a boolean or high/medium/low, got %s", string(q.Think))
}

// thinkKwargs are the template variables of think for a model (gpt-oss takes the effort itself).
func (q *ollamaCommon) thinkKwargs(e *modelEntry) map[string]json.RawMessage {
	on, effort, _ := q.thinking() // checked before the model was loaded
	vars := thinkingKwargs(e, on)
	if _, ok := vars["reasoning_effort"]; ok && effort != "" {
		vars["reasoning_effort"], _ = json.Marshal(effort)
	}
	return vars
}

// genRequest converts the options and applies the request's shape.
func (q *ollamaCommon) genRequest(e *modelEntry, sh shape) (genRequest, error) {
	if err := q.Options.smp.check(); err != nil {
		return genRequest{}, err
	}
	req := genRequest{n: 1}
	if n := q.Options.numPredict; n != nil && *n > 0 {
		req.opt.MaxTokens = *n // -1 (infinite) and -2 (fill the context) both run to the context's end here
	}
	if err := checkStops("options.stop", q.Options.stop); err != nil {
		return genRequest{}, err
	}
	req.opt.Stop = q.Options.stop
	so := q.Options.smp.options(e.m.Sampling())
	req.opt.Sampling = &so
	if err := sh.checkModel(e); err != nil {
		return genRequest{}, err
	}
	sh.apply(&req)
	if q.TopLogprobs < 0 || q.TopLogprobs > runtime.MaxTopLogprobs {
		return genRequest{}, badRequest("top_logprobs", "%d is out of range [0, %d]", q.TopLogprobs, runtime.MaxTopLogprobs)
	}
	req.opt.Logprobs, req.opt.TopLogprobs = q.Logprobs, q.TopLogprobs
	return req, nil
}

func (q *ollamaCommon) keepAlive() *time.Duration {
	if q.KeepAlive == nil {
		return nil
	}
	return &q.KeepAlive.d
}

// ollamaDone is the last object of a response: why it ended and how long each part took, in nanoseconds.
type ollamaDone struct {
	DoneReason         string  `json:"done_reason"`
	TotalDuration      int64   `json:"total_duration"`
	LoadDuration       int64   `json:"load_duration"`
	PromptEvalCount    int     `json:"prompt_eval_count"`
	PromptEvalDuration int64   `json:"prompt_eval_duration"`
	EvalCount          int     `json:"eval_count"`
	EvalDuration       int64   `json:"eval_duration"`
	Context            []int32 `json:"context,omitempty"`
}

func ollamaDoneOf(c *choice, start time.Time, load time.Duration) ollamaDone {
	st := c.res.stats
	reason := "stop"
	if st.Stop == runtime.StopMaxTokens || st.Stop == runtime.StopContext {
		reason = "length"
	}
	return ollamaDone{DoneReason: reason, TotalDuration: time.Since(start).Nanoseconds(), LoadDuration: load.Nanoseconds(),
		PromptEvalCount: st.PromptTokens, PromptEvalDuration: st.PromptTime.Nanoseconds(), EvalCount: st.Generated,
		EvalDuration: st.GenTime.Nanoseconds()}
}

type ollamaLogprob struct {
	Token       string          `json:"token"`
	Logprob     float32         `json:"logprob"`
	Bytes       []int           `json:"bytes,omitempty"`
	TopLogprobs []ollamaLogprob `json:"top_logprobs,omitempty"`
}

func ollamaLogprobs(e *modelEntry, lps []tokenLogprob) []ollamaLogprob {
	var out []ollamaLogprob
	for _, lp := range lps {
		p := piece(e, lp.id)
		x := ollamaLogprob{Token: string(p), Logprob: lp.logprob, Bytes: bytesOf(p)}
		for _, t := range lp.top {
			tp := piece(e, t.ID)
			x.TopLogprobs = append(x.TopLogprobs, ollamaLogprob{Token: string(tp), Logprob: t.Logprob, Bytes: bytesOf(tp)})
		}
		out = append(out, x)
	}
	return out
}

// ollamaLoad answers a request without a prompt: it loads the model (or, with keep_alive 0, unloads it).
func (s *Server) ollamaLoad(w http.ResponseWriter, r *http.Request, q *ollamaCommon, chatAPI bool) error {
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	reason := "load"
	if ka := q.keepAlive(); ka != nil && *ka == 0 {
		reason = "unload"
	}
	s.reg.release(e, q.keepAlive())
	out := map[string]any{"model": e.name, "created_at": time.Now().UTC(), "done": true, "done_reason": reason}
	if chatAPI {
		out["message"] = map[string]string{"role": "assistant", "content": ""}
	} else {
		out["response"] = ""
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// ollamaChat is POST /api/chat.
func (s *Server) ollamaChat(w http.ResponseWriter, r *http.Request) error {
	start := time.Now()
	var q ollamaChatRequest
	if err := decode(r, &q); err != nil {
		return err
	}
	sh, err := q.shape(q.ToolChoice)
	if err != nil {
		return err
	}
	if _, _, err := q.thinking(); err != nil {
		return err
	}
	if len(q.Messages) == 0 {
		return s.ollamaLoad(w, r, &q.ollamaCommon, true)
	}
	msgs, err := ollamaMessages(q.Messages)
	if err != nil {
		return err
	}
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	defer func() { s.reg.release(e, q.keepAlive()) }()
	req, err := q.genRequest(e, sh)
	if err != nil {
		return err
	}
	p, err := chatPrompt(e, msgs, sh.tools, q.thinkKwargs(e))
	if err != nil {
		return err
	}
	return s.ollamaRun(w, r, e, p, req, &q.ollamaCommon, start, func(content, thinking string, calls []ollamaToolCall) map[string]any {
		msg := map[string]any{"role": "assistant", "content": content}
		if thinking != "" {
			msg["thinking"] = thinking
		}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		return map[string]any{"message": msg}
	}, false)
}

// ollamaMessages converts and checks the conversation.
func ollamaMessages(in []ollamaMessage) ([]chat.Message, error) {
	msgs := make([]chat.Message, len(in))
	for i, m := range in {
		field := fmt.Sprintf("messages[%d]", i)
		switch {
		case m.Role != "system" && m.Role != "user" && m.Role != "assistant" && m.Role != "tool":
			return nil, badRequest(field+".role", "unknown role %q", m.Role)
		case len(m.Images) > 0:
			return nil, notSupported(field + ".images")
		case len(m.ToolCalls) > 0 && m.Role != "assistant":
			return nil, badRequest(field+".tool_calls", "only assistant messages carry tool calls")
		}
		msgs[i] = chat.Message{Role: m.Role, Content: m.Content, ReasoningContent: m.Thinking, Name: m.ToolName, ToolCallID: m.ToolCallID}
		for j, tc := range m.ToolCalls {
			f := fmt.Sprintf("%s.tool_calls[%d].function", field, j)
			if tc.Function.Name == "" {
				return nil, badRequest(f+".name", "required")
			}
			args, err := callArguments(f+".arguments", tc.Function.Arguments)
			if err != nil {
				return nil, err
			}
			msgs[i].ToolCalls = append(msgs[i].ToolCalls, chat.ToolCall{ID: tc.ID, Type: "function",
				Function: chat.FunctionCall{Name: tc.Function.Name, Arguments: args}})
		}
	}
	return withNames(msgs), nil
}

// ollamaGenerate is POST /api/generate.
func (s *Server) ollamaGenerate(w http.ResponseWriter, r *http.Request) error {
	start := time.Now()
	var q ollamaGenerateRequest
	if err := decode(r, &q); err != nil {
		return err
	}
	switch {
	case hasJSON(q.Tools) && string(q.Tools) != "[]":
		return notSupported("tools (/api/generate has no tool calls: use /api/chat)")
	case q.Suffix != "":
		return notSupported("suffix")
	case q.Template != "":
		return notSupported("template (Go templates; the model's chat template is used)")
	case len(q.Images) > 0:
		return notSupported("images")
	}
	sh, err := q.shape(nil)
	if err != nil {
		return err
	}
	if _, _, err := q.thinking(); err != nil {
		return err
	}
	if q.Prompt == "" && len(q.Context) == 0 {
		return s.ollamaLoad(w, r, &q.ollamaCommon, false)
	}
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	defer func() { s.reg.release(e, q.keepAlive()) }()
	req, err := q.genRequest(e, sh)
	if err != nil {
		return err
	}
	var p prompt
	if q.Raw {
		p = prompt{text: q.Prompt}
		req.opt.RawReply = true // the text as the model writes it: no reasoning split off
	} else {
		var msgs []chat.Message
		if q.System != "" {
			msgs = append(msgs, chat.Message{Role: "system", Content: q.System})
		}
		if p, err = chatPrompt(e, append(msgs, chat.Message{Role: "user", Content: q.Prompt}), nil, q.thinkKwargs(e)); err != nil {
			return err
		}
	}
	vocab := e.m.HParams().Vocab
	for _, id := range q.Context {
		if id < 0 || int(id) >= vocab {
			return badRequest("context", "token id %d is outside the vocabulary of %d", id, vocab)
		}
	}
	ids, err := encode(e, p.text, len(q.Context) == 0)
	if err != nil {
		return err
	}
	p.ids = append(append([]int32(nil), q.Context...), ids...)
	return s.ollamaRun(w, r, e, p, req, &q.ollamaCommon, start, func(content, thinking string, _ []ollamaToolCall) map[string]any {
		out := map[string]any{"response": content}
		if thinking != "" {
			out["thinking"] = thinking
		}
		return out
	}, true)
}
