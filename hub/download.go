package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// blob is one file to download: where from and what it must be.
type blob struct {
	name   string      // for progress and messages
	url    string      // GET it (redirects followed; the header is not sent to another host)
	header http.Header // sent with every request
	digest string      // sha256:HEX
	size   int64
}

// partState is the record beside a .part file of which byte ranges are on disk, so that a download cut off
// (or a pull killed) resumes without fetching them again. Chunk i covers [Start, End) and has Done bytes from
// Start written.
type partState struct {
	Digest string       `json:"digest"`
	Size   int64        `json:"size"`
	Chunks []*partChunk `json:"chunks"`
}

type partChunk struct {
	Start int64        `json:"start"`
	End   int64        `json:"end"`
	Done  atomic.Int64 `json:"-"`
	Saved int64        `json:"done"` // Done when last saved
}

func (s *partState) done() int64 {
	var n int64
	for _, ch := range s.Chunks {
		n += ch.Done.Load()
	}
	return n
}

// DigestError is a download whose SHA-256 is not the one the registry promised.
type DigestError struct {
	File      string
	Want, Got string
}

func (e *DigestError) Error() string {
	return fmt.Sprintf("%s: SHA-256 mismatch: got %s, want %s; the download is corrupt and was not stored "+
		"(pull again to fetch it anew)", e.File, e.Got, e.Want)
}

// DiskSpaceError is a pull that needs more room than the store's disk has.
type DiskSpaceError struct {
	Dir        string
	Need, Free uint64
}

func (e *DiskSpaceError) Error() string {
	return fmt.Sprintf("not enough disk space in %s: the download needs %s, %s is free", e.Dir,
		HumanBytes(int64(e.Need)), HumanBytes(int64(e.Free)))
}

// HumanBytes formats a byte count in binary units: 512 B, 1.50 KiB, 3.20 GiB.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.2f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func (s Store) partPath(digest string) string  { return s.BlobPath(digest) + ".part" }
func (s Store) statePath(digest string) string { return s.BlobPath(digest) + ".part.json" }
func (s Store) lockPath(digest string) string  { return s.BlobPath(digest) + ".lock" }

// has reports whether the store holds the blob, complete.
func (s Store) has(b blob) bool {
	st, err := os.Stat(s.BlobPath(b.digest))
	return err == nil && st.Mode().IsRegular() && st.Size() == b.size
}

// remaining returns the bytes of b not yet in the store (what a .part and its record do not hold).
func (s Store) remaining(b blob) int64 {
	if s.has(b) {
		return 0
	}
	if st, err := s.readState(b); err == nil {
		return b.size - st.done()
	}
	return b.size
}

func (s Store) readState(b blob) (*partState, error) {
	raw, err := os.ReadFile(s.statePath(b.digest))
	if err != nil {
		return nil, err
	}
	var st partState
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, err
	}
	if st.Digest != b.digest || st.Size != b.size || len(st.Chunks) == 0 {
		return nil, errors.New("the download record is for another file")
	}
	var at int64
	for _, ch := range st.Chunks {
		if ch.Start != at || ch.End < ch.Start || ch.Saved < 0 || ch.Saved > ch.End-ch.Start {
			return nil, errors.New("the download record is inconsistent")
		}
		ch.Done.Store(ch.Saved)
		at = ch.End
	}
	if at != b.size {
		return nil, errors.New("the download record does not cover the file")
	}
	if fi, err := os.Stat(s.partPath(b.digest)); err != nil || fi.Size() != b.size {
		return nil, errors.New("the .part file does not match its record")
	}
	return &st, nil
}

func (s Store) saveState(st *partState) error {
	for _, ch := range st.Chunks {
		ch.Saved = ch.Done.Load()
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return writeAtomic(s.statePath(st.Digest), raw)
}

// plan splits a file of size bytes into chunks, one per connection.
func (c *Client) plan(digest string, size int64) *partState {
	n := int64(1)
	if c.SplitSize > 0 && c.Connections > 1 {
		n = max(1, min(int64(c.Connections), size/c.SplitSize))
	}
	st := &partState{Digest: digest, Size: size}
	for i := range n {
		st.Chunks = append(st.Chunks, &partChunk{Start: size * i / n, End: size * (i + 1) / n})
	}
	return st
}

// fetch brings blob b into the store: under the blob's lock, through its .part file (resumed where its record
// says), over several connections for a large file, verified against its digest, renamed into place.
func (c *Client) fetch(ctx context.Context, b blob, rep *reporter) error {
	if c.Store.has(b) {
		rep.send(Progress{File: b.name, Status: StatusCached, Done: b.size, Total: b.size})
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(c.Store.BlobPath(b.digest)), 0o755); err != nil {
		return err
	}
	unlock, err := lockFile(ctx, c.Store.lockPath(b.digest), func() {
		rep.send(Progress{File: b.name, Status: StatusWaiting, Total: b.size})
	})
	if err != nil {
		return err
	}
	defer unlock()
	if c.Store.has(b) { // another pull finished it while this one waited
		rep.send(Progress{File: b.name, Status: StatusCached, Done: b.size, Total: b.size})
		return nil
	}
	st, err := c.Store.readState(b)
	if err != nil {
		st = c.plan(b.digest, b.size)
	}
	f, err := os.OpenFile(c.Store.partPath(b.digest), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(b.size); err != nil {
		return fmt.Errorf("%s: %w", c.Store.partPath(b.digest), err)
	}
	if err := c.Store.saveState(st); err != nil {
		return err
	}
	rep.send(Progress{File: b.name, Status: StatusStart, Done: st.done(), Total: b.size})
	err = c.download(ctx, b, f, st, rep)
	if serr := c.Store.saveState(st); err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	return c.finish(b, f, rep)
}

// download runs one worker per unfinished chunk; the first to fail for good stops the others.
func (c *Client) download(ctx context.Context, b blob, f *os.File, st *partState, rep *reporter) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
		saveMu   sync.Mutex
		lastSave = time.Now()
	)
	progress := func() {
		rep.send(Progress{File: b.name, Status: StatusDownloading, Done: st.done(), Total: b.size})
		saveMu.Lock()
		if time.Since(lastSave) > time.Second {
			c.Store.saveState(st)
			lastSave = time.Now()
		}
		saveMu.Unlock()
	}
	for _, ch := range st.Chunks {
		if ch.Done.Load() == ch.End-ch.Start {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.fetchChunk(ctx, b, f, ch, st, progress, rep); err != nil {
				errOnce.Do(func() { firstErr = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// fetchChunk downloads one chunk, resuming after every failure that a retry may mend, until it is whole or
// Retries attempts in a row bring no byte.
func (c *Client) fetchChunk(ctx context.Context, b blob, f *os.File, ch *partChunk, st *partState, progress func(), rep *reporter) error {
	fails := 0
	for ch.Done.Load() < ch.End-ch.Start {
		before := ch.Done.Load()
		err := c.getRange(ctx, b, f, ch, st.Size, progress)
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !isRetryable(err) {
			return fmt.Errorf("%s: %w", b.name, err)
		}
		if ch.Done.Load() > before {
			fails = 0
		}
		fails++
		if fails >= c.Retries {
			return fmt.Errorf("%s: giving up after %d attempts without progress: %w", b.name, fails, err)
		}
		d := c.backoff(fails, err)
		rep.send(Progress{File: b.name, Status: StatusRetrying, Done: st.done(), Total: b.size, Err: err, Wait: d})
		if err := c.wait(ctx, d); err != nil {
			return err
		}
	}
	return nil
}

// errStalled is a connection that went quiet for StallTimeout.
var errStalled = errors.New("the connection stalled")

// getRange makes one request for the rest of a chunk and writes what arrives at its place in f.
func (c *Client) getRange(ctx context.Context, b blob, f *os.File, ch *partChunk, size int64, progress func()) error {
	off := ch.Start + ch.Done.Load()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stalled atomic.Bool
	timer := time.AfterFunc(c.StallTimeout, func() { stalled.Store(true); cancel() })
	defer timer.Stop()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, b.url, nil)
	if err != nil {
		return permanent{err}
	}
	for k, v := range b.header {
		req.Header[k] = v
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, ch.End-1))
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if stalled.Load() {
			return errStalled
		}
		return err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent:
		if start, ok := contentRangeStart(resp.Header.Get("Content-Range")); !ok || start != off {
			return permanent{fmt.Errorf("asked for bytes from %d, the server sent %q", off, resp.Header.Get("Content-Range"))}
		}
	case resp.StatusCode == http.StatusOK && off == 0 && ch.End == size:
		// The whole file, as asked.
	case resp.StatusCode == http.StatusOK:
		return permanent{errors.New("the server ignores Range requests, so the download cannot be split or resumed")}
	default:
		return statusError(resp)
	}
	buf := make([]byte, 256<<10)
	for {
		want := ch.End - ch.Start - ch.Done.Load()
		if want == 0 {
			return nil
		}
		n, rerr := resp.Body.Read(buf[:min(int64(len(buf)), want)])
		if n > 0 {
			timer.Reset(c.StallTimeout)
			if _, err := f.WriteAt(buf[:n], ch.Start+ch.Done.Load()); err != nil {
				return permanent{fmt.Errorf("writing %s: %w", f.Name(), err)}
			}
			ch.Done.Add(int64(n))
			progress()
		}
		switch {
		case rerr == io.EOF:
			if ch.Done.Load() < ch.End-ch.Start {
				return io.ErrUnexpectedEOF
			}
			return nil
		case rerr != nil && stalled.Load():
			return errStalled
		case rerr != nil:
			return rerr
		}
	}
}

// contentRangeStart reads the first byte of a "bytes START-END/SIZE" header.
func contentRangeStart(h string) (int64, bool) {
	r, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, false
	}
	s, _, ok := strings.Cut(r, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// statusError turns an unexpected response into an *HTTPError with the server's message, if short.
func statusError(resp *http.Response) error {
	e := &HTTPError{URL: redact(resp.Request.URL.String()), Status: resp.StatusCode,
		RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After"))}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var j struct {
		Error  string `json:"error"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if json.Unmarshal(body, &j) == nil {
		e.Msg = j.Error
		if e.Msg == "" && len(j.Errors) > 0 {
			e.Msg = j.Errors[0].Message
		}
	}
	return e
}

// redact drops the query of a URL (a CDN's signed URL carries credentials there).
func redact(u string) string {
	u, _, _ = strings.Cut(u, "?")
	return u
}

// finish checks the whole .part against the digest and renames it into the store. A mismatch leaves the .part
// without its record, so the next pull starts the file anew.
func (c *Client) finish(b blob, f *os.File, rep *reporter) error {
	rep.send(Progress{File: b.name, Status: StatusVerifying, Done: b.size, Total: b.size})
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, b.size)); err != nil {
		return err
	}
	got := "sha256:" + hex.EncodeToString(h.Sum(nil))
	if got != b.digest {
		os.Remove(c.Store.statePath(b.digest))
		return &DigestError{File: b.name, Want: b.digest, Got: got}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(c.Store.partPath(b.digest), c.Store.BlobPath(b.digest)); err != nil {
		return err
	}
	if err := os.Remove(c.Store.statePath(b.digest)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	rep.send(Progress{File: b.name, Status: StatusDone, Done: b.size, Total: b.size})
	return nil
}
