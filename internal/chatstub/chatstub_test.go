package chatstub

import (
	"bufio"
	"encoding/json"
	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
)

func newTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	m, err := runtime.Load(filepath.Join(testdir.Sub(t, "models"), "stories260K-Q8_0.gguf"), runtime.Options{Backend: cpuBackend(t), CloseBackend: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	h, err := New([]Model{{Name: "stories", Model: m}}, runtime.SessionOptions{Ctx: 256})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	r, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Body.Close() })
	return r
}

func TestStream(t *testing.T) {
	srv := newTestServer(t)
	r := post(t, srv.URL, `{"model":"stories","stream":true,"stream_options":{"include_usage":true},"max_tokens":12,
		"temperature":0,"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Once upon a time"}]}`)
	if r.StatusCode != 200 || r.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, type %s", r.StatusCode, r.Header.Get("Content-Type"))
	}
	var text string
	var deltas, finishes int
	var usage map[string]int
	done := false
	sc := bufio.NewScanner(r.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			done = true
			break
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
				Finish *string `json:"finish_reason"`
			} `json:"choices"`
			Usage map[string]int `json:"usage"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if c.Usage != nil {
			usage = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != "" {
				text += ch.Delta.Content
				deltas++
			}
			if ch.Finish != nil {
				finishes++
				if *ch.Finish != "length" {
					t.Errorf("finish %q after max_tokens, want length", *ch.Finish)
				}
			}
		}
	}
	if !done || finishes != 1 || deltas < 5 || text == "" {
		t.Errorf("done %v, %d finishes, %d deltas, text %q", done, finishes, deltas, text)
	}
	if usage["completion_tokens"] != 12 || usage["prompt_tokens"] < 5 || usage["total_tokens"] != usage["prompt_tokens"]+12 {
		t.Errorf("usage %v", usage)
	}

	// The same request, whole and greedy: the same text.
	r = post(t, srv.URL, `{"model":"stories","max_tokens":12,"temperature":0,
		"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"Once upon a time"}]}]}`)
	var whole struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(r.Body).Decode(&whole); err != nil || len(whole.Choices) != 1 || whole.Choices[0].Message.Content != text {
		t.Errorf("non-streamed answer %+v (%v), want %q", whole, err, text)
	}
}

func TestErrors(t *testing.T) {
	srv := newTestServer(t)
	for _, c := range []struct {
		body string
		code int
		want string
	}{
		{`{"model":"other","messages":[{"role":"user","content":"hi"}]}`, 404, "not found"},
		{`{"model":"stories","messages":[{"role":"assistant","content":"hi"}]}`, 400, "end with a user message"},
		{`{"model":"stories","messages":[{"role":"tool","content":"x"},{"role":"user","content":"hi"}]}`, 400, "role"},
		{`{"model":"stories","max_tokens":0,"messages":[{"role":"user","content":"hi"}]}`, 400, "max_tokens"},
		{`{"model":"stories","temperature":-1,"messages":[{"role":"user","content":"hi"}]}`, 400, "temperature"},
		{`{"model":`, 400, "invalid JSON"},
	} {
		r := post(t, srv.URL, c.body)
		var e struct{ Error struct{ Message string } }
		json.NewDecoder(r.Body).Decode(&e)
		if r.StatusCode != c.code || !strings.Contains(e.Error.Message, c.want) {
			t.Errorf("%s: %d %q, want %d and %q", c.body, r.StatusCode, e.Error.Message, c.code, c.want)
		}
	}
	r, err := http.Get(srv.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var list struct {
		Data []struct {
			ID            string `json:"id"`
			ContextLength int    `json:"context_length"`
		}
	}
	if json.NewDecoder(r.Body).Decode(&list); len(list.Data) != 1 || list.Data[0].ID != "stories" || list.Data[0].ContextLength != 256 {
		t.Errorf("models %+v", list)
	}
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
