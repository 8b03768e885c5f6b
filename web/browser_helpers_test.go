package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
)

// chrome returns the path of a Chromium or Chrome, or skips the test.
func chrome(t *testing.T) string {
	if p := os.Getenv("FORMA_CHROME"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	for _, p := range []string{ // where the installers put Chrome on macOS and Windows
		"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
		os.Getenv("ProgramFiles") + `\Google\Chrome\Application\chrome.exe`,
		os.Getenv("ProgramFiles(x86)") + `\Google\Chrome\Application\chrome.exe`,
	} {
		if fileExists(p) {
			return p
		}
	}
	t.Skip("no Chromium or Chrome found (apt-get install chromium, or set FORMA_CHROME): the chat page is not tested")
	return ""
}

// artifacts returns the folder for the test's screenshots: $FORMA_ARTIFACTS/web when set, else a temporary one.
func artifacts(t *testing.T) string {
	dir := t.TempDir()
	if a := os.Getenv("FORMA_ARTIFACTS"); a != "" {
		dir = filepath.Join(a, "web")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s (set FORMA_ARTIFACTS to keep them)", dir)
	return dir
}

// The scripted model answers with a fixed text that has what stories260K never writes: Markdown, code, HTML that
// must not run, reasoning and a tool call.
const scriptedModel = "scripted"

const scriptedText = "Here is **bold** text, a [bad link](javascript:window.__pwned=3) and a list:\n\n" +
	"- one\n- two\n\n```go\npackage main\n\nfunc main() {\n\tprintln(\"<b>hi</b>\")\n}\n```\n\n" +
	"<script>window.__pwned = 1</script> <img src=x onerror=\"window.__pwned = 2\">\n"

// testServer wraps the server under test: it records each chat request, answers the scripted model itself, and
// paces streamed events (a pause after each flush) so that the browser receives them one by one, as from a
// model slower than stories260K.
type testServer struct {
	next     http.Handler
	pace     time.Duration
	mu       sync.Mutex
	requests []chatRequest
}

type chatRequest struct {
	Model       string   `json:"model"`
	MaxTokens   int      `json:"max_tokens"`
	Temperature *float64 `json:"temperature"`
	Messages    []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Cancelled bool `json:"-"` // the client went away before the answer ended
}

func (s *testServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/models":
		rec := httptest.NewRecorder()
		s.next.ServeHTTP(rec, r)
		var list map[string]any
		json.Unmarshal(rec.Body.Bytes(), &list)
		data, _ := list["data"].([]any)
		list["data"] = append(data, map[string]any{"id": scriptedModel, "object": "model"})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(list)
		return
	case "/v1/chat/completions":
		body, _ := io.ReadAll(r.Body)
		var q chatRequest
		json.Unmarshal(body, &q)
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.mu.Lock()
		s.requests = append(s.requests, q)
		i := len(s.requests) - 1
		s.mu.Unlock()
		pw := &pacedWriter{ResponseWriter: w, pace: s.pace}
		if q.Model == scriptedModel {
			scripted(pw)
		} else {
			s.next.ServeHTTP(pw, r)
		}
		s.mu.Lock()
		s.requests[i].Cancelled = r.Context().Err() != nil
		s.mu.Unlock()
		return
	}
	s.next.ServeHTTP(w, r)
}

func (s *testServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// waitCount waits until the server has seen n chat requests.
func (s *testServer) waitCount(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); s.count() < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d chat requests, want %d", s.count(), n)
		}
	}
}

func (s *testServer) last() chatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[len(s.requests)-1]
}

// scripted streams scriptedText in pieces after some reasoning and a tool call.
func scripted(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(delta map[string]any) {
		b, _ := json.Marshal(map[string]any{"object": "chat.completion.chunk", "model": scriptedModel,
			"choices": []any{map[string]any{"index": 0, "delta": delta}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	send(map[string]any{"role": "assistant", "reasoning_content": "The user wants code."})
	send(map[string]any{"reasoning_content": " I will show <i>Go</i>."})
	send(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
		"function": map[string]any{"name": "get_weather", "arguments": `{"city":`}}}})
	send(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "function": map[string]any{"arguments": `"Paris"}`}}}})
	for s := scriptedText; s != ""; {
		n := min(len(s), 9)
		send(map[string]any{"content": s[:n]})
		s = s[n:]
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

type pacedWriter struct {
	http.ResponseWriter
	pace time.Duration
}

func (p *pacedWriter) Flush() {
	p.ResponseWriter.(http.Flusher).Flush()
	time.Sleep(p.pace)
}

// testModels loads two models for the page to choose from: stories260K in two types from the reference data, or,
// where it is absent (a CI runner without it), two random-weight models of a tiny shape written for the test.
func testModels(t *testing.T) (map[string]*runtime.Model, []string) {
	var paths []string
	if dir, ok := testdir.Lookup(); ok {
		for _, n := range []string{"stories260K-Q8_0", "stories260K-F32"} {
			if p := filepath.Join(dir, "models", n+".gguf"); fileExists(p) {
				paths = append(paths, p)
			}
		}
	}
	if len(paths) != 2 {
		t.Log("reference models absent: testing with random-weight tiny-llama models")
		paths = nil
		for _, typ := range []quant.Type{quant.Q8_0, quant.F32} {
			p := filepath.Join(t.TempDir(), "tiny-llama-"+typ.String()+".gguf")
			o := synth.Options{Preset: "tiny-llama", Type: typ, Seed: 1, ContextLength: 512}
			if err := synth.Write(p, o); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
	}
	models := map[string]*runtime.Model{}
	var names []string
	for _, p := range paths {
		m, err := runtime.Load(p, runtime.Options{Backend: cpuBackend(t), CloseBackend: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		name := strings.TrimSuffix(filepath.Base(p), ".gguf")
		models[name], names = m, append(names, name)
	}
	return models, names
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// page drives one browser tab.
type page struct {
	t   *testing.T
	ctx context.Context
}

func (p page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression (awaiting a promise) into a Go value.
func eval[T any](p page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		p.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// until waits for a JavaScript expression to be truthy.
func (p page) until(expr string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(30*time.Second),
		chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
		p.t.Fatalf("waiting for %s: %v", expr, err)
	}
}

// lastAnswer is the last assistant message's element.
const lastAnswer = `[...document.querySelectorAll("article.msg.assistant")].pop()`

// send types a message and presses Enter, with a recorder of the answer's length after each change of the page,
// and waits for the page to show the message and the answer's place.
func (p page) send(text string) {
	p.t.Helper()
	eval[bool](p, `(() => {
		window.__lengths = [];
		window.__observer?.disconnect();
		window.__observer = new MutationObserver(() => {
			const c = `+lastAnswer+`?.querySelector(".content");
			const n = c ? c.textContent.length : 0;
			if (window.__lengths.at(-1) !== n) window.__lengths.push(n);
		});
		window.__observer.observe(document.getElementById("messages"), {subtree: true, childList: true, characterData: true});
		return true;
	})()`)
	before := eval[int](p, `document.querySelectorAll("article.msg").length`)
	p.do(chromedp.SendKeys("#input", text), chromedp.KeyEvent("\r"))
	p.until(fmt.Sprintf(`document.querySelectorAll("article.msg").length >= %d`, before+2)) // the question and the answer to come
}

func (p page) answerDone() {
	p.t.Helper()
	p.until(lastAnswer + `?.dataset.state && ` + lastAnswer + `.dataset.state !== "streaming"`)
}

func (p page) selectModel(name string) {
	p.t.Helper()
	p.until(`[...document.querySelectorAll("#model option")].some(o => o.value === ` + jsString(name) + `)`)
	eval[bool](p, `(() => { const m = document.getElementById("model"); m.value = `+jsString(name)+`;
		m.dispatchEvent(new Event("change")); return true; })()`)
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

func (p page) screenshot(dir, name string, width, height int64) {
	p.t.Helper()
	p.do(chromedp.EmulateViewport(width, height))
	buf, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), buf, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// openPage starts the browser on a new server for ts and opens the page. The function it returns lists the
// errors the page logged.
func openPage(t *testing.T, exe string, ts *testServer) (page, func() []string) {
	srv := httptest.NewServer(ts)
	t.Cleanup(srv.Close)
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(exe), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 860))
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("starting %s: %v", exe, err)
	}
	var mu sync.Mutex
	var errs []string
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == "error" {
				mu.Lock()
				errs = append(errs, m.String())
				mu.Unlock()
			}
		}
	}()
	tctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(tcancel)
	p := page{t, tctx}
	p.do(chromedp.Navigate(srv.URL))
	return p, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), errs...) }
}

// cpuBackend is a one-thread CPU backend (the model given it closes it).
func cpuBackend(t testing.TB) accel.Backend {
	t.Helper()
	be, err := cpu.New(cpu.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return be
}
