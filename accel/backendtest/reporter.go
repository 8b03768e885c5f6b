package backendtest

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Reporter runs the suite outside go test (forma selftest): a TB that records each case's outcome. Every case
// runs on a goroutine of its own, so Fatal can end it with runtime.Goexit as testing does; a panic fails the
// case instead of the program.
//
// The suite seeds each case's random inputs from its full name, so a reporter whose root is named like a go test
// function ("TestConformance") runs the cases, with the same data, that `go test -run TestConformance` runs in a
// backend package whose test calls Run directly (accel/vulkan, accel/metal).
type Reporter struct {
	root     string
	name     string
	parent   *Reporter
	short    bool
	results  *results
	mu       sync.Mutex
	failed   bool
	subtests bool
	msgs     []string
	cleanups []func()
}

// Result is the outcome of one case (a test without subtests).
type Result struct {
	Name     string // the path below the reporter's root, "ops/mat_mul"
	Failed   bool
	Messages []string // what the case logged and reported, in order
	Elapsed  time.Duration
}

type results struct {
	mu  sync.Mutex
	all []Result
}

// NewReporter returns a root reporter named root ("" for none); short selects the suite's short mode.
func NewReporter(root string, short bool) *Reporter {
	return &Reporter{root: root, name: root, short: short, results: &results{}}
}

// Results returns the outcomes recorded so far, in the order the cases finished.
func (r *Reporter) Results() []Result {
	r.results.mu.Lock()
	defer r.results.mu.Unlock()
	return append([]Result(nil), r.results.all...)
}

// Short reports whether the suite runs in short mode.
func (r *Reporter) Short() bool { return r.short }

// Name is the case's path.
func (r *Reporter) Name() string { return r.name }

// Helper does nothing: messages carry no file and line.
func (r *Reporter) Helper() {}

func (r *Reporter) log(s string) {
	r.mu.Lock()
	r.msgs = append(r.msgs, s)
	r.mu.Unlock()
}

func (r *Reporter) fail() {
	for p := r; p != nil; p = p.parent {
		p.mu.Lock()
		p.failed = true
		p.mu.Unlock()
	}
}

// Logf records a message.
func (r *Reporter) Logf(format string, args ...any) { r.log(fmt.Sprintf(format, args...)) }

// Errorf records a message and marks the case failed.
func (r *Reporter) Errorf(format string, args ...any) {
	r.log(fmt.Sprintf(format, args...))
	r.fail()
}

// Fatal records a message, marks the case failed and ends it.
func (r *Reporter) Fatal(args ...any) {
	r.log(strings.TrimSuffix(fmt.Sprintln(args...), "\n"))
	r.fail()
	runtime.Goexit()
}

// Fatalf records a message, marks the case failed and ends it.
func (r *Reporter) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// Cleanup registers f to run when the case ends, last registered first.
func (r *Reporter) Cleanup(f func()) {
	r.mu.Lock()
	r.cleanups = append(r.cleanups, f)
	r.mu.Unlock()
}

// Failed reports whether the case or one of its subtests failed.
func (r *Reporter) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// Run runs f as a subtest on a goroutine of its own and waits for it and its cleanups. It reports whether the
// subtest passed.
func (r *Reporter) Run(name string, f func(t *Reporter)) bool {
	c := &Reporter{root: r.root, name: name, parent: r, short: r.short, results: r.results}
	if r.name != "" {
		c.name = r.name + "/" + name
	}
	r.mu.Lock()
	r.subtests = true
	r.mu.Unlock()
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer c.runCleanups()
		defer func() {
			if p := recover(); p != nil {
				c.Errorf("panic: %v", p)
			}
		}()
		f(c)
	}()
	<-done
	c.mu.Lock()
	leaf := !c.subtests
	rel := strings.TrimPrefix(strings.TrimPrefix(c.name, c.root), "/")
	res := Result{Name: rel, Failed: c.failed, Messages: c.msgs, Elapsed: time.Since(start)}
	c.mu.Unlock()
	if leaf {
		r.results.mu.Lock()
		r.results.all = append(r.results.all, res)
		r.results.mu.Unlock()
	}
	return !res.Failed
}

func (r *Reporter) runCleanups() {
	for {
		r.mu.Lock()
		n := len(r.cleanups)
		if n == 0 {
			r.mu.Unlock()
			return
		}
		f := r.cleanups[n-1]
		r.cleanups = r.cleanups[:n-1]
		r.mu.Unlock()
		func() {
			defer func() {
				if p := recover(); p != nil {
					r.Errorf("panic in cleanup: %v", p)
				}
			}()
			f()
		}()
	}
}
