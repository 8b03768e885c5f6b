package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forma-llm/forma/web"
)

// Hooks of the self-executed forma (selfExecEnv), read from its environment by testHooks.
const (
	openerEnv = "FORMA_TEST_OPENER"    // a file the browser opener writes the URL to, instead of opening a browser
	graceEnv  = "FORMA_TEST_APP_GRACE" // appGrace and appFirstPage, as a duration
)

func testHooks() {
	if f := os.Getenv(openerEnv); f != "" {
		openBrowser = func(url string) error { return os.WriteFile(f, []byte(url), 0o644) }
	}
	if d, err := time.ParseDuration(os.Getenv(graceEnv)); err == nil {
		appGrace, appFirstPage = d, 20*d
	}
}

// syncBuffer is an io.Writer safe to read while the app writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// startApp runs serveApp (no models: the page and an empty model list) with a replaced browser opener, and returns
// the URL it opened and the channel of its result.
func startApp(t *testing.T, ctx context.Context, grace time.Duration) (string, <-chan error, *syncBuffer) {
	t.Helper()
	opened := make(chan string, 1)
	saved := [3]any{openBrowser, appGrace, appFirstPage}
	openBrowser = func(url string) error { opened <- url; return nil }
	appGrace, appFirstPage = grace, 30*time.Second
	t.Cleanup(func() {
		openBrowser, appGrace, appFirstPage = saved[0].(func(string) error), saved[1].(time.Duration), saved[2].(time.Duration)
	})
	out := &syncBuffer{}
	done := make(chan error, 1)
	c := appConfig{api: apiConfig{be: addBackendFlags(newFlags("app", "", io.Discard), io.Discard)}, addr: "127.0.0.1:0",
		browser: true, stdout: out, stderr: out}
	go func() { done <- serveApp(ctx, c) }()
	select {
	case url := <-opened:
		return url, done, out
	case err := <-done:
		t.Fatalf("the app ended before opening a page: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the app did not open a page")
	}
	return "", nil, nil
}

func get(t *testing.T, url string) string {
	t.Helper()
	return getWith(t, url, "")
}

// getPage fetches url as a browser does (asking for HTML: forma serve answers "/" with the chat page then).
func getPage(t *testing.T, url string) string {
	t.Helper()
	return getWith(t, url, "text/html")
}

func getWith(t *testing.T, url, accept string) string {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, r.StatusCode, b)
	}
	return string(b)
}

func heartbeat(t *testing.T, url, query string) {
	t.Helper()
	r, err := http.Post(strings.TrimSuffix(url, "/")+web.PresencePath+"?"+query, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusNoContent || r.Header.Get("X-Forma-Presence") == "off" {
		t.Fatalf("heartbeat: %d, presence %q", r.StatusCode, r.Header.Get("X-Forma-Presence"))
	}
}

// TestAppLifetime: the app serves the page, keeps running while a page is open, and stops a little after the
// last one closes, shutting its server down.
func TestAppLifetime(t *testing.T) {
	const grace = 300 * time.Millisecond
	url, done, out := startApp(t, context.Background(), grace)
	if page := getPage(t, url); !strings.Contains(page, "<title>forma</title>") {
		t.Fatalf("the page: %.200s", page)
	}
	if models := get(t, url+"v1/models"); !strings.Contains(models, `"data":[]`) {
		t.Errorf("models: %s", models)
	}
	heartbeat(t, url, "page=a")
	select {
	case err := <-done:
		t.Fatalf("the app stopped (%v) with a page open", err)
	case <-time.After(4 * grace):
	}
	heartbeat(t, url, "page=a&gone=1")
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the app did not stop after its last page closed")
	}
	if _, err := http.Get(url); err == nil {
		t.Errorf("the server still answers after the app stopped")
	}
	if !strings.Contains(out.String(), "stopping") {
		t.Errorf("output: %s", out)
	}
}

// TestAppInterrupt: Ctrl-C (the context) stops the app even with a page open.
func TestAppInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	url, done, _ := startApp(t, ctx, time.Hour)
	heartbeat(t, url, "page=a")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the app did not stop on interrupt")
	}
}

// TestDesktopLaunch starts forma with no arguments and no terminal (stdin and stdout are not terminals, as when
// double-clicked), with the browser opener replaced: it must serve the page, open it, and exit by itself once
// the page has closed.
func TestDesktopLaunch(t *testing.T) {
	opened := filepath.Join(t.TempDir(), "opened")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), selfExecEnv+"=1", openerEnv+"="+opened, graceEnv+"=300ms")
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()
	var url string
	for deadline := time.Now().Add(30 * time.Second); url == ""; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(opened)
		url = string(b)
		if time.Now().After(deadline) {
			t.Fatalf("no page opened; output:\n%s", out.String())
		}
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(getPage(t, url), "<title>forma</title>") {
		t.Fatalf("opened %q", url)
	}
	heartbeat(t, url, "page=p1")
	heartbeat(t, url, "page=p1&gone=1")
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, out.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("forma did not exit after its page closed:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "forma: chat at "+url) {
		t.Errorf("output: %s", out.String())
	}
}

// TestDesktopLaunchNotForCommands: a command, or help, is never a desktop launch.
func TestDesktopLaunchNotForCommands(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"info", "x"}, {"-h"}} {
		if desktopLaunch(args) {
			t.Errorf("%q is taken for a desktop launch", args)
		}
	}
}
