// Package chatstub is a minimal OpenAI-compatible chat API over runtime sessions: GET /v1/models and POST
// /v1/chat/completions (streamed as server-sent events, or whole), text only.
//
// It stands in for package server, which is written on another branch, so that the desktop app (forma app,
// bundles) and the chat page's browser test have an API to talk to. When server lands, cmd/forma's newAPI and
// web's serverUnderTest switch to it and this package is deleted.
package chatstub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/chat"
)

// Model is one model the API serves under Name.
type Model struct {
	Name  string
	Model *runtime.Model
}

// entry is a served model: one session, requests taking turns on it.
type entry struct {
	name   string
	mu     sync.Mutex
	sess   *runtime.Session
	system string
}

// Handler is the API. Close frees its sessions (not the models).
type Handler struct {
	mux    *http.ServeMux
	models map[string]*entry
	order  []*entry
}

// New returns the API over models, each with one session made with opt (its System is the requests' to set).
func New(models []Model, opt runtime.SessionOptions) (*Handler, error) {
	h := &Handler{mux: http.NewServeMux(), models: map[string]*entry{}}
	for _, m := range models {
		if _, dup := h.models[m.Name]; dup {
			h.Close()
			return nil, fmt.Errorf("chatstub: two models named %q", m.Name)
		}
		s, err := m.Model.NewSession(opt)
		if err != nil {
			h.Close()
			return nil, err
		}
		e := &entry{name: m.Name, sess: s}
		h.models[m.Name], h.order = e, append(h.order, e)
	}
	h.mux.HandleFunc("GET /v1/models", h.listModels)
	h.mux.HandleFunc("POST /v1/chat/completions", h.chat)
	return h, nil
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Close closes the sessions.
func (h *Handler) Close() error {
	var errs []error
	for _, e := range h.order {
		e.mu.Lock()
		errs = append(errs, e.sess.Close())
		e.mu.Unlock()
	}
	return errors.Join(errs...)
}

func (h *Handler) listModels(w http.ResponseWriter, r *http.Request) {
	type model struct {
		ID            string `json:"id"`
		Object        string `json:"object"`
		Created       int64  `json:"created"`
		OwnedBy       string `json:"owned_by"`
		ContextLength int    `json:"context_length"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	for _, e := range h.order {
		list.Data = append(list.Data, model{ID: e.name, Object: "model", OwnedBy: "forma", ContextLength: e.sess.Ctx()})
	}
	writeJSON(w, http.StatusOK, list)
}

// request is the part of a chat completion request this API reads.
type request struct {
	Model         string    `json:"model"`
	Messages      []message `json:"messages"`
	Stream        bool      `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           *int     `json:"max_tokens"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	Temperature         *float32 `json:"temperature"`
	TopP                *float32 `json:"top_p"`
	TopK                *int     `json:"top_k"`
	Seed                *int64   `json:"seed"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text returns a message's content: a string, or the text of an array of parts.
func (m message) text() (string, error) {
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", fmt.Errorf("a %s message's content must be a string or an array of text parts", m.Role)
	}
	for _, p := range parts {
		if p.Type != "text" {
			return "", fmt.Errorf("content part of type %q: only text is supported", p.Type)
		}
		s += p.Text
	}
	return s, nil
}

// conversation splits the messages into the system message, the history and the last user message.
func (q *request) conversation() (system string, history []chat.Message, last string, err error) {
	for i, m := range q.Messages {
		t, err := m.text()
		if err != nil {
			return "", nil, "", err
		}
		switch {
		case m.Role == "system" || m.Role == "developer":
			system += t
		case i == len(q.Messages)-1 && m.Role == "user":
			last = t
		case m.Role == "user" || m.Role == "assistant":
			history = append(history, chat.Message{Role: m.Role, Content: t})
		default:
			return "", nil, "", fmt.Errorf("message %d: role %q is not supported", i, m.Role)
		}
	}
	if len(q.Messages) == 0 || q.Messages[len(q.Messages)-1].Role != "user" {
		return "", nil, "", errors.New("messages must end with a user message")
	}
	return system, history, last, nil
}

// options returns the generation options: the model's sampling defaults with the request's values.
func (q *request) options(m *runtime.Model) (runtime.GenerateOptions, error) {
	s := m.Sampling()
	if q.Temperature != nil {
		s.Temperature = *q.Temperature
	}
	if q.TopP != nil {
		s.TopP = *q.TopP
	}
	if q.TopK != nil {
		s.TopK = *q.TopK
	}
	if q.Seed != nil {
		s.Seed = uint64(*q.Seed)
	}
	if err := s.Validate(); err != nil {
		return runtime.GenerateOptions{}, err
	}
	o := runtime.GenerateOptions{Sampling: &s}
	for _, n := range []*int{q.MaxTokens, q.MaxCompletionTokens} {
		if n != nil {
			if *n < 1 {
				return o, fmt.Errorf("max_tokens %d must be at least 1", *n)
			}
			o.MaxTokens = *n
		}
	}
	return o, nil
}

func (h *Handler) chat(w http.ResponseWriter, r *http.Request) {
	var q request
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 8<<20)).Decode(&q); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON body: "+err.Error())
		return
	}
	e, ok := h.models[q.Model]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model %q not found", q.Model))
		return
	}
	system, history, last, err := q.conversation()
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	opt, err := q.options(e.sess.Model())
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if system != e.system {
		e.sess.SetSystem(system)
		e.system = system
	}
	e.sess.SetHistory(history)
	out := newWriter(w, e.name, q.Stream, q.StreamOptions != nil && q.StreamOptions.IncludeUsage)
	out.generate(r.Context(), e.sess, last, opt)
}

// writer writes an answer as chunks (stream) or as one completion.
type writer struct {
	w       http.ResponseWriter
	model   string
	stream  bool
	usage   bool
	id      string
	created int64
	text    []byte
}

func newWriter(w http.ResponseWriter, model string, stream, usage bool) *writer {
	now := time.Now()
	return &writer{w: w, model: model, stream: stream, usage: usage, id: fmt.Sprintf("chatcmpl-%d", now.UnixNano()),
		created: now.Unix()}
}

func (o *writer) generate(ctx context.Context, s *runtime.Session, msg string, opt runtime.GenerateOptions) {
	if o.stream {
		h := o.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		o.w.WriteHeader(http.StatusOK)
		o.chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	}
	for tok, err := range s.Chat(ctx, msg, opt) {
		if err != nil {
			if ctx.Err() != nil {
				return // the client left
			}
			if !o.stream {
				writeError(o.w, http.StatusInternalServerError, err.Error())
				return
			}
			o.event(map[string]any{"error": map[string]string{"message": err.Error(), "type": "server_error"}})
			return
		}
		if tok.Text == "" {
			continue
		}
		if o.stream {
			o.chunk(map[string]any{"content": tok.Text}, nil, nil)
		} else {
			o.text = append(o.text, tok.Text...)
		}
	}
	st := s.Stats()
	finish := "stop"
	if st.Stop == runtime.StopMaxTokens || st.Stop == runtime.StopContext {
		finish = "length"
	}
	usage := map[string]int{"prompt_tokens": st.PromptTokens, "completion_tokens": st.Generated,
		"total_tokens": st.PromptTokens + st.Generated}
	if !o.stream {
		writeJSON(o.w, http.StatusOK, map[string]any{"id": o.id, "object": "chat.completion", "created": o.created,
			"model": o.model, "usage": usage, "choices": []any{map[string]any{"index": 0, "finish_reason": finish,
				"message": map[string]string{"role": "assistant", "content": string(o.text)}}}})
		return
	}
	o.chunk(map[string]any{}, &finish, nil)
	if o.usage {
		o.chunk(nil, nil, usage)
	}
	fmt.Fprint(o.w, "data: [DONE]\n\n")
	o.flush()
}

// chunk writes one chat.completion.chunk event: a delta, or (delta nil) the usage with no choices.
func (o *writer) chunk(delta map[string]any, finish *string, usage map[string]int) {
	c := map[string]any{"id": o.id, "object": "chat.completion.chunk", "created": o.created, "model": o.model}
	if delta != nil {
		c["choices"] = []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
	} else {
		c["choices"] = []any{}
		c["usage"] = usage
	}
	o.event(c)
}

func (o *writer) event(v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(o.w, "data: %s\n\n", b)
	o.flush()
}

func (o *writer) flush() {
	if f, ok := o.w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]string{"message": msg, "type": "invalid_request_error"}})
}
