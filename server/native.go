package server

import (
	"encoding/json"
	"net/http"
	"unicode/utf8"

	"github.com/forma-llm/forma/runtime/tokenizer"
)

// detokenizeOpts renders token ids as llama-server's /detokenize does: control tokens as their text.
var detokenizeOpts = tokenizer.DecodeOptions{Special: true}

// health is GET /health: 503 while the start-up models load, then 200.
func (s *Server) health(w http.ResponseWriter, r *http.Request) error {
	if !s.ready.Load() {
		return errLoading
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

// metricsHandler is GET /metrics, in Prometheus' text format.
func (s *Server) metricsHandler(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	s.metrics.write(w)
	return nil
}

// tokenize is POST /tokenize: {"content", "add_special", "parse_special", "with_pieces"} → {"tokens"}.
func (s *Server) tokenize(w http.ResponseWriter, r *http.Request) error {
	var q struct {
		Model        string `json:"model"`
		Content      string `json:"content"`
		AddSpecial   bool   `json:"add_special"`
		ParseSpecial *bool  `json:"parse_special"`
		WithPieces   bool   `json:"with_pieces"`
	}
	if err := decode(r, &q); err != nil {
		return err
	}
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	defer s.reg.release(e, nil)
	parse := q.ParseSpecial == nil || *q.ParseSpecial
	ids, err := e.m.Tokenizer.Encode(q.Content, tokenizer.EncodeOptions{AddSpecial: q.AddSpecial, ParseSpecial: parse})
	if err != nil {
		return badRequest("content", "%v", err)
	}
	if !q.WithPieces {
		writeJSON(w, http.StatusOK, map[string]any{"tokens": nonNil(ids)})
		return nil
	}
	type tp struct {
		ID    int32 `json:"id"`
		Piece any   `json:"piece"` // a string, or its bytes when they are not valid UTF-8
	}
	out := make([]tp, len(ids))
	for i, id := range ids {
		p := piece(e, id)
		out[i] = tp{ID: id, Piece: string(p)}
		if !validUTF8(p) {
			out[i].Piece = bytesOf(p)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
	return nil
}

// detokenize is POST /detokenize: {"tokens"} → {"content"}.
func (s *Server) detokenize(w http.ResponseWriter, r *http.Request) error {
	var q struct {
		Model  string  `json:"model"`
		Tokens []int32 `json:"tokens"`
	}
	if err := decode(r, &q); err != nil {
		return err
	}
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	defer s.reg.release(e, nil)
	vocab := e.m.Tokenizer.Len()
	for _, id := range q.Tokens {
		if id < 0 || int(id) >= vocab {
			return badRequest("tokens", "token id %d is outside the vocabulary of %d", id, vocab)
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"content": e.m.Tokenizer.Detokenize(q.Tokens, detokenizeOpts)})
	return nil
}

// applyTemplate is POST /apply-template: {"messages", "tools", "chat_template_kwargs"} → {"prompt"}, the text a
// chat request would evaluate.
func (s *Server) applyTemplate(w http.ResponseWriter, r *http.Request) error {
	var q struct {
		Model              string                     `json:"model"`
		Messages           []oaiMessage               `json:"messages"`
		Tools              json.RawMessage            `json:"tools"`
		ChatTemplateKwargs map[string]json.RawMessage `json:"chat_template_kwargs"`
	}
	if err := decode(r, &q); err != nil {
		return err
	}
	msgs, err := oaiMessages(q.Messages)
	if err != nil {
		return err
	}
	sh := shape{toolsField: "tools"}
	if err := sh.readTools(q.Tools); err != nil {
		return err
	}
	e, err := s.acquireModel(r, q.Model)
	if err != nil {
		return err
	}
	defer s.reg.release(e, nil)
	p, err := chatPrompt(e, msgs, sh.tools, q.ChatTemplateKwargs)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"prompt": p.text})
	return nil
}

func nonNil(ids []int32) []int32 {
	if ids == nil {
		return []int32{}
	}
	return ids
}

func validUTF8(b []byte) bool { return utf8.Valid(b) }
