package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
	"github.com/forma-llm/forma/internal/chatstub"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/web"
)

// serverUnderTest is the server the page is tested against: the chat page at / and the OpenAI-compatible API
// over the models, as forma serve mounts them. (When package server lands, it is built here instead of
// chatstub: the rest of the test only speaks HTTP to it.)
func serverUnderTest(t *testing.T, models map[string]*runtime.Model, names []string) http.Handler {
	t.Helper()
	var ms []chatstub.Model
	for _, n := range names {
		ms = append(ms, chatstub.Model{Name: n, Model: models[n]})
	}
	api, err := chatstub.New(ms, runtime.SessionOptions{Ctx: 512})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	mux := http.NewServeMux()
	mux.Handle("/v1/", api)
	mux.Handle("/", web.Handler())
	return mux
}

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

const scriptedAnswer = "Here is **bold** text, a [bad link](javascript:window.__pwned=3) and a list:\n\n" +
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

func (s *testServer) last() chatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[len(s.requests)-1]
}

// scripted streams scriptedAnswer in pieces after some reasoning and a tool call.
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
	for s := scriptedAnswer; s != ""; {
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
		m, err := runtime.Load(p, runtime.Options{Threads: 1})
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

// send types a message and presses Enter, with a recorder of the answer's length after each change of the page.
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
	p.do(chromedp.SendKeys("#input", text), chromedp.KeyEvent("\r"))
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

// TestChatPage drives the chat page in headless Chromium against a server on stories260K (greedy): it sends a message and
// sees the answer stream in token by token, stops an answer, reloads and finds the conversation, switches model,
// renders Markdown, code, reasoning and a tool call from the scripted model while HTML in an answer stays text,
// and takes screenshots at desktop and phone width.
func TestChatPage(t *testing.T) {
	exe := chrome(t)
	models, names := testModels(t)
	first, second := names[0], names[1]
	ts := &testServer{next: serverUnderTest(t, models, names), pace: 15 * time.Millisecond}
	srv := httptest.NewServer(ts)
	defer srv.Close()
	shots := artifacts(t)

	alloc, cancel := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(exe), chromedp.Headless,
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 860))
	defer cancel()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("starting %s: %v", exe, err)
	}
	var exceptions []string
	var exMu sync.Mutex
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == "error" {
				exMu.Lock()
				exceptions = append(exceptions, m.String())
				exMu.Unlock()
			}
		}
	}()
	tctx, tcancel := context.WithTimeout(ctx, 90*time.Second)
	defer tcancel()
	p := page{t, tctx}
	p.do(chromedp.Navigate(srv.URL))
	p.until(`document.querySelectorAll("#model option").length === 3`)

	t.Run("markdown", func(t *testing.T) { markdownCases(page{t, tctx}) })

	// Shift+Enter is a new line; Enter sends.
	p.do(chromedp.SendKeys("#input", "line one"), chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierShift)),
		chromedp.SendKeys("#input", "line two"))
	if v := eval[string](p, `document.getElementById("input").value`); v != "line one\nline two" ||
		eval[int](p, `document.querySelectorAll("article.msg").length`) != 0 {
		t.Fatalf("after Shift+Enter: input %q, or a message was sent", v)
	}
	eval[bool](p, `(document.getElementById("input").value = "", true)`)

	// Settings reach the request: a system prompt, greedy sampling and a token limit.
	p.do(chromedp.Click("#toggle-settings"), chromedp.SendKeys("#system", "You tell stories."),
		chromedp.SendKeys("#temperature", "0"), chromedp.SendKeys("#max_tokens", "40"), chromedp.Click("#toggle-settings"))

	// 1. An answer streams in token by token.
	p.selectModel(first)
	p.send("Once upon a time")
	p.answerDone()
	lengths := eval[[]int](p, `window.__lengths`)
	steps := 0
	for i := 1; i < len(lengths); i++ {
		if lengths[i] > lengths[i-1] {
			steps++
		}
	}
	req := ts.last()
	if steps < 10 || req.Model != first || req.MaxTokens != 40 || req.Temperature == nil || *req.Temperature != 0 ||
		len(req.Messages) != 2 || req.Messages[0].Role != "system" {
		t.Errorf("answer grew in %d steps (lengths %v); request %+v", steps, lengths, req)
	}
	answer := eval[string](p, lastAnswer+`.querySelector(".content").textContent`)
	if st := eval[string](p, lastAnswer+`.querySelector(".stats").textContent`); answer == "" || !strings.Contains(st, " tokens") ||
		!strings.Contains(st, "tok/s") || !strings.Contains(eval[string](p, `document.getElementById("context").textContent`), "/ 512") {
		t.Errorf("answer %q, stats %q, context %q", answer, st, eval[string](p, `document.getElementById("context").textContent`))
	}

	// 2. Stop an answer midway: it stays as far as it got and the server's generation ends.
	eval[bool](p, `(() => { const m = document.getElementById("max_tokens"); m.value = "";
		m.dispatchEvent(new Event("change")); return true; })()`)
	p.send("Tell me more")
	p.until(lastAnswer + `?.querySelector(".content").textContent.length > 30`)
	p.do(chromedp.Click("#send"))
	p.until(lastAnswer + `.dataset.state === "stopped"`)
	stopped := eval[string](p, lastAnswer+`.querySelector(".content").textContent`)
	time.Sleep(300 * time.Millisecond)
	if again := eval[string](p, lastAnswer+`.querySelector(".content").textContent`); again != stopped ||
		!strings.Contains(stopped, "Stopped.") || eval[string](p, `document.getElementById("send").textContent`) != "Send" {
		t.Errorf("after Stop: %q then %q", stopped, again)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !ts.last().Cancelled && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !ts.last().Cancelled {
		t.Errorf("the server's answer was not cut short by Stop")
	}

	// 3. Reload: the conversation is still there, as it was.
	p.do(chromedp.Reload())
	p.until(`document.querySelectorAll("article.msg").length === 4`)
	if got := eval[string](p, `document.querySelector("article.msg.assistant .content").textContent`); got != answer {
		t.Errorf("after reload the first answer is %q, was %q", got, answer)
	}
	if got := eval[string](p, lastAnswer+`.querySelector(".content").textContent`); got != stopped {
		t.Errorf("after reload the stopped answer is %q, was %q", got, stopped)
	}
	if titles := eval[[]string](p, `[...document.querySelectorAll(".conversation-title")].map(b => b.textContent)`); len(titles) != 1 || titles[0] != "Once upon a time" {
		t.Errorf("conversations %q", titles)
	}

	// 4. Switch model, in a new conversation.
	p.do(chromedp.Click("#new-chat"), chromedp.Click("#toggle-settings"), chromedp.SendKeys("#max_tokens", "30"),
		chromedp.Click("#toggle-settings"))
	p.selectModel(second)
	p.send("The cat")
	p.answerDone()
	if ts.last().Model != second || eval[string](p, lastAnswer+`.querySelector(".role").textContent`) != second {
		t.Errorf("after switching to %s: request for %s, label %q", second, ts.last().Model, eval[string](p, lastAnswer+`.querySelector(".role").textContent`))
	}

	// 5. Markdown, code, reasoning, a tool call, and HTML that stays text.
	p.selectModel(scriptedModel)
	p.send("Show me some Go")
	p.answerDone()
	checks := eval[map[string]any](p, `(() => {
		const a = `+lastAnswer+`;
		return {
			pwned: window.__pwned === undefined ? "no" : String(window.__pwned),
			elements: document.querySelectorAll("#messages script, #messages img, #messages iframe, #messages i").length,
			code: a.querySelector(".code-block code")?.textContent,
			lang: a.querySelector(".code-lang")?.textContent,
			bold: a.querySelector(".content strong")?.textContent,
			items: a.querySelectorAll(".content li").length,
			links: [...a.querySelectorAll("a")].map(l => l.href).join(" "),
			text: a.querySelector(".content").textContent,
			reasoningOpen: a.querySelector("details.reasoning").open,
			reasoning: a.querySelector("details.reasoning").textContent,
			tool: a.querySelector(".tool-call")?.textContent,
		};
	})()`)
	want := map[string]any{"pwned": "no", "elements": 0.0, "code": "package main\n\nfunc main() {\n\tprintln(\"<b>hi</b>\")\n}",
		"lang": "go", "bold": "bold", "items": 2.0, "links": "", "reasoningOpen": false}
	for k, v := range want {
		if checks[k] != v {
			t.Errorf("scripted answer: %s = %#v, want %#v", k, checks[k], v)
		}
	}
	for k, sub := range map[string]string{"text": "<script>window.__pwned = 1</script>", "reasoning": "I will show <i>Go</i>.",
		"tool": `"city": "Paris"`} {
		if s, _ := checks[k].(string); !strings.Contains(s, sub) {
			t.Errorf("scripted answer: %s = %q, want it to contain %q", k, s, sub)
		}
	}
	if !strings.Contains(checks["tool"].(string), "get_weather") {
		t.Errorf("tool call shown as %q", checks["tool"])
	}

	// 6. Screenshots, and the layout at phone width.
	p.screenshot(shots, "desktop.png", 1280, 860)
	p.do(chromedp.EmulateViewport(390, 844))
	p.until(`document.getElementById("sidebar").getBoundingClientRect().right <= 0`) // it slides away
	p.screenshot(shots, "phone.png", 390, 844)
	layout := eval[map[string]any](p, `(() => {
		const r = (id) => document.getElementById(id).getBoundingClientRect();
		return {overflow: document.documentElement.scrollWidth > innerWidth, sidebarRight: r("sidebar").right,
			toggle: r("toggle-sidebar").width > 0, composerBottom: r("composer").bottom <= innerHeight, sendRight: r("send").right <= innerWidth};
	})()`)
	if layout["overflow"] != false || layout["sidebarRight"].(float64) > 0 || layout["toggle"] != true ||
		layout["composerBottom"] != true || layout["sendRight"] != true {
		t.Errorf("phone layout: %v", layout)
	}
	p.do(chromedp.Click("#toggle-sidebar"))
	p.until(`document.getElementById("sidebar").getBoundingClientRect().left >= 0`)
	p.screenshot(shots, "phone-conversations.png", 390, 844)
	if n := eval[int](p, `document.querySelectorAll(".conversation").length`); n != 2 {
		t.Errorf("%d conversations listed, want 2", n)
	}
	exMu.Lock()
	defer exMu.Unlock()
	for _, e := range exceptions {
		t.Errorf("page error: %s", e)
	}
}

// markdownCases renders Markdown in the page with its own renderer and compares the HTML it builds.
func markdownCases(p page) {
	const a = ` target="_blank" rel="noopener noreferrer nofollow"`
	cases := []struct{ src, want string }{
		{"Hello **world**", "<p>Hello <strong>world</strong></p>"},
		{"a *b* _c_ `d < e`", "<p>a <em>b</em> <em>c</em> <code>d &lt; e</code></p>"},
		{"# Title\n\ntext", "<h1>Title</h1><p>text</p>"},
		{"line1\nline2", "<p>line1<br>line2</p>"},
		{"1. a\n2. b", "<ol><li>a</li><li>b</li></ol>"},
		{"- one\n- two\n  - nested\n- three", "<ul><li>one</li><li><p>two</p><ul><li>nested</li></ul></li><li>three</li></ul>"},
		{"```js\nif (a < b) x()\n```", `<div class="code-block"><div class="code-bar"><span class="code-lang">js</span>` +
			`<button class="copy-code" type="button" title="Copy the code">Copy</button></div>` +
			`<pre><code data-lang="js">if (a &lt; b) x()</code></pre></div>`},
		{"```\nstill streaming", `<div class="code-block"><div class="code-bar"><span class="code-lang">text</span>` +
			`<button class="copy-code" type="button" title="Copy the code">Copy</button></div><pre><code>still streaming</code></pre></div>`},
		{"<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"},
		{"<img src=x onerror=alert(1)>", "<p>&lt;img src=x onerror=alert(1)&gt;</p>"},
		{"[x](javascript:alert(1)) [y](https://example.com/a?b=1&c=2)", `<p>x <a href="https://example.com/a?b=1&amp;c=2"` + a + `>y</a></p>`},
		{"![pic](https://example.com/p.png)", `<p><a href="https://example.com/p.png"` + a + `>pic</a></p>`},
		{"see https://example.com/x.", `<p>see <a href="https://example.com/x"` + a + `>https://example.com/x</a>.</p>`},
		{"> quote\n> more", "<blockquote><p>quote<br>more</p></blockquote>"},
		{"| a | b |\n|---|:-:|\n| 1 | 2 |", `<div class="table-wrap"><table><thead><tr><th>a</th><th style="text-align: center;">b</th></tr></thead>` +
			`<tbody><tr><td>1</td><td style="text-align: center;">2</td></tr></tbody></table></div>`},
		{"~~gone~~ \\*not em\\* snake_case_name", "<p><del>gone</del> *not em* snake_case_name</p>"},
		{"x.__y = 1 and z.__y", "<p>x.__y = 1 and z.__y</p>"},
		{"__strong__ and _em_", "<p><strong>strong</strong> and <em>em</em></p>"},
		{"---", "<hr>"},
		{"**unclosed bold", "<p>**unclosed bold</p>"},
	}
	var srcs []string
	for _, c := range cases {
		srcs = append(srcs, c.src)
	}
	b, _ := json.Marshal(srcs)
	got := eval[[]string](p, `import("/markdown.js").then(m => `+string(b)+`.map(s => {
		const d = document.createElement("div"); d.append(m.render(s)); return d.innerHTML; }))`)
	for i, c := range cases {
		if got[i] != c.want {
			p.t.Errorf("render(%q):\n got %s\nwant %s", c.src, got[i], c.want)
		}
	}
}
