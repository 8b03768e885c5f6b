package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for _, c := range []struct {
		method, path string
		code         int
		ctype        string
	}{
		{"GET", "/", 200, "text/html"},
		{"GET", "/app.js", 200, "text/javascript"},
		{"GET", "/markdown.js", 200, "text/javascript"},
		{"GET", "/style.css", 200, "text/css"},
		{"HEAD", "/favicon.svg", 200, "image/svg+xml"},
		{"GET", "/nope", 404, ""},
		{"GET", "/static/app.js", 404, ""},
		{"POST", "/", 405, ""},
		{"POST", PresencePath + "?page=a", 204, ""},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != c.code || !strings.HasPrefix(r.Header.Get("Content-Type"), c.ctype) {
			t.Errorf("%s %s: %d %s, want %d %s", c.method, c.path, r.StatusCode, r.Header.Get("Content-Type"), c.code, c.ctype)
		}
		if c.code == 200 && !strings.Contains(r.Header.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("%s: no script-src 'self' policy", c.path)
		}
	}
	r, _ := http.Get(srv.URL + "/")
	r.Body.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/", nil)
	req.Header.Set("If-None-Match", r.Header.Get("ETag"))
	if r2, err := http.DefaultClient.Do(req); err != nil || r2.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation: %v %v", r2.StatusCode, err)
	}
}

// beat calls the presence endpoint as the page does.
func beat(t *testing.T, h http.Handler, query string) int {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", PresencePath+"?"+query, nil))
	return w.Code
}

func waitAsync(p *Presence, first, grace time.Duration) <-chan error {
	done := make(chan error, 1)
	go func() { done <- p.Wait(context.Background(), first, grace) }()
	return done
}

func TestPresence(t *testing.T) {
	const grace = 150 * time.Millisecond
	t.Run("no page comes", func(t *testing.T) {
		p := &Presence{}
		start := time.Now()
		if err := p.Wait(context.Background(), grace, time.Hour); err != nil || time.Since(start) < grace {
			t.Errorf("Wait: %v after %v", err, time.Since(start))
		}
	})
	t.Run("the last page closes", func(t *testing.T) {
		p := &Presence{}
		done := waitAsync(p, time.Hour, grace)
		beat(t, p, "page=a")
		beat(t, p, "page=b")
		beat(t, p, "page=a&gone=1")
		if p.Pages() != 1 {
			t.Fatalf("%d pages open, want 1", p.Pages())
		}
		select {
		case err := <-done:
			t.Fatalf("Wait returned (%v) with a page open", err)
		case <-time.After(3 * grace):
		}
		closed := time.Now()
		beat(t, p, "page=b&gone=1")
		select {
		case err := <-done:
			if err != nil || time.Since(closed) < grace {
				t.Errorf("Wait: %v, %v after the last page closed (grace %v)", err, time.Since(closed), grace)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Wait did not return after the last page closed")
		}
	})
	t.Run("a reload is not a close", func(t *testing.T) {
		p := &Presence{}
		done := waitAsync(p, time.Hour, 2*time.Second)
		beat(t, p, "page=a")
		beat(t, p, "page=a&gone=1")
		beat(t, p, "page=b") // the reloaded page, within the grace
		select {
		case err := <-done:
			t.Fatalf("Wait returned (%v) across a reload", err)
		case <-time.After(2500 * time.Millisecond):
		}
	})
	t.Run("a silent page goes stale", func(t *testing.T) {
		p := &Presence{Stale: 200 * time.Millisecond}
		done := waitAsync(p, time.Hour, grace)
		beat(t, p, "page=a")
		select {
		case err := <-done:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a page that stopped calling kept the app alive")
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		p := &Presence{}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := p.Wait(ctx, time.Hour, time.Hour); err != context.Canceled {
			t.Errorf("Wait: %v", err)
		}
	})
	t.Run("bad calls", func(t *testing.T) {
		p := &Presence{}
		if c := beat(t, p, ""); c != http.StatusBadRequest {
			t.Errorf("no page id: %d", c)
		}
		w := httptest.NewRecorder()
		p.ServeHTTP(w, httptest.NewRequest("GET", PresencePath+"?page=a", nil))
		if w.Code != http.StatusMethodNotAllowed || p.Pages() != 0 {
			t.Errorf("GET: %d, %d pages", w.Code, p.Pages())
		}
	})
}
