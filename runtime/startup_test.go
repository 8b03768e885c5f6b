package runtime_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/chat"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// synthQwen3 returns a qwen3-0.6b Q8_0 synth model (~600 MB, the 151,936-token vocabulary), written once to the
// system's temporary folder and reused by later runs: writing it takes a while.
func synthQwen3(b *testing.B) string {
	path := filepath.Join(os.TempDir(), "forma-bench-qwen3-0.6b-q8_0-seed1.gguf")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp, err := os.CreateTemp(os.TempDir(), "forma-bench-*.gguf")
	if err != nil {
		b.Fatal(err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := synth.Write(tmp.Name(), synth.Options{Preset: "qwen3-0.6b", Type: quant.Q8_0, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkLoad measures start-up as forma run goes through it, the file in the page cache, on a 2-thread CPU
// backend: load-ms (open and check the file, the weights, the tokenizer, the chat template), ready-ms (load, the
// first session, the chat template rendered and the prompt tokenized: the moment the first prompt token goes to
// evaluation), first-pass-ms (ready and the prompt evaluated, which on the CPU backend includes mapping in the
// weights' pages), and heap-MiB, the Go heap the loaded model and its session hold. ready-cpu-ms is the CPU time
// (user and system, all threads) the process spent until ready: on a machine shared with other work, where the
// wall-clock figures stretch, it bounds what ready-ms would be on the same cores left to forma. The synth model
// is written to the system's temporary folder the first time (-short skips it).
func BenchmarkLoad(b *testing.B) {
	b.Run("qwen3-chat-151k", func(b *testing.B) {
		benchmarkLoad(b, filepath.Join(testdir.Sub(b, "models"), "rand-qwen3-chat-q8_0.gguf"))
	})
	b.Run("qwen3-0.6b-q8_0", func(b *testing.B) {
		if testing.Short() {
			b.Skip("short mode: writing a 600 MB model takes a while")
		}
		benchmarkLoad(b, synthQwen3(b))
	})
}

func benchmarkLoad(b *testing.B, path string) {
	if _, err := os.ReadFile(path); err != nil { // into the page cache
		b.Fatal(err)
	}
	var load, ready, readyCPU, first, heap float64
	for b.Loop() {
		before := heapAlloc()
		start, cpu0 := time.Now(), processCPU()
		be, err := cpu.New(cpu.Options{Threads: 2})
		if err != nil {
			b.Fatal(err)
		}
		m, err := runtime.Load(path, runtime.Options{Backend: be, CloseBackend: true, Parallel: 1})
		if err != nil {
			b.Fatal(err)
		}
		load += msSince(start)
		s, err := m.NewSession(runtime.SessionOptions{})
		if err != nil {
			b.Fatal(err)
		}
		tmpl, err := m.Template()
		if err != nil {
			b.Fatal(err)
		}
		text, err := tmpl.Render(chat.Conversation{Messages: []chat.Message{{Role: "user", Content: "Hi"}},
			AddGenerationPrompt: true})
		if err != nil {
			b.Fatal(err)
		}
		ids, err := m.Tokenizer.Encode(text, tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true})
		if err != nil {
			b.Fatal(err)
		}
		ready += msSince(start)
		readyCPU += float64((processCPU() - cpu0).Microseconds()) / 1e3
		if _, err := s.Eval(ids, false); err != nil {
			b.Fatal(err)
		}
		first += msSince(start)
		heap += float64(heapAlloc()-before) / (1 << 20)
		s.Close()
		m.Close()
	}
	n := float64(b.N)
	b.ReportMetric(load/n, "load-ms")
	b.ReportMetric(ready/n, "ready-ms")
	b.ReportMetric(readyCPU/n, "ready-cpu-ms")
	b.ReportMetric(first/n, "first-pass-ms")
	b.ReportMetric(heap/n, "heap-MiB")
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1e3 }
