package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// slowBackend makes every forward pass take at least delay and counts the passes, so tests can hold sequences
// busy and see when generation stops.
type slowBackend struct {
	accel.Backend
	delay  time.Duration
	passes atomic.Int64
}

type slowProgram struct {
	accel.Program
	b *slowBackend
}

func (b *slowBackend) Compile(g *accel.Graph, opt accel.CompileOptions) (accel.Program, error) {
	p, err := b.Backend.Compile(g, opt)
	if err != nil {
		return nil, err
	}
	return &slowProgram{p, b}, nil
}

func (p *slowProgram) Run() error {
	time.Sleep(p.b.delay)
	p.b.passes.Add(1)
	return p.Program.Run()
}

// slowLoader loads models on a slowBackend.
func slowLoader(t testing.TB, delay time.Duration) (*slowBackend, func(string, runtime.Options) (*runtime.Model, func() error, error)) {
	sb := &slowBackend{delay: delay}
	return sb, func(path string, opt runtime.Options) (*runtime.Model, func() error, error) {
		be, err := cpu.New(cpu.Options{Threads: 1})
		if err != nil {
			return nil, nil, err
		}
		sb.Backend = be
		opt.Backend = sb
		m, err := runtime.Load(path, opt)
		if err != nil {
			be.Close()
			return nil, nil, err
		}
		return m, func() error { m.Close(); return be.Close() }, nil
	}
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (ts *testServer) engine(t testing.TB) *engine {
	list := ts.reg.list()
	if len(list) == 0 {
		t.Fatal("no model loaded")
	}
	return list[0].eng
}

// TestDisconnectDuringPrefill: a client that leaves while its prompt is being evaluated frees its sequence within
// one forward pass; the evaluation stops part-way.
func TestDisconnectDuringPrefill(t *testing.T) {
	sb, load := slowLoader(t, 20*time.Millisecond)
	ts := startServer(t, Config{Session: runtime.SessionOptions{Ctx: 128, Batch: 4}, Load: load}, stories)
	eng := ts.engine(t)
	prompt := strings.Repeat("Lily had a ball. ", 6) // about 50 tokens: 12 passes of 4
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.url+"/v1/completions",
		strings.NewReader(`{"prompt":"`+prompt+`","max_tokens":4}`))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	before := sb.passes.Load()
	waitFor(t, "prefill to start", func() bool { return sb.passes.Load() >= before+3 })
	cancel()
	at := sb.passes.Load()
	waitFor(t, "the sequence to be freed", func() bool { a, _ := eng.busy(); return a == 0 })
	<-done
	after := sb.passes.Load() - at
	if after > 2 {
		t.Errorf("%d passes ran after the client left (want at most the one in flight, and one for scheduling slack)", after)
	}
	eng.mu.Lock()
	pos := eng.idle[0].Pos()
	eng.mu.Unlock()
	ids, _ := eng.m.Tokenizer.Encode(prompt, tokenizer.EncodeOptions{AddSpecial: true})
	if pos >= len(ids) {
		t.Errorf("the session holds %d tokens: the prompt of %d was evaluated to its end", pos, len(ids))
	}
	waitFor(t, "the log line", func() bool { return strings.Contains(ts.logs.String(), "stop=cancelled") })
}

// TestQueueFull: with every sequence busy and the queue full, a request gets 503 with Retry-After; queued
// requests run once a sequence is free.
func TestQueueFull(t *testing.T) {
	_, load := slowLoader(t, 10*time.Millisecond)
	ts := startServer(t, Config{Session: runtime0(64), Parallel: 1, MaxQueue: 1, Load: load}, stories)
	eng := ts.engine(t)
	body := `{"prompt":"Once","max_tokens":20,"temperature":0}`
	codes := make(chan int, 2)
	for range 2 {
		go func() {
			code, _, _ := post(t, ts.url+"/v1/completions", body)
			codes <- code
		}()
	}
	waitFor(t, "one running and one queued", func() bool { a, q := eng.busy(); return a == 1 && q == 1 })
	code, hdr, resp := post(t, ts.url+"/v1/completions", body)
	if code != 503 || hdr.Get("Retry-After") == "" || !strings.Contains(resp, `"server_busy"`) {
		t.Errorf("third request: %d Retry-After %q %s", code, hdr.Get("Retry-After"), resp)
	}
	code, hdr, resp = post(t, ts.url+"/v1/messages", `{"max_tokens":2,"messages":[{"role":"user","content":"x"}]}`)
	if code != 503 || hdr.Get("Retry-After") == "" || !strings.Contains(resp, `"overloaded_error"`) {
		t.Errorf("Anthropic request: %d %s", code, resp)
	}
	if a, b := <-codes, <-codes; a != 200 || b != 200 {
		t.Errorf("the running and queued requests: %d, %d", a, b)
	}
	_, metrics := get(t, ts.url+"/metrics")
	if !strings.Contains(metrics, `forma_requests_total{api="openai",endpoint="/v1/completions",code="503"} 1`) {
		t.Errorf("metrics do not count the 503:\n%s", metrics)
	}
}

// TestLimits: 413 for a body over the limit, 401 without the API key (Bearer and x-api-key accepted, /health
// open), CORS only for the allowed origin, JSON 404/405 for unknown paths and methods.
func TestLimits(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(64), MaxBody: 1024, APIKeys: []string{"k1", "secret"},
		CORS: []string{"https://app.example"}}, stories)
	auth := []string{"Authorization", "Bearer secret"}
	big := `{"prompt":"` + strings.Repeat("a", 2000) + `"}`
	for _, path := range []string{"/v1/completions", "/v1/messages", "/api/generate", "/tokenize"} {
		code, _, body := post(t, ts.url+path, big, auth...)
		if code != 413 || !strings.HasPrefix(body, "{") {
			t.Errorf("%s with a 2 KB body: %d %s", path, code, body)
		}
	}
	for _, h := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"x-api-key", "secre"}} {
		code, _, body := post(t, ts.url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"max_tokens":1}`, h...)
		if code != 401 || !strings.Contains(body, "invalid_api_key") {
			t.Errorf("headers %q: %d %s", h, code, body)
		}
	}
	if code, _, body := post(t, ts.url+"/v1/messages", `{}`); code != 401 || !strings.Contains(body, "authentication_error") {
		t.Errorf("Anthropic without a key: %d %s", code, body)
	}
	for _, h := range [][]string{auth, {"x-api-key", "k1"}, {"Authorization", "bearer k1"}} {
		if code, _, body := post(t, ts.url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"max_tokens":1}`, h...); code != 200 {
			t.Errorf("headers %q: %d %s", h, code, body)
		}
	}
	if code, _ := get(t, ts.url+"/health"); code != 200 {
		t.Errorf("/health without a key: %d", code)
	}
	pre := func(origin string) http.Header {
		req, _ := http.NewRequest("OPTIONS", ts.url+"/v1/chat/completions", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header
	}
	if h := pre("https://app.example"); h.Get("Access-Control-Allow-Origin") != "https://app.example" || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("preflight from the allowed origin: %v", h)
	}
	if h := pre("https://evil.example"); h.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from another origin: %v", h)
	}
	if code, _, body := post(t, ts.url+"/v1/nothing", `{}`, auth...); code != 404 || !strings.HasPrefix(body, `{"error"`) {
		t.Errorf("unknown path: %d %s", code, body)
	}
	if code, body := get(t, ts.url+"/v1/chat/completions"); code != 401 && (code != 405 || !strings.HasPrefix(body, `{"error"`)) {
		t.Errorf("GET on a POST endpoint: %d %s", code, body)
	}
}

// TestBadRequests: malformed JSON, wrong types, unknown fields, values out of range, a prompt over the context and
// fields that cannot be honoured (a schema keyword the engine cannot enforce among them) are 400s naming the
// field, in each API's error shape.
func TestBadRequests(t *testing.T) {
	ts := startServer(t, Config{Session: runtime0(64)}, stories)
	msg := `"messages":[{"role":"user","content":"Hi"}]`
	long := strings.Repeat("Lily had a ball. ", 10)
	for _, tc := range []struct{ path, body, param, code string }{
		{"/v1/chat/completions", `{"messages":[`, "", "malformed JSON"},
		{"/v1/chat/completions", ``, "", "empty"},
		{"/v1/chat/completions", `{` + msg + `,"temperature":"hot"}`, "temperature", "expected a number"},
		{"/v1/chat/completions", `{` + msg + `,"temperature":3}`, "temperature", "out of range"},
		{"/v1/chat/completions", `{` + msg + `,"top_p":-1}`, "top_p", "out of range"},
		{"/v1/chat/completions", `{` + msg + `,"max_tokens":0}`, "max_tokens", "at least 1"},
		{"/v1/chat/completions", `{` + msg + `,"n":0}`, "n", "out of range"},
		{"/v1/chat/completions", `{` + msg + `,"n":9}`, "n", "--parallel"},
		{"/v1/chat/completions", `{` + msg + `,"top_logprobs":30,"logprobs":true}`, "top_logprobs", "out of range"},
		{"/v1/chat/completions", `{` + msg + `,"logit_bias":{"99999":1}}`, "logit_bias", "vocabulary"},
		{"/v1/chat/completions", `{` + msg + `,"logit_bias":{"5":101}}`, "logit_bias", "out of range"},
		{"/v1/chat/completions", `{` + msg + `,"frobnicate":1}`, "frobnicate", "unknown field"},
		{"/v1/chat/completions", `{"messages":[{"role":"wizard","content":"x"}]}`, "messages[0].role", "unknown role"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":7}]}`, "messages.content", "expected a string"},
		{"/v1/chat/completions", `{` + msg + `,"tools":[{"type":"function","function":{"name":"f"}}]}`, "tools", "no tool-call syntax"},
		{"/v1/chat/completions", `{` + msg + `,"tools":[{"type":"code_interpreter"}]}`, "tools", "not supported"},
		{"/v1/chat/completions", `{` + msg + `,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","not":{}}}}]}`, "tools[0].function.parameters", "not"},
		{"/v1/chat/completions", `{` + msg + `,"tool_choice":"required"}`, "tool_choice", "no tools"},
		{"/v1/chat/completions", `{` + msg + `,"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"g"}}}`, "tool_choice", "not among the tools"},
		{"/v1/chat/completions", `{` + msg + `,"tools":[{"type":"function","function":{"name":"f"}}],"response_format":{"type":"json_object"}}`, "response_format", "cannot be combined with tools"},
		{"/v1/chat/completions", `{` + msg + `,"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"array","uniqueItems":true}}}}`, "response_format.json_schema.schema", "uniqueItems"},
		{"/v1/chat/completions", `{` + msg + `,"response_format":{"type":"xml"}}`, "response_format.type", "unknown value"},
		{"/v1/chat/completions", `{` + msg + `,"response_format":{"type":"json_schema"}}`, "response_format.json_schema", "required"},
		{"/v1/chat/completions", `{` + msg + `,"functions":[{"name":"f"}]}`, "functions", "use tools"},
		{"/v1/chat/completions", `{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"[1]"}}]}]}`, "messages[0].tool_calls[0].function.arguments", "JSON object"},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"` + long + `"}]}`, "", "context_length_exceeded"},
		{"/v1/completions", `{"prompt":["a","b"]}`, "prompt", "one request per prompt"},
		{"/v1/completions", `{"prompt":"a","suffix":"b"}`, "suffix", "not supported"},
		{"/v1/completions", `{"prompt":"a","logprobs":9}`, "logprobs", "out of range"},
		{"/v1/completions", `{"prompt":[1,2,99999]}`, "prompt", "vocabulary"},
		{"/v1/responses", `{"input":"x","previous_response_id":"resp_1"}`, "previous_response_id", "not supported"},
		{"/v1/responses", `{"input":"x","text":{"format":{"type":"json_schema","name":"x","schema":{"type":"number","multipleOf":3}}}}`, "text.format.schema", "multipleOf"},
		{"/v1/responses", `{"input":[{"type":"web_search_call","id":"w"}]}`, "input[0]", "not supported"},
		{"/v1/responses", `{"input":"x","tools":[{"type":"web_search"}]}`, "tools[0]", "not supported"},
		{"/v1/messages", `{` + msg + `}`, "max_tokens", "required"},
		{"/v1/messages", `{` + msg + `,"max_tokens":5,"temperature":1.5}`, "temperature", "out of range"},
		{"/v1/messages", `{` + msg + `,"max_tokens":5,"tools":[{"name":"f","input_schema":{}}]}`, "tools", "no tool-call syntax"},
		{"/v1/messages", `{` + msg + `,"max_tokens":5,"tools":[{"type":"bash_20250124","name":"bash"}]}`, "tools[0]", "not supported"},
		{"/v1/messages", `{` + msg + `,"max_tokens":5,"tools":[{"name":"f","input_schema":{}}],"tool_choice":{"type":"sometimes"}}`, "tool_choice.type", "unknown value"},
		{"/v1/messages", `{"max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{}}]}]}`, "", "not supported"},
		{"/v1/messages", `{` + msg + `,"max_tokens":5,"output_config":{"format":{"type":"json_schema","schema":{"type":"string","pattern":"a(?=b)"}}}}`, "output_config.format.schema", "pattern"},
		{"/v1/messages", `{` + msg + `,"max_tokens":5,"output_config":{"format":{"type":"json_schema"}}}`, "output_config.format.schema", "required"},
		{"/api/chat", `{` + msg + `,"format":"yaml"}`, "format", "unknown value"},
		{"/api/chat", `{` + msg + `,"tools":[{"type":"function","function":{"name":"f"}}],"format":"json"}`, "format", "cannot be combined"},
		{"/api/chat", `{` + msg + `,"options":{"temperature":"x"}}`, "options.temperature", "expected a number"},
		{"/api/chat", `{` + msg + `,"options":{"warp":9}}`, "options.warp", "unknown option"},
		{"/api/chat", `{` + msg + `,"options":{"mirostat":2}}`, "options.mirostat", "not supported"},
		{"/api/generate", `{"prompt":"x","format":{"type":"object","propertyNames":{"maxLength":3}}}`, "format", "propertyNames"},
		{"/api/generate", `{"prompt":"x","tools":[{"type":"function","function":{"name":"f"}}]}`, "tools", "use /api/chat"},
		{"/api/generate", `{"prompt":"x","keep_alive":"soon"}`, "keep_alive", "not a duration"},
		{"/tokenize", `{"content":5}`, "content", "expected a string"},
		{"/detokenize", `{"tokens":[-1]}`, "tokens", "vocabulary"},
	} {
		code, _, body := post(t, ts.url+tc.path, tc.body)
		if code != 400 || !strings.Contains(body, tc.code) || (tc.param != "" && !strings.Contains(body, tc.param)) {
			t.Errorf("%s %s: %d %s; want 400 naming %q (%s)", tc.path, tc.body, code, body, tc.param, tc.code)
			continue
		}
		var shape map[string]any
		decodeJSON(t, body, &shape)
		switch {
		case strings.HasPrefix(tc.path, "/v1/messages"):
			if shape["type"] != "error" {
				t.Errorf("%s: not Anthropic's error shape: %s", tc.path, body)
			}
		case strings.HasPrefix(tc.path, "/api/"):
			if _, ok := shape["error"].(string); !ok {
				t.Errorf("%s: not Ollama's error shape: %s", tc.path, body)
			}
		default:
			if e, ok := shape["error"].(map[string]any); !ok || e["type"] != "invalid_request_error" {
				t.Errorf("%s: not OpenAI's error shape: %s", tc.path, body)
			}
		}
	}
}

// TestGracefulShutdown: when Run's context ends, a stream already open finishes whole within the grace period
// and new connections are refused; a stream longer than the grace period is cancelled; Run returns nil.
func TestGracefulShutdown(t *testing.T) {
	for _, tc := range []struct {
		name      string
		grace     time.Duration
		tokens    int
		wantWhole bool
	}{{"finishes", 10 * time.Second, 30, true}, {"cancelled", 150 * time.Millisecond, 120, false}} {
		t.Run(tc.name, func(t *testing.T) {
			_, load := slowLoader(t, 10*time.Millisecond)
			cfg := Config{Models: []string{modelFile(t, stories)}, Load: load, Session: runtime0(128), Grace: tc.grace,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			s := New(cfg)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			url := "http://" + ln.Addr().String()
			ctx, stop := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx, ln) }()
			waitFor(t, "ready", func() bool { return s.ready.Load() })
			resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(fmt.Sprintf(
				`{"messages":[{"role":"user","content":"Once"}],"max_tokens":%d,"temperature":0,"stream":true}`, tc.tokens)))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			r := bufio.NewReader(resp.Body)
			if _, err := r.ReadString('\n'); err != nil { // the first event: the stream is open
				t.Fatal(err)
			}
			start := time.Now()
			stop()
			waitFor(t, "the listener to close", func() bool {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err == nil {
					c.Close()
				}
				return err != nil
			})
			rest, _ := io.ReadAll(r)
			whole := strings.Contains(string(rest), "data: [DONE]")
			if whole != tc.wantWhole {
				t.Errorf("stream ended whole: %v, want %v; it sent %d bytes after the shutdown began", whole, tc.wantWhole, len(rest))
			}
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Run did not return")
			}
			if !tc.wantWhole && time.Since(start) > tc.grace+5*time.Second {
				t.Errorf("shutdown took %v with a grace period of %v", time.Since(start), tc.grace)
			}
		})
	}
}
