package server

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/forma-llm/forma/runtime"
)

// ollamaBody is the part of a response object that differs between chat and generate.
type ollamaBody func(content, thinking string, calls []ollamaToolCall) map[string]any

// ollamaRun generates and writes an Ollama response: NDJSON objects (stream, the default) or one object. As
// Ollama does, a tool call is sent whole, in the object of the token that completes it.
func (s *Server) ollamaRun(w http.ResponseWriter, r *http.Request, e *modelEntry, p prompt, req genRequest,
	q *ollamaCommon, start time.Time, body ollamaBody, withContext bool) error {
	stream := q.Stream == nil || *q.Stream
	load := time.Duration(0)
	if e.loadedAt.After(start) {
		load = e.loadTime
	}
	var generated []int32
	base := func(done bool) map[string]any {
		return map[string]any{"model": e.name, "created_at": time.Now().UTC(), "done": done}
	}
	merge := func(dst, src map[string]any) map[string]any {
		for k, v := range src {
			dst[k] = v
		}
		return dst
	}
	final := func(c *choice, content, thinking string, calls []ollamaToolCall) map[string]any {
		d := ollamaDoneOf(c, start, load)
		if withContext {
			d.Context = append(append([]int32(nil), p.ids...), generated...)
		}
		var dm map[string]any
		b, _ := json.Marshal(d)
		json.Unmarshal(b, &dm)
		out := merge(merge(base(true), body(content, thinking, calls)), dm)
		if req.opt.Logprobs && !stream {
			out["logprobs"] = ollamaLogprobs(e, c.logprobs)
		}
		return out
	}
	if !stream {
		choices, err := s.generate(r.Context(), e, p, req, func(_ int, _ *choice, tok runtime.Token) error {
			if tok.ID >= 0 {
				generated = append(generated, tok.ID)
			}
			return nil
		})
		if err != nil {
			return err
		}
		c := choices[0]
		var calls []ollamaToolCall
		for i, tc := range c.toolCalls() {
			calls = append(calls, ollamaCall(i, tc.ID, tc.Name, tc.Arguments))
		}
		writeJSON(w, http.StatusOK, final(c, c.content.String(), c.reasoning.String(), calls))
		return nil
	}
	var sw *streamWriter
	var one [1]tokenLogprob
	choices, err := s.generate(r.Context(), e, p, req, func(_ int, c *choice, tok runtime.Token) error {
		if sw == nil {
			sw = newNDJSON(w)
			streamStarted(r.Context())
		}
		if tok.ID >= 0 {
			generated = append(generated, tok.ID)
		}
		var calls []ollamaToolCall
		for i, sc := range c.calls {
			if !sc.sent && sc.complete() {
				sc.sent = true
				calls = append(calls, ollamaCall(i, sc.id, sc.name, sc.args.String()))
			}
		}
		lp := req.opt.Logprobs && tok.ID >= 0
		if tok.Text == "" && tok.Reasoning == "" && len(calls) == 0 && !lp {
			return nil
		}
		out := merge(base(false), body(tok.Text, tok.Reasoning, calls))
		if lp {
			one[0] = tokenLogprob{tok.ID, tok.Logprob, tok.Top}
			out["logprobs"] = ollamaLogprobs(e, one[:])
		}
		return sw.event("", out)
	})
	if sw == nil {
		if err != nil {
			return err
		}
		sw = newNDJSON(w)
		streamStarted(r.Context())
	}
	if msg := streamError(r.Context(), choices, err); msg != "" {
		sw.event("", map[string]string{"error": msg})
		return nil
	}
	if r.Context().Err() != nil {
		return nil
	}
	sw.event("", final(choices[0], "", "", nil))
	return nil
}
