package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/toolcall"
)

// choice is one sequence's answer as it accumulates: the runtime splits it into the answer, the reasoning
// (templates that think) and tool calls (requests with tools).
type choice struct {
	content   strings.Builder
	reasoning strings.Builder
	calls     []*streamedCall // the calls as they stream, by index
	logprobs  []tokenLogprob  // when asked for
	res       genResult
}

// streamedCall is a tool call as its deltas arrive: its start (id, name), then fragments of its arguments.
type streamedCall struct {
	id, name string
	args     strings.Builder
	sent     bool // written whole (APIs that send a call only once it is complete)
}

// complete reports whether the arguments are whole: the fragments concatenate to one JSON object, and no
// proper prefix of a JSON object is valid JSON.
func (c *streamedCall) complete() bool {
	a := strings.TrimRight(c.args.String(), " \t\r\n")
	return strings.HasSuffix(a, "}") && json.Valid([]byte(a))
}

// tokenLogprob is a generated token's log-probability and its top alternatives (copied out of the runtime's
// reused slice).
type tokenLogprob struct {
	id      int32
	logprob float32
	top     []runtime.TokenLogprob
}

// onToken is a handler's streaming writer: called for each token of choice i after c has recorded it.
// tok.Text is answer text, tok.Reasoning reasoning, tok.Calls call starts and argument fragments (the slice is
// reused after the call returns).
type onToken func(i int, c *choice, tok runtime.Token) error

// generate runs req on the model and returns its choices; write, when not nil, streams them. It fills the
// request's log line. A constraint the engine refuses is a 400 naming req.constraintField.
func (s *Server) generate(ctx context.Context, e *modelEntry, p prompt, req genRequest, write onToken) ([]*choice, error) {
	req.prompt = p.ids
	n := max(req.n, 1)
	choices := make([]*choice, n)
	for i := range choices {
		choices[i] = &choice{}
	}
	wantLP := req.opt.Logprobs || req.opt.TopLogprobs > 0
	sink := func(i int, tok runtime.Token) error {
		c := choices[i]
		if wantLP && tok.ID >= 0 {
			c.logprobs = append(c.logprobs, tokenLogprob{tok.ID, tok.Logprob, append([]runtime.TokenLogprob(nil), tok.Top...)})
		}
		c.add(tok)
		if write != nil {
			return write(i, c, tok)
		}
		return nil
	}
	results, err := e.eng.generate(ctx, req, sink)
	if err != nil {
		return nil, err
	}
	info := infoFrom(ctx)
	for i, c := range choices {
		c.res = results[i]
		st := c.res.stats
		if info != nil {
			info.stats = append(info.stats, statsLine{st.PromptTokens, st.CachedTokens, st.Generated, st.Stop.String()})
		}
	}
	for _, c := range choices {
		if err := c.res.err; err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			return choices, constraintError(req.constraintField, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return choices, err
	}
	return choices, nil
}

// add records a token: its answer text, its reasoning and its call deltas.
func (c *choice) add(tok runtime.Token) {
	c.content.WriteString(tok.Text)
	c.reasoning.WriteString(tok.Reasoning)
	for _, d := range tok.Calls {
		switch d.Kind {
		case toolcall.CallStart:
			for len(c.calls) <= d.Index {
				c.calls = append(c.calls, &streamedCall{})
			}
			c.calls[d.Index].id, c.calls[d.Index].name = d.ID, d.Name
		case toolcall.CallArgs:
			if d.Index < len(c.calls) {
				c.calls[d.Index].args.WriteString(d.Text)
			}
		}
	}
}

// toolCalls are the whole calls of the answer (a call cut short by the token limit is left out).
func (c *choice) toolCalls() []toolcall.Call { return c.res.reply.Calls }

// calledTools reports whether the answer called tools.
func (c *choice) calledTools() bool { return len(c.calls) > 0 }

// cut reports whether the answer was cut by the token limit or the context's end.
func (c *choice) cut() bool {
	return c.res.stats.Stop == runtime.StopMaxTokens || c.res.stats.Stop == runtime.StopContext
}

// usage sums a request's token counts: the prompt once, the generated tokens of every choice.
type usage struct{ prompt, cached, generated int }

func usageOf(choices []*choice) usage {
	var u usage
	if len(choices) > 0 {
		u.prompt, u.cached = choices[0].res.stats.PromptTokens, choices[0].res.stats.CachedTokens
	}
	for _, c := range choices {
		u.generated += c.res.stats.Generated
	}
	return u
}

// acquireModel resolves the request's model and records it in the log line; release with s.reg.release.
func (s *Server) acquireModel(r *http.Request, name string) (*modelEntry, error) {
	e, err := s.reg.acquire(r.Context(), name)
	if err != nil {
		return nil, err
	}
	if info := infoFrom(r.Context()); info != nil {
		info.model = e.name
	}
	return e, nil
}

// streamStarted marks the response as streamed: from now on errors go into the stream.
func streamStarted(ctx context.Context) {
	if info := infoFrom(ctx); info != nil {
		info.wrote = true
	}
}

// streamError is the error to report in a stream that fails after it started ("" when the client left).
func streamError(ctx context.Context, choices []*choice, err error) string {
	if ctx.Err() != nil {
		return ""
	}
	if err != nil {
		return err.Error()
	}
	for _, c := range choices {
		if c.res.err != nil {
			return c.res.err.Error()
		}
	}
	return ""
}
