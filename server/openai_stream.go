package server

import (
	"fmt"
	"net/http"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/toolcall"
)

// oaiChatStream writes a chat answer as Server-Sent Events: a first chunk per choice with the role, then one
// chunk per token with its delta (content, reasoning_content, tool_calls) and logprobs, a last chunk per choice
// with its finish_reason, the usage chunk when asked, and [DONE].
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
	choices, err := s.generate(r.Context(), e, p, req, func(i int, _ *choice, tok runtime.Token) error {
		if err := start(); err != nil {
			return err
		}
		var lps *oaiLogprobs
		if lp && tok.ID >= 0 {
			one[0] = tokenLogprob{tok.ID, tok.Logprob, tok.Top}
			lps = &oaiLogprobs{Content: oaiLogprobEntries(e, one[:]), Refusal: []oaiTokenLogprob{}}
		}
		delta := oaiDelta(tok)
		if delta == nil && lps == nil {
			return nil
		}
		if delta == nil {
			delta = &oaiOutMessage{}
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
		ch.Choices = []oaiChatChoice{{Index: i, Delta: &oaiOutMessage{}, FinishReason: ptr(finishReason(c))}}
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

// oaiDelta is the streamed delta of a token: its answer text, reasoning and call deltas.
func oaiDelta(tok runtime.Token) *oaiOutMessage {
	delta := &oaiOutMessage{}
	if tok.Text != "" {
		delta.Content = ptr(tok.Text)
	}
	if tok.Reasoning != "" {
		delta.ReasoningContent = ptr(tok.Reasoning)
	}
	for _, d := range tok.Calls {
		switch d.Kind {
		case toolcall.CallStart:
			delta.ToolCalls = append(delta.ToolCalls, oaiToolCall{Index: ptr(d.Index), ID: d.ID, Type: "function",
				Function: oaiFunctionCall{Name: d.Name}})
		case toolcall.CallArgs:
			if n := len(delta.ToolCalls); n > 0 && *delta.ToolCalls[n-1].Index == d.Index {
				delta.ToolCalls[n-1].Function.Arguments += d.Text // one entry per call and chunk
				continue
			}
			delta.ToolCalls = append(delta.ToolCalls, oaiToolCall{Index: ptr(d.Index), Function: oaiFunctionCall{Arguments: d.Text}})
		}
	}
	if delta.Content == nil && delta.ReasoningContent == nil && delta.ToolCalls == nil {
		return nil
	}
	return delta
}
