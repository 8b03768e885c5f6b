package runtime

import (
	"errors"
	"slices"
)

// The engine's bookkeeping of rows and pages. Everything here runs on the loop goroutine; functions that change
// a sequence's row run with e.mu held (run reads the rows to refuse work when the queue is full).

// errPoolTooSmall ends a request that cannot get a page although it is the only one running.
var errPoolTooSmall = errors.New("runtime: the KV pool has no page left for this sequence (raise runtime.Options.KVSize)")

// prepare starts s's request: its tokens become the first keep followed by the added ones; the pages beyond
// what stays valid are released (a page that other sequences share is never written again: if the kept tokens
// end inside one, its cells are computed anew in a page of the sequence's own; a page only this sequence holds
// leaves the tree and takes the new cells in place); then full pages of the new tokens
// that the tree has cached are taken instead of computed — all but the page of the last token, whose logits
// are wanted (with all, of any token whose logits are wanted).
func (e *engine) prepare(s *sequence) {
	keep := min(s.keep, len(s.toks))
	s.toks = append(s.toks[:keep], s.add...)
	valid := min(s.held, keep)
	e.dropPages(s, valid)
	if j := valid / PageSize; valid%PageSize != 0 && e.pool.pages[s.pages[j]].inTree {
		if e.pool.pages[s.pages[j]].refs == 1 {
			e.pool.unpublish(s.pages[j]) // the sequence's own page: it takes new cells in place
		} else {
			e.dropPages(s, valid-valid%PageSize) // shared: its kept cells are computed again in a page of our own
		}
	}
	s.target = len(s.toks)
	s.from = s.target - 1
	if s.all {
		s.from = keep
	}
	e.match(s)
	e.holdWindow(s)
	s.cached = s.held
	if need := (s.target - s.from) * e.hp.Vocab; len(s.logits) < need {
		s.logits = make([]float32, need)
	}
}

// match takes the full pages of s's tokens after what it holds that the prefix tree has cached, up to the
// first token whose logits are wanted.
func (e *engine) match(s *sequence) {
	for s.held%PageSize == 0 && s.held+PageSize <= s.from {
		parent := int32(-1)
		if s.held > 0 {
			parent = s.pages[s.held/PageSize-1]
		}
		pg := e.pool.lookup(parent, s.toks[s.held:s.held+PageSize])
		if pg < 0 {
			break
		}
		if j := s.held / PageSize; j < len(s.pages) { // a page allocated ahead and not yet written
			e.dropPages(s, j*PageSize)
		}
		e.setPage(s, len(s.pages), pg)
		s.held += PageSize
	}
}

// dropPages keeps the pages of s's first n cells and releases the others.
func (e *engine) dropPages(s *sequence, n int) {
	keep := min((n+PageSize-1)/PageSize, len(s.pages))
	for j := keep; j < len(s.pages); j++ {
		e.dropSWA(s, j)
		e.pool.release(s.pages[j])
	}
	s.pages, s.swaRef = s.pages[:keep], s.swaRef[:keep]
	s.held = min(s.held, n)
}

// setPage makes pg page j of s (appending when j is len(s.pages)), and its table rows' entries. A page that
// replaces page j (kvPool.publish) takes over s's hold of its window cells.
func (e *engine) setPage(s *sequence, j int, pg int32) {
	if j == len(s.pages) {
		s.pages, s.swaRef = append(s.pages, pg), append(s.swaRef, false)
	} else {
		s.pages[j] = pg
	}
	if s.row >= 0 {
		e.in.table[s.row*e.maxPages+j] = pg
	}
	e.setSWAEntry(s, j)
}

// admit gives table rows to queued requests in arrival order, while rows are free (or held by sequences with
// no request) and the pool can hold their next chunk (or, when nothing runs, at least a page of it).
func (e *engine) admit() {
	for len(e.queue) > 0 {
		s := e.queue[0]
		e.match(s) // a preempted sequence finds what is still cached of what it lost
		e.holdWindow(s)
		need := max(0, (s.held+min(s.target-s.held, s.chunk, e.batch)+PageSize-1)/PageSize-len(s.pages))
		if len(e.running) == 0 {
			need = min(need, 1)
		}
		if e.pool.available() < need && !e.unpinIdle(need) {
			return
		}
		row := e.freeRowIndex()
		if row < 0 {
			return
		}
		e.queue = slices.Delete(e.queue, 0, 1) // keeps the capacity: the loop allocates nothing
		s.row = row
		e.rows[row] = s
		copy(e.in.table[row*e.maxPages:], s.pages)
		for j := range s.pages {
			e.setSWAEntry(s, j)
		}
		e.admitted++
		s.order = e.admitted
		e.running = append(e.running, s)
	}
}

// freeRowIndex returns a free row, taking one from an admitted sequence without a request if need be; -1 if
// every row has a request.
func (e *engine) freeRowIndex() int {
	idle := -1
	for i, s := range e.rows {
		if s == nil {
			return i
		}
		if !s.pending && (idle < 0 || s.order < e.rows[idle].order) {
			idle = i
		}
	}
	if idle >= 0 {
		e.freeRow(e.rows[idle])
	}
	return idle
}

// freeRow takes s's table row away (its pages stay held).
func (e *engine) freeRow(s *sequence) {
	if s.row >= 0 {
		e.rows[s.row] = nil
		s.row = -1
	}
}

// unpin releases every page s holds: full pages stay cached in the tree (the sequence finds them there again
// unless they are evicted first), the others are freed.
func (e *engine) unpin(s *sequence) {
	e.dropPages(s, 0)
	s.held = 0
}

// unpinIdle unpins sequences that are not running — without a request, or with one waiting in the queue —
// oldest first, until need pages are available; it reports whether they are. Called with e.mu held.
func (e *engine) unpinIdle(need int) bool {
	for e.pool.available() < need {
		var victim *sequence
		for _, s := range e.seqs {
			idle := !s.pending || s.row < 0
			if idle && len(s.pages) > 0 && (victim == nil || s.order < victim.order) {
				victim = s
			}
		}
		if victim == nil {
			return false
		}
		e.unpin(victim)
	}
	return true
}

// allocPage gets a page for s: a free one, an evicted cached one, one that an idle sequence held, or one taken
// from the newest running sequence not in this pass (which goes back to the queue and computes its cells again
// later). -1 when there is none.
func (e *engine) allocPage(s *sequence) int32 {
	for {
		if e.pool.available() > 0 {
			if len(e.pool.free) == 0 {
				e.evictions++
			}
			return e.pool.alloc()
		}
		e.mu.Lock()
		unpinned := e.unpinIdle(1)
		e.mu.Unlock()
		if unpinned {
			continue
		}
		var victim *sequence
		for _, r := range e.running {
			if r != s && !e.inPass(r) && len(r.pages) > 0 && (victim == nil || r.order > victim.order) {
				victim = r
			}
		}
		if victim == nil {
			return -1
		}
		e.preempt(victim)
	}
}

// preempt takes every page of running sequence s and puts its request back at the head of the queue.
func (e *engine) preempt(s *sequence) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.stats.Preemptions++
	e.unpin(s)
	if i := slicesIndex(e.running, s); i >= 0 {
		e.running = append(e.running[:i], e.running[i+1:]...)
	}
	e.freeRow(s)
	e.queue = append(e.queue, nil)
	copy(e.queue[1:], e.queue)
	e.queue[0] = s
}

// inPass reports whether s has a part in the pass being planned.
func (e *engine) inPass(s *sequence) bool {
	for _, p := range e.parts {
		if p.s == s {
			return true
		}
	}
	return false
}

func slicesIndex(list []*sequence, s *sequence) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// publishStats copies the pool's figures into the stats. Called with e.mu held.
func (e *engine) publishStats() {
	e.stats.PagesHeld = e.pool.held()
	e.stats.SWAHeld = e.pool.swaHeld()
	e.stats.PagesCached = len(e.pool.tree) - e.pool.treeHeld()
	e.stats.Running, e.stats.Queued = len(e.running), len(e.queue)
	e.stats.Evictions, e.stats.Programs = e.evictions, len(e.progs)
}
