package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/forma-llm/forma/runtime"
)

// TestHealthWhileLoading: /health is 503 until the start-up models are loaded, then 200.
func TestHealthWhileLoading(t *testing.T) {
	release := make(chan struct{})
	cfg := Config{Models: []string{modelFile(t, stories)}, Logger: slog.New(slog.DiscardHandler),
		Load: func(path string, opt runtime.Options) (*runtime.Model, func() error, error) {
			<-release
			return oneThread(path, opt)
		}}
	s := New(cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	waitFor(t, "the listener", func() bool {
		resp, err := http.Get(url + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	})
	code, body := get(t, url+"/health")
	if code != 503 || !strings.Contains(body, "loading") {
		t.Errorf("while loading: %d %s", code, body)
	}
	close(release)
	waitFor(t, "ready", func() bool { c, _ := get(t, url+"/health"); return c == 200 })
	stop()
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// TestNativeEndpoints: tokenize and detokenize round-trip, apply-template renders what a chat request evaluates,
// metrics count requests and tokens, and every request has one log line with its id.
func TestNativeEndpoints(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(128)}, stories)
	code, _, body := post(t, ts.url+"/tokenize", `{"content":"Once upon a time","add_special":true,"with_pieces":true}`)
	var tk struct {
		Tokens []struct {
			ID    int32  `json:"id"`
			Piece string `json:"piece"`
		} `json:"tokens"`
	}
	decodeJSON(t, body, &tk)
	if code != 200 || len(tk.Tokens) < 3 || tk.Tokens[0].ID != 1 {
		t.Fatalf("tokenize: %d %s", code, body)
	}
	ids := make([]int32, len(tk.Tokens))
	for i, x := range tk.Tokens {
		ids[i] = x.ID
	}
	b, _ := json.Marshal(map[string]any{"tokens": ids[1:]})
	_, _, body = post(t, ts.url+"/detokenize", string(b))
	if !strings.Contains(body, `"content":"Once upon a time"`) {
		t.Errorf("detokenize: %s", body)
	}
	_, _, body = post(t, ts.url+"/apply-template", `{"messages":[{"role":"user","content":"Hi"}]}`)
	if want := `"prompt":"\u003c|im_start|\u003euser\nHi\u003c|im_end|\u003e\n\u003c|im_start|\u003eassistant\n"`; !strings.Contains(body, want) {
		t.Errorf("apply-template: %s, want %s", body, want)
	}
	_, hdr, _ := post(t, ts.url+"/v1/completions", `{"prompt":"Once","max_tokens":5}`, "X-Request-Id", "req-42")
	if hdr.Get("X-Request-Id") != "req-42" {
		t.Errorf("X-Request-Id %q", hdr.Get("X-Request-Id"))
	}
	_, metrics := get(t, ts.url+"/metrics")
	for _, want := range []string{`forma_requests_total{api="openai",endpoint="/v1/completions",code="200"} 1`,
		"forma_generated_tokens_total 5", "forma_queue_depth 0", "forma_active_sequences 0", "forma_models_loaded 1",
		`forma_time_to_first_token_seconds_bucket{le="+Inf"} 1`, `forma_time_per_output_token_seconds_bucket{le="+Inf"} 4`,
		"# TYPE forma_batch_tokens histogram", `forma_batch_tokens_count 5`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q:\n%s", want, metrics)
		}
	}
	var line string
	for _, l := range strings.Split(ts.logs.String(), "\n") {
		if strings.Contains(l, "id=req-42") {
			if line != "" {
				t.Errorf("two log lines for one request:\n%s\n%s", line, l)
			}
			line = l
		}
	}
	for _, want := range []string{"msg=request", "path=/v1/completions", "status=200", "model=" + stories, "generated=5", "stop=max-tokens"} {
		if !strings.Contains(line, want) {
			t.Errorf("log line %q lacks %q", line, want)
		}
	}
}
