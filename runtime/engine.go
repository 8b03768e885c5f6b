package runtime

import (
	"context"
	"errors"
	goruntime "runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/model"
)

// engine is a Model's scheduler: one goroutine that, each step, gathers the next token of every decoding
// sequence and chunks of the prompts being evaluated into one batch, runs one forward pass over it, and hands
// each sequence its logits. Sampling stays with the sessions. Because every row of a pass depends only on its
// own token and its own sequence's cells (the kernels' reduction orders do not depend on the batch), a
// sequence's logits are the same bits whatever else shares its passes.
type engine struct {
	m        *Model
	hp       *model.HParams
	kvType   accel.DType
	flash    bool
	bufs     []accel.Buffer
	pool     *kvPool
	maxSeqs  int // table rows: sequences in one pass
	maxPages int // pages per sequence
	batch    int // tokens per pass
	maxQueue int // requests waiting for a row
	nctx     int // the context a sequence is configured for (chooses RoPE factors, as llama.cpp's n_ctx_per_seq)
	window   int // the sliding window of the layers whose cells live in the pool's sliding-window pages (0: none)
	onPass   func(sequences, tokens int)

	// mu guards the requests and, with the loop as their only writer, the table rows and the queue (which
	// run reads to refuse work when the queue is full).
	mu       sync.Mutex
	incoming []*sequence // new requests
	closing  []*sequence // closed sessions
	closed   bool
	kick     chan struct{}
	exited   chan struct{}

	// Loop-owned.
	seqs      []*sequence // every open sequence (those without a row may hold pages too); guarded by mu
	rows      []*sequence // the page table's rows
	queue     []*sequence // requests waiting for admission, in arrival order
	running   []*sequence // admitted sequences with a request, in admission order
	admitted  uint64
	last      []*sequence // sequences given logits by the last pass, whose next request is likely to follow
	progs     map[progKey]*program
	scratch   accel.Scratch // the programs' shared intermediates: the engine runs one pass at a time
	parts     []part
	in        passInputs
	timer     *time.Timer
	lastPass  atomic.Int64 // the last pass's nanoseconds (grace; sessions read it in pollFor)
	costs     passCosts    // the generation steps' recent times by rows, for sizing lookup drafts
	evictions int64
	stats     EngineStats // written with mu held
}

// part is a sequence's share of a pass: n tokens from cell first.
type part struct {
	s        *sequence
	first, n int
}

// passInputs are the host copies of a pass's inputs.
type passInputs struct {
	tok, pos, slot, seq []int32
	table               []int32 // maxSeqs × maxPages
	swaSlot, swaTable   []int32 // the same for the sliding-window pages (-1: released)
	out                 []int32
	logits              []float32
}

// progKey identifies a compiled pass: tokens and logit rows.
type progKey struct{ n, rows int }

// program is one compiled forward pass and its inputs.
type program struct {
	p                               accel.Program
	tok, pos, slot, seq, pages, out accel.Tensor
	swaSlot, swaPages               accel.Tensor // invalid without sliding-window pages
	logits                          accel.Tensor
	n, rows                         int
}

// EngineStats count the engine's work since the model was loaded.
type EngineStats struct {
	Passes      int64 // forward passes
	Tokens      int64 // tokens evaluated
	Preemptions int64 // sequences whose pages were taken for others (they are evaluated again later)
	Evictions   int64 // cached pages dropped for room
	Pages       int   // pages in the pool
	KVBytes     int64 // bytes of the KV cache (every layer's keys and values, all pages, in the cache's type)
	PagesHeld   int   // pages some sequence holds
	SWAPages    int   // pages of the sliding-window layers' pool (0: those layers use the pool's pages)
	SWAHeld     int   // of those, pages holding cells within some sequence's window
	PagesCached int   // pages cached in the prefix tree that nobody holds
	Running     int   // sequences with a request being evaluated
	Queued      int   // requests waiting for admission
	LastBatch   int   // tokens of the last pass
	Programs    int   // compiled passes (one per pass size)
}

// engineConfig sizes an engine.
type engineConfig struct {
	ctx      int // cells per sequence
	nctx     int // the configured context of a sequence
	slots    int // cells in the pool
	seqs     int
	batch    int
	maxQueue int
	kv       accel.DType
	flash    bool // flash attention (a quantized cache, or Options.FlashAttention)
	keepSWA  bool // sliding-window layers keep every cell in the pool's pages (tests compare with it)
}

func newEngine(m *Model, c engineConfig) (*engine, error) {
	hp := m.Arch.HParams()
	maxPages := (c.ctx + PageSize - 1) / PageSize
	pages := (max(c.slots, c.nctx) + PageSize - 1) / PageSize // room for one sequence of the configured context
	window, swa := 0, 0
	if w := hp.MaxWindow(); w > 0 && !c.keepSWA {
		window, swa = w, swaPoolPages(w, pages, c.seqs, c.batch)
	}
	swaRows := pages * PageSize
	if swa > 0 {
		swaRows = swa * PageSize
	}
	bufs, err := model.NewKVCacheSWA(m.Backend, hp, pages*PageSize, swaRows, c.kv)
	if err != nil {
		return nil, err
	}
	e := &engine{m: m, hp: hp, kvType: c.kv, flash: c.flash, bufs: bufs, pool: newKVPool(pages, swa), maxSeqs: c.seqs,
		maxPages: maxPages, window: window, batch: c.batch, maxQueue: c.maxQueue, nctx: c.nctx, onPass: m.opt.OnPass,
		kick: make(chan struct{}, 1), exited: make(chan struct{}),
		incoming: make([]*sequence, 0, c.seqs+c.maxQueue), closing: make([]*sequence, 0, c.seqs),
		rows: make([]*sequence, c.seqs), queue: make([]*sequence, 0, c.maxQueue), running: make([]*sequence, 0, c.seqs),
		last: make([]*sequence, 0, c.seqs), progs: map[progKey]*program{},
		parts: make([]part, 0, c.seqs)}
	e.timer = time.AfterFunc(time.Hour, e.wake)
	e.timer.Stop()
	e.in = passInputs{tok: make([]int32, c.batch), pos: make([]int32, c.batch), slot: make([]int32, c.batch),
		seq: make([]int32, c.batch), table: make([]int32, c.seqs*maxPages), out: make([]int32, c.batch)}
	if window > 0 {
		e.in.swaSlot, e.in.swaTable = make([]int32, c.batch), make([]int32, c.seqs*maxPages)
	}
	e.stats.Pages, e.stats.SWAPages = pages, swa
	e.stats.KVBytes = model.KVCacheBytes(hp, pages*PageSize, swaRows, c.kv)
	go e.loop()
	return e, nil
}

// cells is the most tokens one sequence can hold (its page table's width).
func (e *engine) cells() int { return e.maxPages * PageSize }

// fits reports whether a sequence of ctx tokens fits the engine: its page table and, alone, its pool.
func (e *engine) fits(ctx int) bool { return ctx <= e.cells() && ctx <= len(e.pool.pages)*PageSize }

// wake tells the loop that something changed.
func (e *engine) wake() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

func (e *engine) wakeLocked() { e.wake() }

// close stops the loop, fails what is pending and frees the programs and the pool.
func (e *engine) close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	e.mu.Unlock()
	e.wake()
	<-e.exited
	e.timer.Stop()
	var errs []error
	for _, pr := range e.progs {
		errs = append(errs, pr.p.Close())
	}
	model.CloseKV(e.bufs)
	e.progs, e.bufs = nil, nil
	return errors.Join(errs...)
}

// Stats returns a snapshot of the engine's counters.
func (e *engine) snapshot() EngineStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

func (e *engine) loop() {
	defer close(e.exited)
	for e.gather() {
		e.step()
	}
}

// gather takes new requests, cancellations and closed sessions, admits what it can, and waits while there is
// nothing to run, or briefly while sequences that just got their logits are likely to ask again (so that
// decoding sequences share passes). It returns false when the engine is closed.
func (e *engine) gather() bool {
	deadline := time.Time{}
	for {
		e.mu.Lock()
		if e.closed {
			e.failAll(ErrClosed)
			e.mu.Unlock()
			return false
		}
		for _, s := range e.closing {
			e.drop(s)
		}
		clear(e.closing)
		e.closing = e.closing[:0]
		for _, s := range e.incoming {
			e.prepare(s)
			if s.row >= 0 {
				e.running = append(e.running, s)
			} else {
				e.queue = append(e.queue, s)
			}
		}
		clear(e.incoming)
		e.incoming = e.incoming[:0]
		e.cancelLocked()
		e.admit()
		e.publishStats()
		waitFor := e.expected()
		e.mu.Unlock()

		if len(e.running) > 0 && waitFor == 0 {
			return true
		}
		if len(e.running) > 0 { // wait a little for the stragglers
			if deadline.IsZero() {
				deadline = time.Now().Add(e.grace())
			}
			d := time.Until(deadline)
			if d <= 0 {
				e.last = e.last[:0]
				return true
			}
			e.timer.Reset(d) // its function wakes the loop (a select on a timer's channel allocates)
			<-e.kick
			continue
		}
		if waitFor > 0 && poll(e.kick, e.pollFor()) { // a lone sequence that just got its logits
			continue
		}
		<-e.kick
	}
}

// pollFor is how long a goroutine that expects the other side of a short pass soon polls for it instead of
// parking: twice the last pass, if that took under maxPoll (a small model's decoding steps), else 0. Waking
// a parked goroutine (the session when its logits are ready, the engine at its next request) wakes an idle
// thread of Go's scheduler, which on a virtual machine cost the waking side 15–35 µs a pass (stories260K,
// passes of ~150 µs): polling on both sides took decoding from ~5500 to ~6500 tokens/s. Longer passes are
// not worth a core's polling.
func (e *engine) pollFor() time.Duration {
	if d := time.Duration(e.lastPass.Load()); d < maxPoll {
		return 2 * d
	}
	return 0
}

const maxPoll = time.Millisecond

// poll waits up to d for a signal on ch without parking, yielding the processor between looks, and reports
// whether one came (taking it).
func poll(ch chan struct{}, d time.Duration) bool {
	if d <= 0 {
		return false
	}
	end := time.Now().Add(d)
	for i := 1; ; i++ {
		select {
		case <-ch:
			return true
		default:
		}
		if i%16 == 0 && time.Now().After(end) { // reading the clock costs more than a look
			return false
		}
		goruntime.Gosched()
	}
}

// grace is how long a pass waits for sequences that just got their logits: a fraction of a pass, within bounds.
func (e *engine) grace() time.Duration {
	return min(max(time.Duration(e.lastPass.Load())/4, 500*time.Microsecond), 20*time.Millisecond)
}

// expected counts the sequences of the last pass that have not asked again, and are not parked or closed.
// Called with e.mu held.
func (e *engine) expected() int {
	n := 0
	for _, s := range e.last {
		if !s.pending && !s.parked && s.row >= 0 {
			n++
		}
	}
	return n
}

// cancelLocked ends the requests whose sessions gave up. Called with e.mu held.
func (e *engine) cancelLocked() {
	for i := 0; i < len(e.running); i++ {
		if s := e.running[i]; s.cancel {
			e.running = slices.Delete(e.running, i, i+1)
			i--
			e.finish(s, context.Canceled)
		}
	}
	for i := 0; i < len(e.queue); i++ {
		if s := e.queue[i]; s.cancel {
			e.queue = slices.Delete(e.queue, i, i+1)
			i--
			e.finish(s, context.Canceled)
		}
	}
}

// finish ends s's request: the cache keeps what was computed. Called with e.mu held.
func (e *engine) finish(s *sequence, err error) {
	s.toks = s.toks[:min(len(s.toks), s.held)]
	if err != nil {
		s.err = err
	}
	s.pending = false
	s.done <- struct{}{}
}

// failAll ends every pending request with err, when the engine closes. Called with e.mu held.
func (e *engine) failAll(err error) {
	for _, s := range e.incoming {
		e.finish(s, err)
	}
	for _, s := range e.running {
		e.finish(s, err)
	}
	for _, s := range e.queue {
		e.finish(s, err)
	}
	e.incoming, e.running, e.queue = nil, nil, nil
}

// drop releases a closed session's sequence. Called with e.mu held.
func (e *engine) drop(s *sequence) {
	if i := slices.Index(e.queue, s); i >= 0 {
		e.queue = slices.Delete(e.queue, i, i+1)
	}
	if i := slices.Index(e.running, s); i >= 0 {
		e.running = slices.Delete(e.running, i, i+1)
	}
	if i := slices.Index(e.last, s); i >= 0 {
		e.last = slices.Delete(e.last, i, i+1)
	}
	if i := slices.Index(e.seqs, s); i >= 0 {
		e.seqs = slices.Delete(e.seqs, i, i+1)
	}
	e.unpin(s)
	e.freeRow(s)
}
