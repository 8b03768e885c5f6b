package hub

import (
	"sync"
	"time"
)

// Status is what a Progress report says of a file.
type Status string

// The statuses of a file in a pull, in the order they come.
const (
	StatusWaiting     Status = "waiting"     // another pull (another process, or goroutine) is fetching it
	StatusStart       Status = "start"       // its download begins; Done is what an earlier pull left
	StatusDownloading Status = "downloading" // bytes arrive
	StatusRetrying    Status = "retrying"    // a request failed (Err); the next one starts after Wait
	StatusVerifying   Status = "verifying"   // all bytes are here; their SHA-256 is being checked
	StatusDone        Status = "done"        // verified and in the store
	StatusCached      Status = "cached"      // it was in the store (or another tool's) already
)

// Progress is one report on one file of a pull.
type Progress struct {
	File        string // the file's path in the repository, or the Ollama layer's role
	Status      Status
	Done, Total int64         // bytes
	Err         error         // StatusRetrying: what failed
	Wait        time.Duration // StatusRetrying: how long until the next attempt
}

// reporter passes reports to the caller's function one at a time, whatever goroutine they come from.
type reporter struct {
	mu sync.Mutex
	fn func(Progress)
}

func (r *reporter) send(p Progress) {
	if r == nil || r.fn == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fn(p)
}
