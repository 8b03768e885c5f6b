package server

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
)

// loadRequest is one greedy streamed request of the load test, through one of the APIs.
type loadRequest struct {
	api    int // 0 OpenAI chat (openai-go), 1 Anthropic (anthropic-sdk-go), 2 OpenAI completions, 3 Ollama chat, 4 Ollama generate
	prompt string
	tokens int
}

var loadPrompts = []string{"Once upon a time", "Lily had a ball", "The cat sat", "One day, Tom", "The sun was hot",
	"A little bird", "She said hello", "The dog ran", "Mom and dad", "They went to the park", "Ben saw a car"}

// send runs one request and returns the streamed text.
func (q loadRequest) send(ts *testServer, oc openai.Client, ac anthropic.Client) (string, error) {
	ctx := context.Background()
	switch q.api {
	case 0:
		s := oc.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: stories, Temperature: openai.Float(0),
			MaxTokens: openai.Int(int64(q.tokens)), Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(q.prompt)}})
		var sb strings.Builder
		for s.Next() {
			for _, c := range s.Current().Choices {
				sb.WriteString(c.Delta.Content)
			}
		}
		return sb.String(), s.Err()
	case 1:
		s := ac.Messages.NewStreaming(ctx, anthropic.MessageNewParams{Model: stories, MaxTokens: int64(q.tokens),
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(q.prompt))}}, greedyOpt)
		var m anthropic.Message
		for s.Next() {
			if err := m.Accumulate(s.Current()); err != nil {
				return "", err
			}
		}
		text, _ := antText(&m)
		return text, s.Err()
	}
	path, body := "/v1/completions", fmt.Sprintf(`{"prompt":%q,"max_tokens":%d,"temperature":0,"stream":true}`, q.prompt, q.tokens)
	switch q.api {
	case 3:
		path, body = "/api/chat", fmt.Sprintf(`{"messages":[{"role":"user","content":%q}],"options":{"num_predict":%d,"temperature":0}}`, q.prompt, q.tokens)
	case 4:
		path, body = "/api/generate", fmt.Sprintf(`{"prompt":%q,"raw":true,"options":{"num_predict":%d,"temperature":0}}`, q.prompt, q.tokens)
	}
	resp, err := http.Post(ts.url+path, "application/json", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("%s: status %d", path, resp.StatusCode)
	}
	var sb strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if q.api == 2 {
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok || data == "[DONE]" {
				continue
			}
			var c oaiCompletionResponse
			if err := jsonUnmarshal(data, &c); err != nil {
				return "", err
			}
			for _, ch := range c.Choices {
				sb.WriteString(ch.Text)
			}
			continue
		}
		var l ollamaLine
		if err := jsonUnmarshal(line, &l); err != nil {
			return "", err
		}
		if l.Error != "" {
			return "", fmt.Errorf("%s", l.Error)
		}
		if l.Message != nil {
			sb.WriteString(l.Message.Content)
		}
		sb.WriteString(l.Response)
	}
	return sb.String(), sc.Err()
}

// TestLoad: 32 concurrent streaming clients × 4 requests each, mixed APIs: no errors, every greedy answer equal
// to the same request sent alone, goroutines back to the baseline after; then no heap growth over 1,000 requests.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("the load test runs without -short")
	}
	ts := startServer(t, Config{Session: runtime0(128), Parallel: 8, MaxQueue: 64}, stories)
	oc, ac := openaiClient(ts), anthropicClient(ts)
	const clients, perClient = 32, 4
	reqs := make([]loadRequest, clients*perClient)
	for i := range reqs {
		reqs[i] = loadRequest{api: i % 5, prompt: loadPrompts[i%len(loadPrompts)], tokens: 8 + i%17}
	}
	alone := map[loadRequest]string{}
	for _, q := range reqs {
		if _, ok := alone[q]; ok {
			continue
		}
		text, err := q.send(ts, oc, ac)
		if err != nil {
			t.Fatalf("%+v alone: %v", q, err)
		}
		alone[q] = text
	}
	http.DefaultClient.CloseIdleConnections()
	base := goruntime.NumGoroutine()

	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, len(reqs))
	for c := range clients {
		wg.Go(func() {
			for k := range perClient {
				q := reqs[c*perClient+k]
				text, err := q.send(ts, oc, ac)
				switch {
				case err != nil:
					errs <- fmt.Errorf("%+v: %v", q, err)
				case text != alone[q]:
					errs <- fmt.Errorf("%+v under load: %q, alone: %q", q, text, alone[q])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	t.Logf("%d requests from %d clients in %v", len(reqs), clients, time.Since(start))
	for err := range errs {
		t.Error(err)
	}
	http.DefaultClient.CloseIdleConnections()
	waitGoroutines(t, base)

	// Heap: after a warm-up, 1,000 more requests (8 at a time) leave the live heap where it was.
	heap := func() uint64 {
		goruntime.GC()
		var ms goruntime.MemStats
		goruntime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	small := make([]loadRequest, 10) // short answers: the check is for what each request leaves behind
	for i := range small {
		small[i] = loadRequest{api: i % 5, prompt: loadPrompts[i], tokens: 3}
	}
	run := func(n int) {
		var wg sync.WaitGroup
		next := make(chan int)
		for range 8 {
			wg.Go(func() {
				for i := range next {
					if _, err := small[i%len(small)].send(ts, oc, ac); err != nil {
						t.Error(err)
					}
				}
			})
		}
		for i := range n {
			next <- i
		}
		close(next)
		wg.Wait()
		http.DefaultClient.CloseIdleConnections()
	}
	start = time.Now()
	run(200)
	before := heap()
	run(1000)
	after := heap()
	t.Logf("live heap: %d KiB after 200 requests, %d KiB after 1,000 more (%v)", before>>10, after>>10, time.Since(start))
	if after > before+1<<20 {
		t.Errorf("the live heap grew from %d KiB to %d KiB over 1,000 requests", before>>10, after>>10)
	}
	waitGoroutines(t, base)
}

// waitGoroutines waits until the goroutines are back to base (a few may linger while connections close).
func waitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for goruntime.NumGoroutine() > base {
		http.DefaultClient.CloseIdleConnections() // connections go back to the pool as their bodies close
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before the load:\n%s", goruntime.NumGoroutine(), base, buf[:goruntime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
