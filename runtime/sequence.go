package runtime

import (
	"context"
	"errors"
	"fmt"
)

// sequence is a session's place in the engine: its tokens, the KV pages it holds and the request it has made.
//
// A request asks the engine to make the cache hold the sequence's first keep tokens followed by add, and to
// return the logits of the last token (or of every added token). The session sets a request only while none
// is in flight, under the engine's lock; the engine's loop owns the rest of the state until it signals done,
// after which the session may read it again.
type sequence struct {
	e      *engine
	maxCtx int // most tokens the sequence can hold
	chunk  int // most tokens of it in one pass

	// The request, written by the session under e.mu.
	keep    int
	add     []int32
	all     bool
	pending bool // a request is waiting or running
	cancel  bool // the session gave up on the request
	parked  bool // the session will not make another request soon (its generation ended)
	done    chan struct{}
	err     error

	// Loop-owned while a request is pending.
	toks   []int32 // the sequence's tokens: toks[:held] are in the cache, toks[held:target] still to compute
	held   int
	pages  []int32 // the pages holding cells [0, held), and perhaps one allocated for the next cells
	swaRef []bool  // per page: s holds its sliding-window cells (engine_swa.go)
	row    int     // the sequence's row of the page table while admitted, else -1
	target int     // tokens the cache must hold when the request is done
	from   int     // first token whose logits are returned (all), else target-1
	cached int     // tokens of the request found in the cache (not computed)
	logits []float32
	order  uint64 // when the sequence was admitted (preemption takes the newest)
}

func (e *engine) newSequence(maxCtx, chunk int) *sequence {
	s := &sequence{e: e, maxCtx: maxCtx, chunk: chunk, row: -1, done: make(chan struct{}, 1),
		toks: make([]int32, 0, maxCtx), pages: make([]int32, 0, (maxCtx+PageSize-1)/PageSize+1),
		swaRef: make([]bool, 0, (maxCtx+PageSize-1)/PageSize+1)}
	e.mu.Lock()
	e.seqs = append(e.seqs, s)
	e.mu.Unlock()
	return s
}

// Errors of the engine.
var (
	// ErrBusy is returned when a request finds the engine's queue full (runtime.Options.MaxQueue).
	ErrBusy = errors.New("runtime: the engine's queue is full")
	// ErrClosed is returned by a closed session, or a session of a closed model.
	ErrClosed = errors.New("runtime: closed")
)

// run makes the request (see sequence) and waits for it. It returns the logits: [vocab] for the last token, or
// [len(add)][vocab] with all. The slice is reused by the next request. Cancelling ctx abandons the request
// within one pass of the engine; the cache then holds a prefix of what was asked.
func (s *sequence) run(ctx context.Context, keep int, add []int32, all bool) ([]float32, error) {
	e := s.e
	if len(add) == 0 {
		return nil, errors.New("runtime: no tokens to evaluate")
	}
	if keep < 0 || keep > len(s.toks) {
		return nil, fmt.Errorf("runtime: cannot keep %d of %d tokens", keep, len(s.toks))
	}
	if keep+len(add) > s.maxCtx {
		return nil, fmt.Errorf("%w: %d tokens at position %d exceed the context of %d", ErrContextFull, len(add), keep, s.maxCtx)
	}
	for _, t := range add {
		if t < 0 || int(t) >= e.hp.Vocab {
			return nil, fmt.Errorf("runtime: token id %d is outside the vocabulary of %d", t, e.hp.Vocab)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	switch {
	case e.closed:
		e.mu.Unlock()
		return nil, ErrClosed
	case s.row < 0 && len(e.queue) >= e.maxQueue:
		e.mu.Unlock()
		return nil, ErrBusy
	}
	s.keep, s.add, s.all = keep, add, all
	s.pending, s.cancel, s.parked, s.err = true, false, false, nil
	alone := len(e.running) == 0 && len(e.queue) == 0 && len(e.incoming) == 0 // polls for its logits (pollFor)
	e.incoming = append(e.incoming, s)
	e.mu.Unlock()
	e.wake()
	if alone && poll(s.done, e.pollFor()) {
		return s.result(len(add), all)
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		e.mu.Lock()
		s.cancel = true
		e.mu.Unlock()
		e.wake()
		<-s.done
	}
	return s.result(len(add), all)
}

// result returns the outcome of the request of n tokens just done (see run).
func (s *sequence) result(n int, all bool) ([]float32, error) {
	if s.err != nil {
		return nil, s.err
	}
	if all {
		return s.logits[:n*s.e.hp.Vocab], nil
	}
	return s.logits[:s.e.hp.Vocab], nil
}

// park tells the engine that the session will not make another request soon, so the engine need not wait
// for one before its next pass, and may give the sequence's table row to another.
func (s *sequence) park() {
	e := s.e
	e.mu.Lock()
	s.parked = true
	e.mu.Unlock()
	e.wake()
}

// close gives the sequence's pages and row back; the session makes no request after it.
func (s *sequence) close() {
	e := s.e
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.closing = append(e.closing, s)
	e.wakeLocked()
}

// truncate makes the sequence's tokens its first n (the cache keeps what it has; the next request starts there).
func (s *sequence) truncate(n int) error {
	if n < 0 || n > len(s.toks) {
		return fmt.Errorf("runtime: cannot truncate a session of %d tokens to %d", len(s.toks), n)
	}
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	if s.pending {
		return errors.New("runtime: truncate during an evaluation")
	}
	s.toks = s.toks[:n] // the loop drops the pages beyond when the next request comes
	return nil
}
