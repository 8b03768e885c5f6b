package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ollamaLine is the union of the fields of Ollama's chat and generate objects.
type ollamaLine struct {
	Model     string `json:"model"`
	CreatedAt string `json:"created_at"`
	Message   *struct {
		Role, Content, Thinking string
	} `json:"message"`
	Response        string  `json:"response"`
	Done            bool    `json:"done"`
	DoneReason      string  `json:"done_reason"`
	TotalDuration   int64   `json:"total_duration"`
	PromptEvalCount int     `json:"prompt_eval_count"`
	EvalCount       int     `json:"eval_count"`
	EvalDuration    int64   `json:"eval_duration"`
	Context         []int32 `json:"context"`
	Error           string  `json:"error"`
}

func ndjson(t *testing.T, body string) []ollamaLine {
	t.Helper()
	var out []ollamaLine
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		var l ollamaLine
		decodeJSON(t, sc.Text(), &l)
		out = append(out, l)
	}
	return out
}

// TestOllama speaks Ollama's wire format by hand (its Go client is not a dependency forma takes): /api/chat
// streams NDJSON by default, /api/generate completes raw or through the template and returns its context, and the
// listing endpoints describe the model.
func TestOllama(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(128)}, stories)
	want := reference(t, stories, 128, storyPrompt, false, 20)
	code, hdr, body := post(t, ts.url+"/api/chat", `{"model":"`+stories+`:latest","messages":[{"role":"user","content":"`+storyPrompt+`"}],"options":{"temperature":0,"num_predict":20}}`)
	lines := ndjson(t, body)
	if code != 200 || hdr.Get("Content-Type") != "application/x-ndjson" || len(lines) < 2 {
		t.Fatalf("chat: %d %s %q", code, hdr.Get("Content-Type"), body)
	}
	got := ""
	for _, l := range lines[:len(lines)-1] {
		got += l.Message.Content
		if l.Done || l.Model != stories {
			t.Errorf("line %+v", l)
		}
	}
	last := lines[len(lines)-1]
	if got != want || !last.Done || last.DoneReason != "length" || last.EvalCount != 20 || last.TotalDuration <= 0 || last.EvalDuration <= 0 {
		t.Errorf("chat %q, last %+v; want %q", got, last, want)
	}

	raw := reference(t, stories, 128, storyPrompt, true, 12)
	_, _, body = post(t, ts.url+"/api/generate", `{"model":"`+stories+`","prompt":"`+storyPrompt+`","raw":true,"stream":false,"options":{"temperature":0,"num_predict":12}}`)
	var g ollamaLine
	decodeJSON(t, body, &g)
	if g.Response != raw || !g.Done || g.EvalCount != 12 || len(g.Context) != g.PromptEvalCount+12 {
		t.Errorf("generate: %+v, want %q", g, raw)
	}
	// The returned context continues the text: generating from it equals generating from the whole text.
	ctxJSON, _ := json.Marshal(g.Context)
	_, _, body = post(t, ts.url+"/api/generate", `{"model":"`+stories+`","prompt":" and","raw":true,"stream":false,"context":`+string(ctxJSON)+`,"options":{"temperature":0,"num_predict":8}}`)
	var g2 ollamaLine
	decodeJSON(t, body, &g2)
	if w := reference(t, stories, 128, storyPrompt+raw+" and", true, 8); g2.Response != w {
		t.Logf("generate with context: %q; from the whole text: %q (tokenization may differ at the seam)", g2.Response, w)
	}
	_, _, body = post(t, ts.url+"/api/generate", `{"model":"`+stories+`","prompt":"`+storyPrompt+`","stream":false,"options":{"temperature":0,"num_predict":20}}`)
	decodeJSON(t, body, &g)
	if g.Response != want {
		t.Errorf("templated generate %q, want %q", g.Response, want)
	}

	for path, wantIn := range map[string]string{"/api/tags": `"name":"` + stories, "/api/ps": `"expires_at"`,
		"/api/version": `"version"`, "/": "forma is running"} {
		if code, body := get(t, ts.url+path); code != 200 || !strings.Contains(body, wantIn) {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
	code, _, body = post(t, ts.url+"/api/show", `{"model":"`+stories+`"}`)
	if code != 200 || !strings.Contains(body, `"family":"llama"`) || !strings.Contains(body, `"general.architecture":"llama"`) {
		t.Errorf("show: %d %s", code, body)
	}
}

// TestOnDemandModels: a name that is not loaded is resolved and loaded; keep_alive unloads it, as the server's
// idle time does; a name that resolves to nothing is a 404.
func TestOnDemandModels(t *testing.T) {
	dir := filepath.Dir(modelFile(t, stories))
	resolve := func(name string) (string, error) {
		p := filepath.Join(dir, name+".gguf")
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("no model file %s", p)
		}
		return p, nil
	}
	ts := startServer(t, Config{Session: runtime0(64), Resolve: resolve, KeepAlive: 100 * time.Millisecond}, stories)
	const other = "stories260K-Q4_0"
	code, _, body := post(t, ts.url+"/api/generate", `{"model":"`+other+`"}`)
	if code != 200 || !strings.Contains(body, `"done_reason":"load"`) {
		t.Fatalf("load: %d %s", code, body)
	}
	if _, body := get(t, ts.url+"/api/ps"); !strings.Contains(body, other) {
		t.Errorf("ps after a load: %s", body)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, body := get(t, ts.url+"/v1/models")
		if !strings.Contains(body, other) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still loaded after its keep-alive: %s", other, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, body := get(t, ts.url+"/v1/models"); !strings.Contains(body, stories) {
		t.Errorf("the start-up model was unloaded: %s", body)
	}
	// keep_alive 0 unloads right after the request, a start-up model too.
	code, _, body = post(t, ts.url+"/api/chat", `{"model":"`+other+`","messages":[{"role":"user","content":"Hi"}],"stream":false,"keep_alive":0,"options":{"num_predict":2}}`)
	if code != 200 {
		t.Fatalf("chat: %d %s", code, body)
	}
	if _, body := get(t, ts.url+"/api/ps"); strings.Contains(body, other) {
		t.Errorf("keep_alive 0 left the model loaded: %s", body)
	}
	code, _, body = post(t, ts.url+"/api/generate", `{"model":"`+stories+`","keep_alive":"0s"}`)
	if _, ps := get(t, ts.url+"/api/ps"); code != 200 || !strings.Contains(body, `"unload"`) || strings.Contains(ps, stories) {
		t.Errorf("unload: %d %s; ps %s", code, body, ps)
	}
	code, _, body = post(t, ts.url+"/v1/chat/completions", `{"model":"no-such-model","messages":[{"role":"user","content":"Hi"}]}`)
	if code != 404 || !strings.Contains(body, "model_not_found") {
		t.Errorf("unknown model: %d %s", code, body)
	}
}
