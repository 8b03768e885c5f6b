package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// task is one parallel piece of a step: run(w, nw) does worker w's share of nw equal shares.
type task interface {
	run(w, nw int)
}

// spinRounds is how many times a waiting goroutine polls (yielding the processor between polls) before it
// parks. Steps of a graph follow each other within microseconds, so workers usually find the next one while
// still polling; parking costs a wake-up of several microseconds. 2000 rounds (a few hundred microseconds)
// cover the serial stretches between a decode step's ~500 parallel steps: with 200, decoding qwen3-0.6b spent
// ~5% in wake-ups and ran 12% slower.
const spinRounds = 2000

// pool is a program's persistent workers. The goroutine calling run takes the last share itself. A pool is used
// by one goroutine at a time (its program's Run); dispatching allocates nothing.
type pool struct {
	workers []*worker
	eager   bool         // ignore grains and always use every worker the work can be split over (tests)
	pending atomic.Int32 // shares of the current dispatch not yet finished
	waiting atomic.Bool  // the dispatcher is parked (or about to park) on done
	done    chan struct{}
	exited  sync.WaitGroup
}

type worker struct {
	p        *pool
	id       int
	t        task // set before gen is bumped; nil tells the worker to exit
	nw       int
	gen      atomic.Uint32 // bumped once per dispatch that includes this worker
	sleeping atomic.Bool   // parked (or about to park) on wake
	wake     chan struct{}
}

// newPool starts threads-1 workers.
func newPool(threads int, eager bool) *pool {
	p := &pool{done: make(chan struct{}, 1), eager: eager}
	for i := 0; i < threads-1; i++ {
		w := &worker{p: p, id: i, wake: make(chan struct{}, 1)}
		p.workers = append(p.workers, w)
		p.exited.Add(1)
		go w.loop()
	}
	return p
}

// size is the number of shares a dispatch can have: the workers and the caller.
func (p *pool) size() int { return len(p.workers) + 1 }

// shares picks how many workers to use for work units of which each worker should get at least grain.
func (p *pool) shares(work, grain int) int {
	if grain < 1 || p.eager {
		grain = 1
	}
	return max(1, min(p.size(), (work+grain-1)/grain))
}

// run executes t on nw shares (1 ≤ nw ≤ size) and returns when all are done.
func (p *pool) run(t task, nw int) {
	nw = max(1, min(nw, p.size()))
	if nw == 1 {
		t.run(0, 1)
		return
	}
	p.pending.Store(int32(nw - 1))
	for _, w := range p.workers[:nw-1] {
		w.t, w.nw = t, nw
		w.gen.Add(1)
		if w.sleeping.Swap(false) {
			w.wake <- struct{}{}
		}
	}
	t.run(nw-1, nw)
	p.wait()
}

// wait returns when the workers of the current dispatch are done.
func (p *pool) wait() {
	for i := 0; p.pending.Load() != 0; i++ {
		if i < spinRounds {
			runtime.Gosched()
			continue
		}
		p.waiting.Store(true)
		if p.pending.Load() == 0 {
			if !p.waiting.Swap(false) {
				<-p.done // a worker saw us waiting and is sending
			}
			return
		}
		<-p.done
		i = 0
	}
}

// finish records that one share is done and wakes the dispatcher if it parked.
func (p *pool) finish() {
	if p.pending.Add(-1) == 0 && p.waiting.Swap(false) {
		p.done <- struct{}{}
	}
}

func (w *worker) loop() {
	defer w.p.exited.Done()
	var seen uint32
	for {
		w.await(seen)
		seen++
		if w.t == nil {
			return
		}
		w.t.run(w.id, w.nw)
		w.t = nil // drop the reference between dispatches
		w.p.finish()
	}
}

// await returns once gen has moved past seen.
func (w *worker) await(seen uint32) {
	for i := 0; w.gen.Load() == seen; i++ {
		if i < spinRounds {
			runtime.Gosched()
			continue
		}
		w.sleeping.Store(true)
		if w.gen.Load() != seen {
			if !w.sleeping.Swap(false) {
				<-w.wake // the dispatcher saw us sleeping and is sending
			}
			return
		}
		<-w.wake
	}
}

// chunks hands a dispatch's work units to its shares in shrinking pieces (guided scheduling): each take
// claims half of what is left divided among the shares, at least least units. Memory-bound work such as a
// decode step's matrix products does not split evenly in time between cores that share the memory: with
// equal static shares the caller of a two-thread decode waited ~10 µs for the other share per ~100 µs
// product. Reset before the dispatch; safe for the shares' concurrent takes.
type chunks struct{ next atomic.Int64 }

func (c *chunks) reset() { c.next.Store(0) }

// take claims the next piece of the units [0, total) for one of nw shares; lo == hi when none is left.
func (c *chunks) take(total, nw, least int) (lo, hi int) {
	for {
		cur := c.next.Load()
		if cur >= int64(total) {
			return total, total
		}
		lo = int(cur)
		hi = min(total, lo+max(least, (total-lo)/(2*nw)))
		if c.next.CompareAndSwap(cur, int64(hi)) {
			return lo, hi
		}
	}
}

// close stops the workers and waits for them to exit.
func (p *pool) close() {
	for _, w := range p.workers {
		w.t = nil
		w.gen.Add(1)
		if w.sleeping.Swap(false) {
			w.wake <- struct{}{}
		}
	}
	p.exited.Wait()
}
