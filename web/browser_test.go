package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/server"
)

// serverUnderTest is the server the page is tested against: forma serve's handler (the chat page at / and the
// APIs) over the models, loaded already.
func serverUnderTest(t *testing.T, models map[string]*runtime.Model, names []string) http.Handler {
	t.Helper()
	s := server.New(server.Config{Models: names, Session: runtime.SessionOptions{Ctx: 512}, Parallel: 2,
		Logger: slog.New(slog.DiscardHandler),
		Load: func(path string, _ runtime.Options) (*runtime.Model, func() error, error) {
			m := models[strings.TrimSuffix(filepath.Base(path), ".gguf")]
			if m == nil {
				return nil, nil, fmt.Errorf("no test model %s", path)
			}
			return m, func() error { return nil }, nil
		}})
	if err := s.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.Handler()
}

// TestChatPage drives the chat page in headless Chromium against a server on stories260K (greedy): it sends a
// message and sees the answer stream in token by token, stops an answer, reloads and finds the conversation,
// switches model, renders Markdown, code, reasoning and a tool call from the scripted model while HTML in an
// answer stays text, and takes screenshots at desktop and phone width.
func TestChatPage(t *testing.T) {
	exe := chrome(t)
	models, names := testModels(t)
	ts := &testServer{next: serverUnderTest(t, models, names), pace: 15 * time.Millisecond}
	p, pageErrors := openPage(t, exe, ts)
	p.until(`document.querySelectorAll("#model option").length === 3`)

	t.Run("markdown", func(t *testing.T) { markdownCases(page{t, p.ctx}) })
	keyboard(p)
	answer := streamAnswer(p, ts, names[0])
	stopped := stopAnswer(p, ts)
	reload(p, answer, stopped)
	switchModel(p, ts, names[1])
	regenerateAndEdit(p, ts)
	scriptedAnswer(p)
	phoneLayout(p, artifacts(t))
	for _, e := range pageErrors() {
		t.Errorf("page error: %s", e)
	}
}

// keyboard: Shift+Enter is a new line, not a send.
func keyboard(p page) {
	p.do(chromedp.SendKeys("#input", "line one"), chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierShift)),
		chromedp.SendKeys("#input", "line two"))
	if v := eval[string](p, `document.getElementById("input").value`); v != "line one\nline two" ||
		eval[int](p, `document.querySelectorAll("article.msg").length`) != 0 {
		p.t.Fatalf("after Shift+Enter: input %q, or a message was sent", v)
	}
	eval[bool](p, `(document.getElementById("input").value = "", true)`)
}

// streamAnswer sets a system prompt, greedy sampling and a token limit in the settings, sends a message with
// Enter, and checks that the answer grew token by token and that the settings reached the request. It returns
// the answer.
func streamAnswer(p page, ts *testServer, model string) string {
	p.do(chromedp.Click("#toggle-settings"), chromedp.SendKeys("#system", "You tell stories."),
		chromedp.SendKeys("#temperature", "0"), chromedp.SendKeys("#max_tokens", "40"), chromedp.Click("#toggle-settings"))
	p.selectModel(model)
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
	if steps < 10 || req.Model != model || req.MaxTokens != 40 || req.Temperature == nil || *req.Temperature != 0 ||
		len(req.Messages) != 2 || req.Messages[0].Role != "system" {
		p.t.Errorf("answer grew in %d steps (lengths %v); request %+v", steps, lengths, req)
	}
	answer := eval[string](p, lastAnswer+`.querySelector(".content").textContent`)
	stats := eval[string](p, lastAnswer+`.querySelector(".stats").textContent`)
	context := eval[string](p, `document.getElementById("context").textContent`)
	if answer == "" || !strings.Contains(stats, " tokens") || !strings.Contains(stats, "tok/s") || !strings.Contains(context, "/ 512") {
		p.t.Errorf("answer %q, stats %q, context %q", answer, stats, context)
	}
	return answer
}

// stopAnswer stops an answer midway: it stays as far as it got, and the server's generation ends. It returns
// the stopped answer's text.
func stopAnswer(p page, ts *testServer) string {
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
		p.t.Errorf("after Stop: %q then %q", stopped, again)
	}
	for deadline := time.Now().Add(5 * time.Second); !ts.last().Cancelled && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if !ts.last().Cancelled {
		p.t.Errorf("the server's answer was not cut short by Stop")
	}
	return stopped
}

// reload reloads the page: the conversation is still there, as it was.
func reload(p page, answer, stopped string) {
	p.do(chromedp.Reload())
	p.until(`document.querySelectorAll("article.msg").length === 4`)
	if got := eval[string](p, `document.querySelector("article.msg.assistant .content").textContent`); got != answer {
		p.t.Errorf("after reload the first answer is %q, was %q", got, answer)
	}
	if got := eval[string](p, lastAnswer+`.querySelector(".content").textContent`); got != stopped {
		p.t.Errorf("after reload the stopped answer is %q, was %q", got, stopped)
	}
	titles := eval[[]string](p, `[...document.querySelectorAll(".conversation-title")].map(b => b.textContent)`)
	if len(titles) != 1 || titles[0] != "Once upon a time" {
		p.t.Errorf("conversations %q", titles)
	}
}

// switchModel picks the other model for a new conversation: the request and the answer's label name it.
func switchModel(p page, ts *testServer, model string) {
	p.do(chromedp.Click("#new-chat"), chromedp.Click("#toggle-settings"), chromedp.SendKeys("#max_tokens", "30"),
		chromedp.Click("#toggle-settings"))
	p.selectModel(model)
	p.send("The cat")
	p.answerDone()
	label := eval[string](p, lastAnswer+`.querySelector(".role").textContent`)
	if ts.last().Model != model || label != model {
		p.t.Errorf("after switching to %s: request for %s, label %q", model, ts.last().Model, label)
	}
}

// regenerateAndEdit asks for the last answer again, then edits the question and sends it: each time the request
// carries the conversation up to the question, and the conversation keeps one question and one answer.
func regenerateAndEdit(p page, ts *testServer) {
	n := ts.count()
	p.do(chromedp.Click(`article.msg.assistant .actions button[title="Answer again"]`))
	ts.waitCount(p.t, n+1)
	p.answerDone()
	if req := ts.last(); len(req.Messages) != 2 || req.Messages[1].Content != "The cat" ||
		eval[int](p, `document.querySelectorAll("article.msg").length`) != 2 {
		p.t.Errorf("regenerate: the request %+v", req)
	}
	p.do(chromedp.Click(`article.msg.user .actions button[title="Edit and send again"]`))
	eval[bool](p, `(document.querySelector("article.msg.user .edit-box").value = "The dog", true)`)
	p.do(chromedp.Click(`article.msg.user .edit-actions .primary`))
	ts.waitCount(p.t, n+2)
	p.answerDone()
	req := ts.last()
	user := eval[string](p, `document.querySelector("article.msg.user .content").textContent`)
	if len(req.Messages) != 2 || req.Messages[1].Content != "The dog" || user != "The dog" ||
		eval[int](p, `document.querySelectorAll("article.msg").length`) != 2 {
		p.t.Errorf("edit and send: the request %+v, the question shown %q", req, user)
	}
}

// scriptedAnswer: Markdown, code, reasoning (folded) and a tool call render; HTML in the answer stays text and
// nothing in it runs.
func scriptedAnswer(p page) {
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
			p.t.Errorf("scripted answer: %s = %#v, want %#v", k, checks[k], v)
		}
	}
	for k, sub := range map[string]string{"text": "<script>window.__pwned = 1</script>", "reasoning": "I will show <i>Go</i>.",
		"tool": `"city": "Paris"`} {
		if s, _ := checks[k].(string); !strings.Contains(s, sub) {
			p.t.Errorf("scripted answer: %s = %q, want it to contain %q", k, s, sub)
		}
	}
	if s, _ := checks["tool"].(string); !strings.Contains(s, "get_weather") {
		p.t.Errorf("tool call shown as %q", s)
	}
}

// phoneLayout takes the screenshots, and checks the layout at phone width: no sideways scrolling, the
// conversation list slid away behind a button, the composer on screen.
func phoneLayout(p page, shots string) {
	p.screenshot(shots, "desktop.png", 1280, 860)
	p.do(chromedp.EmulateViewport(390, 844))
	p.until(`document.getElementById("sidebar").getBoundingClientRect().right <= 0`) // it slides away
	p.screenshot(shots, "phone.png", 390, 844)
	layout := eval[map[string]any](p, `(() => {
		const r = (id) => document.getElementById(id).getBoundingClientRect();
		return {overflow: document.documentElement.scrollWidth > innerWidth, toggle: r("toggle-sidebar").width > 0,
			composer: r("composer").bottom <= innerHeight, send: r("send").right <= innerWidth};
	})()`)
	if layout["overflow"] != false || layout["toggle"] != true || layout["composer"] != true || layout["send"] != true {
		p.t.Errorf("phone layout: %v", layout)
	}
	p.do(chromedp.Click("#toggle-sidebar"))
	p.until(`document.getElementById("sidebar").getBoundingClientRect().left >= 0`)
	p.screenshot(shots, "phone-conversations.png", 390, 844)
	if n := eval[int](p, `document.querySelectorAll(".conversation").length`); n != 2 {
		p.t.Errorf("%d conversations listed, want 2", n)
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
