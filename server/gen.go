package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// choice is one sequence's answer as it accumulates.
type choice struct {
	parser    outputParser
	content   strings.Builder
	reasoning strings.Builder
	logprobs  []tokenLogprob // when asked for
	segs      []segment      // scratch
	res       genResult
}

// tokenLogprob is a generated token's log-probability and its top alternatives (copied out of the runtime's
// reused slice).
type tokenLogprob struct {
	id      int32
	logprob float32
	top     []runtime.TokenLogprob
}

// onToken is a handler's streaming writer: called for each token of choice i (its logprobs, the segments it
// settled), and once more at the end of each choice with tok.ID = tokenizer.None and the segments flushed.
type onToken func(i int, tok runtime.Token, segs []segment) error

// generate runs req on the model and returns its choices; write, when not nil, streams them. It fills the
// request's log line.
func (s *Server) generate(ctx context.Context, e *modelEntry, p prompt, req genRequest, write onToken) ([]*choice, error) {
	req.prompt = p.ids
	n := max(req.n, 1)
	choices := make([]*choice, n)
	for i := range choices {
		choices[i] = &choice{parser: newOutputParser(e, p)}
	}
	wantLP := req.opt.Logprobs || req.opt.TopLogprobs > 0
	sink := func(i int, tok runtime.Token) error {
		c := choices[i]
		if wantLP && tok.ID >= 0 {
			c.logprobs = append(c.logprobs, tokenLogprob{tok.ID, tok.Logprob, append([]runtime.TokenLogprob(nil), tok.Top...)})
		}
		c.segs = c.add(c.parser.push(c.segs[:0], tok.Text))
		if write != nil {
			return write(i, tok, c.segs)
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
		c.segs = c.add(c.parser.flush(c.segs[:0]))
		if write != nil && c.res.err == nil {
			if err := write(i, runtime.Token{ID: tokenizer.None}, c.segs); err != nil {
				c.res.err = err
			}
		}
		st := c.res.stats
		if info != nil {
			info.stats = append(info.stats, statsLine{st.PromptTokens, st.CachedTokens, st.Generated, st.Stop.String()})
		}
	}
	for _, c := range choices {
		if err := c.res.err; err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			return choices, err
		}
	}
	if err := ctx.Err(); err != nil {
		return choices, err
	}
	return choices, nil
}

// add appends segments' text to the choice's content and reasoning and returns them.
func (c *choice) add(segs []segment) []segment {
	for _, sg := range segs {
		if sg.kind == outReasoning {
			c.reasoning.WriteString(sg.text)
		} else {
			c.content.WriteString(sg.text)
		}
	}
	return segs
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
