package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/toolcall"
)

// This file is the adapter between the handlers and the runtime: the only place that creates, lends and runs
// Sessions. When the runtime's batched scheduler lands, sessions become handles on its sequences and the
// scheduler shares cached prefixes itself; only this file changes.

// genRequest is one request in the engine's terms: the prompt's token ids and the generation options, run as n
// sequences (OpenAI's n) that differ by seed.
type genRequest struct {
	prompt []int32
	opt    runtime.GenerateOptions
	n      int
	// constraintField is the request field to name when the runtime refuses the constraint (tools or format).
	constraintField string
}

// genResult is how one sequence ended.
type genResult struct {
	stats runtime.Stats
	reply toolcall.Reply // the answer split into reasoning, content and whole tool calls
	err   error          // a failure of the evaluation or the context's error; nil when it ended normally
}

// tokenSink receives the tokens of sequence (choice) i, one call at a time. Token.Top is reused after the call
// returns. An error stops every sequence of the request; generate returns it.
type tokenSink func(i int, t runtime.Token) error

// engine runs the generations of one model: at most parallel sequences at once, the rest waiting in a FIFO
// queue of at most maxQueue requests.
type engine struct {
	m        *runtime.Model
	opt      runtime.SessionOptions
	ctx      int // context size of every sequence
	parallel int
	maxQueue int
	metrics  *Metrics

	mu      sync.Mutex
	idle    []*runtime.Session // sessions not in use, their caches kept for prefix reuse
	created int                // sessions that exist (idle or lent)
	active  int                // sequences lent
	waiters []*waiter          // requests waiting, oldest first
	closed  bool
}

type waiter struct {
	n     int
	ready chan struct{} // closed when the waiter's n sequences are reserved (counted in active)
}

func newEngine(m *runtime.Model, opt runtime.SessionOptions, parallel, maxQueue int, metrics *Metrics) *engine {
	ctx := opt.Ctx
	if ctx == 0 {
		ctx = min(runtime.DefaultCtx, m.HParams().CtxTrain)
	}
	opt.Ctx = ctx
	return &engine{m: m, opt: opt, ctx: ctx, parallel: max(parallel, 1), maxQueue: max(maxQueue, 0), metrics: metrics}
}

// checkPrompt rejects a prompt that does not fit in a sequence's context: the runtime needs room for at least
// one generated token.
func (e *engine) checkPrompt(prompt []int32) error {
	if len(prompt) == 0 {
		return badRequest("", "the prompt is empty")
	}
	if len(prompt) >= e.ctx {
		return &apiError{status: http.StatusBadRequest, code: "context_length_exceeded",
			msg: fmt.Sprintf("the prompt has %d tokens and the context holds %d (one more is needed to answer): "+
				"shorten it or start the server with a larger -c", len(prompt), e.ctx)}
	}
	return nil
}

// generate runs req and calls sink with every token, serialised. It returns each sequence's result, or an error
// when none could start (a prompt over the context, a full queue, a cancelled wait).
func (e *engine) generate(ctx context.Context, req genRequest, sink tokenSink) ([]genResult, error) {
	start := time.Now()
	n := max(req.n, 1)
	if n > e.parallel {
		return nil, badRequest("n", "%d sequences at once exceed the server's --parallel %d", n, e.parallel)
	}
	if err := e.checkPrompt(req.prompt); err != nil {
		return nil, err
	}
	sessions, err := e.acquire(ctx, n, req.prompt)
	if err != nil {
		return nil, err
	}
	defer e.release(sessions)
	results := make([]genResult, n)
	if n == 1 {
		results[0] = e.run(ctx, sessions[0], req.prompt, req.opt, start, func(t runtime.Token) error { return sink(0, t) })
		return results, nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var mu sync.Mutex // serialises sink
	var wg sync.WaitGroup
	for i, s := range sessions {
		opt := req.opt
		if opt.Sampling != nil && i > 0 {
			so := *opt.Sampling
			if so.Seed != ^uint64(0) {
				so.Seed += uint64(i) // n seeded choices: different, and repeatable
			}
			opt.Sampling = &so
		}
		wg.Go(func() {
			results[i] = e.run(ctx, s, req.prompt, opt, start, func(t runtime.Token) error {
				mu.Lock()
				defer mu.Unlock()
				err := sink(i, t)
				if err != nil {
					cancel(err)
				}
				return err
			})
		})
	}
	wg.Wait()
	return results, nil
}

// run generates one sequence on s and records its latencies.
func (e *engine) run(ctx context.Context, s *runtime.Session, prompt []int32, opt runtime.GenerateOptions, start time.Time, sink func(runtime.Token) error) genResult {
	var res genResult
	last := time.Time{}
	for tok, err := range s.GenerateTokens(ctx, prompt, opt) {
		if err != nil {
			res.err = err
			break
		}
		now := time.Now()
		if last.IsZero() {
			e.metrics.observeTTFT(now.Sub(start))
		} else if tok.ID >= 0 {
			e.metrics.observeTokenLatency(now.Sub(last))
		}
		last = now
		if err := sink(tok); err != nil {
			res.err = err
			break
		}
	}
	res.stats = s.Stats()
	res.reply, _ = s.Result() // a reply cut inside a call keeps the calls that were whole
	e.metrics.addTokens(res.stats)
	return res
}

// acquire reserves n sequences, waiting in the queue if needed, and lends n sessions: for the first, the idle
// session whose cache shares the longest prefix with prompt (a new one when none shares any and another may be
// created).
func (e *engine) acquire(ctx context.Context, n int, prompt []int32) ([]*runtime.Session, error) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, errClosing
	}
	if len(e.waiters) == 0 && e.active+n <= e.parallel {
		e.active += n
	} else {
		if len(e.waiters) >= e.maxQueue {
			e.mu.Unlock()
			return nil, errQueueFull
		}
		w := &waiter{n: n, ready: make(chan struct{})}
		e.waiters = append(e.waiters, w)
		e.mu.Unlock()
		select {
		case <-w.ready:
		case <-ctx.Done():
			e.mu.Lock()
			if e.removeWaiter(w) {
				e.mu.Unlock()
				return nil, ctx.Err()
			}
			e.mu.Unlock()
			<-w.ready // granted meanwhile: give the reservation back
			e.release(make([]*runtime.Session, n))
			return nil, ctx.Err()
		}
		e.mu.Lock()
	}
	sessions := make([]*runtime.Session, 0, n)
	var err error
	for range n {
		var s *runtime.Session
		if s, err = e.pick(prompt); err != nil {
			break
		}
		sessions = append(sessions, s)
	}
	e.mu.Unlock()
	if err != nil {
		e.release(append(sessions, make([]*runtime.Session, n-len(sessions))...))
		return nil, err
	}
	return sessions, nil
}

// pick takes the idle session sharing the longest prefix with prompt, or creates one when none shares any
// and fewer than parallel exist. Called with e.mu held and a sequence reserved.
func (e *engine) pick(prompt []int32) (*runtime.Session, error) {
	best, bestLen := -1, -1
	for i, s := range e.idle {
		if l := commonPrefix(s.Tokens(), prompt); l > bestLen {
			best, bestLen = i, l
		}
	}
	if best < 0 || (bestLen == 0 && e.created < e.parallel) {
		s, err := e.m.NewSession(e.opt)
		if err != nil {
			return nil, err
		}
		e.created++
		return s, nil
	}
	s := e.idle[best]
	e.idle = append(e.idle[:best], e.idle[best+1:]...)
	return s, nil
}

// release returns sessions (nil entries: reservations without a session) and grants waiting requests in order.
func (e *engine) release(sessions []*runtime.Session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range sessions {
		if s != nil {
			e.idle = append(e.idle, s)
		}
	}
	e.active -= len(sessions)
	for len(e.waiters) > 0 && e.active+e.waiters[0].n <= e.parallel {
		w := e.waiters[0]
		e.waiters = e.waiters[1:]
		e.active += w.n
		close(w.ready)
	}
}

func (e *engine) removeWaiter(w *waiter) bool {
	for i, x := range e.waiters {
		if x == w {
			e.waiters = append(e.waiters[:i], e.waiters[i+1:]...)
			return true
		}
	}
	return false
}

// busy reports the sequences lent and the requests waiting.
func (e *engine) busy() (active, queued int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.active, len(e.waiters)
}

// close frees the sessions; no sequence may be lent. Requests still waiting get errClosing.
func (e *engine) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.active > 0 {
		return errors.New("server: closing an engine with sequences in use")
	}
	e.closed = true
	var errs []error
	for _, s := range e.idle {
		errs = append(errs, s.Close())
	}
	e.idle, e.created = nil, 0
	return errors.Join(errs...)
}

func commonPrefix(a, b []int32) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
