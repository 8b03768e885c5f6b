package server

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

var tokenizerOpts = tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true}

// benchModel is the model of the HTTP benchmarks: $FORMA_BENCH_MODEL (a GGUF file), else stories260K, on which
// a token costs so little that the figure is the server's overhead alone.
func benchModel(b *testing.B) string {
	if p := os.Getenv("FORMA_BENCH_MODEL"); p != "" {
		return p
	}
	return modelFile(b, stories)
}

const benchTokens = 32

// BenchmarkHTTPOverhead compares the time per generated token through the server (a streamed greedy completion,
// one client or 8) with generating the same tokens on sessions directly. Each op is one token; the ratio of the
// http and direct figures is the server's cost.
func BenchmarkHTTPOverhead(b *testing.B) {
	path := benchModel(b)
	// Room for every client's sequence in one pass, as forma bench --parallel 8 gives it.
	m, err := runtime.Load(path, runtime.Options{Backend: testCPU(b, 0), CloseBackend: true, Parallel: 8})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	prompt, _ := m.Tokenizer.Encode("Once upon a time", tokenizerOpts)
	for _, clients := range []int{1, 8} {
		b.Run(fmt.Sprintf("direct/clients=%d", clients), func(b *testing.B) {
			sessions := make([]*runtime.Session, clients)
			for i := range sessions {
				if sessions[i], err = m.NewSession(runtime.SessionOptions{Ctx: 256}); err != nil {
					b.Fatal(err)
				}
				defer sessions[i].Close()
			}
			so := m.Sampling()
			so.Temperature = 0
			opt := runtime.GenerateOptions{MaxTokens: benchTokens, Sampling: &so, IgnoreEOG: true}
			runParallel(b, clients, func(i int) error {
				for _, err := range sessions[i].GenerateTokens(context.Background(), prompt, opt) {
					if err != nil {
						return err
					}
				}
				return nil
			})
		})
		b.Run(fmt.Sprintf("http/clients=%d", clients), func(b *testing.B) {
			ts := startServer(b, Config{Models: []string{path}, Session: runtime.SessionOptions{Ctx: 256}, Parallel: clients,
				Load: func(string, runtime.Options) (*runtime.Model, func() error, error) {
					return m, func() error { return nil }, nil
				}})
			body := fmt.Sprintf(`{"prompt":"Once upon a time","max_tokens":%d,"temperature":0,"stream":true,"ignore_eos":true}`, benchTokens)
			runParallel(b, clients, func(int) error {
				resp, err := http.Post(ts.url+"/v1/completions", "application/json", strings.NewReader(body))
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
				}
				if resp.StatusCode != 200 {
					return fmt.Errorf("status %d", resp.StatusCode)
				}
				return sc.Err()
			})
		})
	}
}

// runParallel runs b.N tokens' worth of generations of benchTokens tokens on clients goroutines and reports the
// time per token and the aggregate tokens per second.
func runParallel(b *testing.B, clients int, gen func(i int) error) {
	gens := max(1, b.N/benchTokens)
	b.ResetTimer()
	var wg sync.WaitGroup
	next := make(chan struct{})
	for i := range clients {
		wg.Go(func() {
			for range next {
				if err := gen(i); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for range gens {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	b.StopTimer()
	tokens := float64(gens * benchTokens)
	b.ReportMetric(b.Elapsed().Seconds()*1e9/tokens, "ns/token")
	b.ReportMetric(tokens/b.Elapsed().Seconds(), "tokens/s")
}
