package web

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// PresencePath is where the page reports that it is open (POST ?page=ID) and that it closed (&gone=1).
const PresencePath = "/app/presence"

// presenceHeader set to "off" in a heartbeat's answer tells the page that nothing tracks it.
const presenceHeader = "X-Forma-Presence"

// DefaultStale is how long a page may stay silent before it counts as closed: browsers slow the timers of a hidden
// tab to about once a minute, and a page that closes normally says so at once.
const DefaultStale = 3 * time.Minute

// maxPages bounds the pages tracked, so that a misbehaving client cannot grow the table without end.
const maxPages = 1024

// Presence tracks the chat pages open on a server by their heartbeats. Serve it at PresencePath. The zero value
// is ready to use.
type Presence struct {
	Stale time.Duration // a page silent this long is closed; 0 means DefaultStale

	mu    sync.Mutex
	pages map[string]time.Time // page → when it was last heard from
	since time.Time            // when the last open page closed (zero while one is open or none has come)
	seen  bool                 // a page has come
	wake  chan struct{}        // closed at each heartbeat, for Wait
}

// ServeHTTP records a heartbeat: POST ?page=ID marks the page open, POST ?page=ID&gone=1 closed.
func (p *Presence) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	id := r.URL.Query().Get("page")
	if id == "" || len(id) > 100 {
		http.Error(w, "page: want the page's id", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	now := time.Now()
	p.prune(now)
	if p.pages == nil {
		p.pages = map[string]time.Time{}
	}
	if r.URL.Query().Get("gone") != "" {
		delete(p.pages, id)
	} else if _, ok := p.pages[id]; ok || len(p.pages) < maxPages {
		p.pages[id] = now
		p.seen = true
	}
	p.update(now)
	if p.wake != nil {
		close(p.wake) // wake Wait
		p.wake = nil
	}
	p.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// Pages returns the number of pages open now.
func (p *Presence) Pages() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.prune(time.Now())
	return len(p.pages)
}

// prune drops pages silent for longer than Stale. p.mu is held.
func (p *Presence) prune(now time.Time) {
	stale := p.Stale
	if stale <= 0 {
		stale = DefaultStale
	}
	for id, t := range p.pages {
		if now.Sub(t) > stale {
			delete(p.pages, id)
		}
	}
	p.update(now)
}

// update notes when the last page closed. p.mu is held.
func (p *Presence) update(now time.Time) {
	switch {
	case len(p.pages) > 0:
		p.since = time.Time{}
	case p.seen && p.since.IsZero():
		p.since = now
	}
}

// Wait returns nil once no page has been open for grace — counting from the last page's close, or from the call
// when no page has come within first — or ctx's error when it ends first.
func (p *Presence) Wait(ctx context.Context, first, grace time.Duration) error {
	start := time.Now()
	for {
		p.mu.Lock()
		now := time.Now()
		p.prune(now)
		open := len(p.pages) > 0
		deadline := p.since.Add(grace)
		if !p.seen {
			deadline = start.Add(first)
		}
		if p.wake == nil {
			p.wake = make(chan struct{})
		}
		wake := p.wake
		p.mu.Unlock()
		wait := time.Second // open pages may go stale without a call
		if !open {
			if !now.Before(deadline) {
				return nil
			}
			wait = deadline.Sub(now)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}
