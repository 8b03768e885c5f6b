package server

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/forma-llm/forma/accel/cpu"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/sample"
)

const (
	stories  = "stories260K-Q8_0"
	qwenChat = "rand-qwen3-chat-q8_0"
)

func modelFile(t testing.TB, name string) string {
	return filepath.Join(testdir.Sub(t, "models"), name+".gguf")
}

// testServer is a Server running on a random local port.
type testServer struct {
	*Server
	url    string
	cancel context.CancelFunc
	done   chan error
	logs   *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// oneThread loads models on a 1-thread CPU backend (tests run side by side).
func oneThread(path string, opt runtime.Options) (*runtime.Model, func() error, error) {
	be, err := cpu.New(cpu.Options{Threads: 1})
	if err != nil {
		return nil, nil, err
	}
	opt.Backend, opt.CloseBackend = be, true
	m, err := runtime.Load(path, opt)
	if err != nil {
		be.Close()
		return nil, nil, err
	}
	return m, m.Close, nil
}

// startServer runs a server for cfg (models given by name: files of the testdata) and waits until it is ready.
// The server is shut down at the end of the test, which fails if Run returns an error.
func startServer(t testing.TB, cfg Config, models ...string) *testServer {
	t.Helper()
	for _, m := range models {
		cfg.Models = append(cfg.Models, modelFile(t, m))
	}
	if cfg.Load == nil {
		cfg.Load = oneThread
	}
	logs := &syncBuffer{}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{Server: New(cfg), url: "http://" + ln.Addr().String(), cancel: cancel, done: make(chan error, 1), logs: logs}
	go func() { ts.done <- ts.Run(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-ts.done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := http.Get(ts.url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return ts
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not become ready: %v\n%s", err, logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// post sends a JSON body and returns the status, the headers and the body.
func post(t testing.TB, url, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

func get(t testing.TB, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func decodeJSON(t testing.TB, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%v in %q", err, s)
	}
}

// reference is what forma run --temp 0 prints for a prompt: the same steps (a fresh session, Chat, or Generate
// for --raw, greedy sampling from the model's defaults) on a model loaded alone.
func reference(t testing.TB, model string, ctx int, prompt string, raw bool, maxTokens int, stop ...string) string {
	t.Helper()
	m, err := runtime.Load(modelFile(t, model), runtime.Options{Backend: testCPU(t, 1), CloseBackend: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s, err := m.NewSession(runtime.SessionOptions{Ctx: ctx})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	so := m.Sampling()
	so.Temperature = 0
	opt := runtime.GenerateOptions{MaxTokens: maxTokens, Sampling: &so, Stop: stop}
	seq := s.Chat(context.Background(), prompt, opt)
	if raw {
		seq = s.Generate(context.Background(), prompt, opt)
	}
	var sb strings.Builder
	for tok, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		sb.WriteString(tok.Text)
	}
	return sb.String()
}

var _ = sample.Defaults

func runtime0(ctx int) runtime.SessionOptions { return runtime.SessionOptions{Ctx: ctx} }

// referenceTurns is forma run's interactive conversation: each prompt a turn of one session, greedy; it returns
// the last answer.
func referenceTurns(t testing.TB, model string, ctx, maxTokens int, turns ...string) string {
	t.Helper()
	return referenceChat(t, model, ctx, maxTokens, "", turns...)
}

// referenceChat is referenceTurns with a system message (forma run --system).
func referenceChat(t testing.TB, model string, ctx, maxTokens int, system string, turns ...string) string {
	t.Helper()
	m, err := runtime.Load(modelFile(t, model), runtime.Options{Backend: testCPU(t, 1), CloseBackend: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s, err := m.NewSession(runtime.SessionOptions{Ctx: ctx, System: system})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	so := m.Sampling()
	so.Temperature = 0
	for _, turn := range turns {
		for _, err := range s.Chat(context.Background(), turn, runtime.GenerateOptions{MaxTokens: maxTokens, Sampling: &so}) {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return s.Reply()
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// testCPU is a CPU backend of the given threads (0: the default), closed by the model given it.
func testCPU(tb testing.TB, threads int) *cpu.Backend {
	tb.Helper()
	be, err := cpu.New(cpu.Options{Threads: threads})
	if err != nil {
		tb.Fatal(err)
	}
	return be
}
