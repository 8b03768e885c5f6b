// Package hubtest runs fakes of the Hugging Face Hub and of Ollama's registry on httptest servers, with the
// real APIs' JSON shapes and headers, a separate file host to redirect to, and faults to inject (cut
// connections, 429 and 500 answers, stalls, a corrupted byte) for testing pulls without a network.
package hubtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Faults are what a file host does wrong when serving one file.
type Faults struct {
	// CutAt lists offsets at which a response stops and its connection is dropped, each once.
	CutAt []int64
	// Status lists statuses answered instead of the file to the next requests, one per request
	// (429 and 503 with RetryAfter as their Retry-After header).
	Status     []int
	RetryAfter string
	// StallAt, when positive, is an offset at which the first response that reaches it stops sending (without
	// closing) until the client gives up.
	StallAt int64
	// Corrupt, when positive, is an offset whose byte is flipped in every response.
	Corrupt int64
	// Throttle is a pause after every 32 KiB sent (a slow link).
	Throttle time.Duration
	// Gate, when not nil, holds every response until it is closed.
	Gate chan struct{}
}

// Files is a file host: it serves files by their SHA-256 under /blobs/HEX (or /blobs/sha256:HEX), with
// Range requests, counting the bytes it sends.
type Files struct {
	Server *httptest.Server

	mu       sync.Mutex
	files    map[string][]byte // by hex digest
	faults   map[string]*Faults
	sent     map[string]int64
	starts   map[string][]int64
	authSeen bool
}

func newFiles() *Files {
	f := &Files{files: map[string][]byte{}, faults: map[string]*Faults{}, sent: map[string]int64{}, starts: map[string][]int64{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// Digest returns "sha256:HEX" of b.
func Digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

func (f *Files) add(b []byte) string {
	d := Digest(b)
	f.mu.Lock()
	f.files[strings.TrimPrefix(d, "sha256:")] = b
	f.mu.Unlock()
	return d
}

// SetFaults sets the faults of the file of a digest (sha256:HEX).
func (f *Files) SetFaults(digest string, ft Faults) {
	f.mu.Lock()
	f.faults[strings.TrimPrefix(digest, "sha256:")] = &ft
	f.mu.Unlock()
}

// Sent returns the bytes of the file of a digest sent so far, and the first byte of each response.
func (f *Files) Sent(digest string) (int64, []int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	h := strings.TrimPrefix(digest, "sha256:")
	return f.sent[h], append([]int64(nil), f.starts[h]...)
}

// AuthSeen reports whether any request to the file host carried an Authorization header (a token leaked
// across a redirect).
func (f *Files) AuthSeen() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.authSeen
}

func (f *Files) serve(w http.ResponseWriter, r *http.Request) {
	h := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/blobs/"), "sha256:")
	f.mu.Lock()
	if r.Header.Get("Authorization") != "" {
		f.authSeen = true
	}
	b, ok := f.files[h]
	ft := f.faults[h]
	if ft == nil {
		ft = &Faults{}
	}
	status := 0
	if len(ft.Status) > 0 {
		status, ft.Status = ft.Status[0], ft.Status[1:]
	}
	f.mu.Unlock()
	switch {
	case !ok:
		http.Error(w, "no such blob", http.StatusNotFound)
		return
	case status != 0:
		if ft.RetryAfter != "" {
			w.Header().Set("Retry-After", ft.RetryAfter)
		}
		http.Error(w, http.StatusText(status), status)
		return
	}
	if ft.Gate != nil {
		<-ft.Gate
	}
	start, end, ok := parseRange(r.Header.Get("Range"), int64(len(b)))
	if !ok {
		http.Error(w, "bad range", http.StatusRequestedRangeNotSatisfiable)
		return
	}
	w.Header().Set("Accept-Ranges", "bytes")
	w.Header().Set("ETag", `"`+h+`"`)
	w.Header().Set("Content-Length", strconv.FormatInt(end-start, 10))
	if r.Header.Get("Range") != "" {
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end-1, len(b)))
		w.WriteHeader(http.StatusPartialContent)
	}
	if r.Method == http.MethodHead {
		return
	}
	f.send(w, r, h, b, start, end, ft)
}

// send writes b[start:end], applying the faults: a flipped byte, a cut, a stall.
func (f *Files) send(w http.ResponseWriter, r *http.Request, h string, b []byte, start, end int64, ft *Faults) {
	f.mu.Lock()
	f.starts[h] = append(f.starts[h], start)
	stop, cut, stall := end, false, false
	for i, c := range ft.CutAt {
		if c > start && c < stop {
			stop, cut = c, true
			ft.CutAt = append(ft.CutAt[:i:i], ft.CutAt[i+1:]...)
			break
		}
	}
	if ft.StallAt > start && ft.StallAt < stop {
		stop, cut, stall = ft.StallAt, false, true
		ft.StallAt = 0
	}
	f.mu.Unlock()
	out := b[start:stop]
	if ft.Corrupt > 0 && ft.Corrupt >= start && ft.Corrupt < stop {
		out = append([]byte(nil), out...)
		out[ft.Corrupt-start] ^= 0xff
	}
	for len(out) > 0 {
		n := min(len(out), 32<<10)
		k, err := w.Write(out[:n])
		f.mu.Lock()
		f.sent[h] += int64(k)
		f.mu.Unlock()
		if err != nil {
			return
		}
		out = out[n:]
		if ft.Throttle > 0 {
			w.(http.Flusher).Flush()
			time.Sleep(ft.Throttle)
		}
	}
	if cut || stall {
		w.(http.Flusher).Flush()
	}
	if stall {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		panic(http.ErrAbortHandler)
	}
	if cut {
		panic(http.ErrAbortHandler)
	}
}

// parseRange reads "bytes=A-B" or "bytes=A-" (or no header: the whole file) into [start, end).
func parseRange(h string, size int64) (int64, int64, bool) {
	if h == "" {
		return 0, size, true
	}
	spec, ok := strings.CutPrefix(h, "bytes=")
	a, b, ok2 := strings.Cut(spec, "-")
	if !ok || !ok2 || strings.Contains(spec, ",") {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(a, 10, 64)
	if err != nil || start < 0 || start >= size {
		return 0, 0, false
	}
	end := size
	if b != "" {
		e, err := strconv.ParseInt(b, 10, 64)
		if err != nil || e < start {
			return 0, 0, false
		}
		end = min(e+1, size)
	}
	return start, end, true
}

// Close stops the server.
func (f *Files) Close() { f.Server.Close() }
