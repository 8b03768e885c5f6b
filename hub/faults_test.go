package hub

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forma-llm/forma/hub/hubtest"
)

const q8 = "forma/stories-GGUF:Q8_0"

// cuts returns n offsets spread through a file of size bytes.
func cuts(size int64, n int) []int64 {
	var out []int64
	for i := 1; i <= n; i++ {
		out = append(out, size*int64(i)/int64(n+1)+int64(i)*7)
	}
	return out
}

// The connection is cut at 10 points; each retry resumes where the bytes on disk end, so the file is sent
// exactly once in all.
func TestResumeAfterCuts(t *testing.T) {
	f := newFixture(t)
	want := f.files["stories260K-Q8_0.gguf"]
	d := hubtest.Digest(want)
	at := cuts(int64(len(want)), 10)
	f.hub.Files.SetFaults(d, hubtest.Faults{CutAt: at})
	m := f.mustPull(q8, PullOptions{})
	sameFile(t, m.Path, want)
	sent, starts := f.hub.Files.Sent(d)
	if sent != int64(len(want)) || !slices.Equal(starts, append([]int64{0}, at...)) {
		t.Errorf("sent %d of %d bytes; requests from %v, want from 0 and %v", sent, len(want), starts, at)
	}
	if len(f.waits) != 10 {
		t.Errorf("%d waits before retries, want 10", len(f.waits))
	}
}

// A pull that gives up at each cut leaves its .part and record; the next pull (as from another process)
// takes up from there, so the 11 pulls together fetch each byte once.
func TestResumeAcrossPulls(t *testing.T) {
	f := newFixture(t)
	f.c.Retries = 1
	want := f.files["stories260K-Q8_0.gguf"]
	d := hubtest.Digest(want)
	at := cuts(int64(len(want)), 10)
	f.hub.Files.SetFaults(d, hubtest.Faults{CutAt: at})
	for i := range at {
		if _, err := f.pull(q8, PullOptions{}); err == nil || !strings.Contains(err.Error(), "giving up") {
			t.Fatalf("pull %d: %v", i+1, err)
		}
		if sent, _ := f.hub.Files.Sent(d); sent != at[i] {
			t.Fatalf("after pull %d: %d bytes sent, want %d", i+1, sent, at[i])
		}
		if _, err := os.Stat(f.c.Store.partPath(d)); err != nil {
			t.Fatal(err)
		}
	}
	m := f.mustPull(q8, PullOptions{})
	sameFile(t, m.Path, want)
	if sent, starts := f.hub.Files.Sent(d); sent != int64(len(want)) || !slices.Equal(starts, append([]int64{0}, at...)) {
		t.Errorf("sent %d of %d bytes; requests from %v", sent, len(want), starts)
	}
	for _, p := range []string{f.c.Store.partPath(d), f.c.Store.statePath(d), f.c.Store.lockPath(d)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left behind", p)
		}
	}
}

// Several connections share a large file; cuts in each are resumed, and no byte is sent twice.
func TestMultiConnectionResume(t *testing.T) {
	f := newFixture(t)
	f.c.Connections, f.c.SplitSize = 4, 64<<10
	want := f.files["stories260K-F16.gguf"]
	d := hubtest.Digest(want)
	at := cuts(int64(len(want)), 10)
	f.hub.Files.SetFaults(d, hubtest.Faults{CutAt: at})
	m := f.mustPull("forma/stories-GGUF:F16", PullOptions{})
	sameFile(t, m.Path, want)
	sent, starts := f.hub.Files.Sent(d)
	if sent != int64(len(want)) || len(starts) != 4+len(at) {
		t.Errorf("sent %d of %d bytes in %d requests (want 14)", sent, len(want), len(starts))
	}
	for i := int64(1); i < 4; i++ {
		if !slices.Contains(starts, int64(len(want))*i/4) {
			t.Errorf("no request from the start of chunk %d (%v)", i, starts)
		}
	}
}

// 429 (with Retry-After, which sets the wait) and 500 are retried; so is a bare 503, after the doubling wait.
func TestRetryStatuses(t *testing.T) {
	f := newFixture(t)
	want := f.files["stories260K-Q8_0.gguf"]
	d := hubtest.Digest(want)
	f.hub.Files.SetFaults(d, hubtest.Faults{Status: []int{429, 500, 503}, RetryAfter: "7"})
	f.mustPull(q8, PullOptions{})
	if !slices.Equal(f.waits, []time.Duration{7 * time.Second, 7 * time.Second, 7 * time.Second}) {
		t.Errorf("waits %v", f.waits)
	}
	var retries []string
	for _, e := range f.events {
		if e.Status == StatusRetrying {
			retries = append(retries, e.Err.Error())
		}
	}
	if len(retries) != 3 || !strings.Contains(retries[0], "429") || !strings.Contains(retries[1], "500") {
		t.Errorf("retry reports %q", retries)
	}

	f2 := newFixture(t)
	f2.hub.Files.SetFaults(d, hubtest.Faults{Status: []int{500, 502}})
	f2.mustPull(q8, PullOptions{})
	if !slices.Equal(f2.waits, []time.Duration{time.Millisecond, 2 * time.Millisecond}) {
		t.Errorf("waits without Retry-After: %v", f2.waits)
	}

	f3 := newFixture(t)
	f3.hub.Files.SetFaults(d, hubtest.Faults{Status: []int{500, 500, 500, 500, 500}})
	if _, err := f3.pull(q8, PullOptions{}); err == nil || !strings.Contains(err.Error(), "giving up after 4 attempts") {
		t.Errorf("endless 500s: %v", err)
	}
	f4 := newFixture(t)
	f4.hub.Files.SetFaults(d, hubtest.Faults{Status: []int{403}})
	if _, err := f4.pull(q8, PullOptions{}); err == nil || len(f4.waits) != 0 {
		t.Errorf("a 403 from the file host is not retried: %v, %v", err, f4.waits)
	}
}

// A server that stops sending is dropped after StallTimeout, and the download resumes where it stopped.
func TestStall(t *testing.T) {
	f := newFixture(t)
	f.c.StallTimeout = 300 * time.Millisecond
	want := f.files["stories260K-Q8_0.gguf"]
	d := hubtest.Digest(want)
	f.hub.Files.SetFaults(d, hubtest.Faults{StallAt: 100_000})
	m := f.mustPull(q8, PullOptions{})
	sameFile(t, m.Path, want)
	sent, starts := f.hub.Files.Sent(d)
	if sent != int64(len(want)) || !slices.Equal(starts, []int64{0, 100_000}) {
		t.Errorf("sent %d of %d, requests from %v", sent, len(want), starts)
	}
	if len(f.events) == 0 || !slices.ContainsFunc(f.events, func(p Progress) bool { return errors.Is(p.Err, errStalled) }) {
		t.Error("no stall reported")
	}
}

// A flipped byte fails the SHA-256 check: an error, no model in the store, only the .part left (and the next
// pull starts afresh).
func TestCorruptByte(t *testing.T) {
	f := newFixture(t)
	want := f.files["stories260K-Q8_0.gguf"]
	d := hubtest.Digest(want)
	f.hub.Files.SetFaults(d, hubtest.Faults{Corrupt: 12345})
	_, err := f.pull(q8, PullOptions{})
	var de *DigestError
	if !errors.As(err, &de) || de.Want != d || !strings.Contains(err.Error(), "SHA-256 mismatch") {
		t.Fatalf("%v", err)
	}
	if got := storeFiles(t, f.c.Store.Dir); !slices.Equal(got, []string{"blobs/sha256-" + hexOf(d) + ".part"}) {
		t.Errorf("the store holds %v", got)
	}
	if _, err := f.c.Resolve(q8); err == nil {
		t.Error("the corrupt model resolves")
	}
	f.hub.Files.SetFaults(d, hubtest.Faults{})
	m := f.mustPull(q8, PullOptions{})
	sameFile(t, m.Path, want)
}

// A disk without room for the download stops the pull before it writes anything.
func TestDiskFull(t *testing.T) {
	f := newFixture(t)
	f.c.DiskFree = func(string) (uint64, error) { return 100_000, nil }
	_, err := f.pull(q8, PullOptions{})
	var se *DiskSpaceError
	if !errors.As(err, &se) || se.Need != uint64(len(f.files["stories260K-Q8_0.gguf"])) ||
		!strings.Contains(err.Error(), "not enough disk space") || !strings.Contains(err.Error(), "97.66 KiB is free") {
		t.Fatalf("%v", err)
	}
	if got := storeFiles(t, f.c.Store.Dir); len(got) != 0 {
		t.Errorf("the store holds %v", got)
	}
	if sent, _ := f.hub.Files.Sent(hubtest.Digest(f.files["stories260K-Q8_0.gguf"])); sent != 0 {
		t.Errorf("%d bytes fetched", sent)
	}
}

// Two pulls of one model at once: one downloads, the other waits on the lock and finds the file.
func TestConcurrentPulls(t *testing.T) {
	f := newFixture(t)
	want := f.files["stories260K-Q8_0.gguf"]
	d := hubtest.Digest(want)
	f.hub.Files.SetFaults(d, hubtest.Faults{Throttle: 20 * time.Millisecond})
	var (
		wg      sync.WaitGroup
		paths   [2]string
		errs    [2]error
		waited  [2]bool
		started = make(chan struct{})
	)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-started
			m, err := f.c.Pull(context.Background(), q8, PullOptions{Progress: func(p Progress) {
				if p.Status == StatusWaiting {
					waited[i] = true
				}
			}})
			errs[i] = err
			if err == nil {
				paths[i] = m.Path
			}
		}()
	}
	close(started)
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	if paths[0] != paths[1] {
		t.Errorf("paths %q", paths)
	}
	sameFile(t, paths[0], want)
	if sent, _ := f.hub.Files.Sent(d); sent != int64(len(want)) {
		t.Errorf("%d bytes sent for a %d-byte file", sent, len(want))
	}
	if waited[0] == waited[1] {
		t.Errorf("waited %v: want exactly one pull to wait", waited)
	}
}

// Cancelling a pull stops it; the bytes fetched stay for the next one.
func TestCancel(t *testing.T) {
	f := newFixture(t)
	want := f.files["stories260K-Q8_0.gguf"]
	d := hubtest.Digest(want)
	f.hub.Files.SetFaults(d, hubtest.Faults{Throttle: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	_, err := f.c.Pull(ctx, q8, PullOptions{Progress: func(p Progress) {
		if p.Status == StatusDownloading && p.Done > 100_000 {
			once.Do(cancel)
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%v", err)
	}
	st, err := f.c.Store.readState(blob{digest: d, size: int64(len(want))})
	if err != nil || st.done() < 100_000 {
		t.Fatalf("record after cancel: %v", err)
	}
	f.hub.Files.SetFaults(d, hubtest.Faults{})
	m := f.mustPull(q8, PullOptions{})
	sameFile(t, m.Path, want)
	if _, starts := f.hub.Files.Sent(d); !slices.Equal(starts, []int64{0, st.done()}) {
		t.Errorf("requests from %v; want the second from %d", starts, st.done())
	}
}
