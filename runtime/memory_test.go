package runtime_test

import (
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
)

const heapLimit = 64 << 20

func heapAlloc() uint64 {
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestHeapWithModelsLoaded loads the largest testdata model (the 151k-token chat model) and a TinyLlama-shaped
// 1.1B Q4_0 model and checks the Go heap stays under 64 MiB: weights stay in the file mappings.
func TestHeapWithModelsLoaded(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: writing a 1.1B-parameter model takes a while")
	}
	dir := testdir.Dir(t)
	tiny := filepath.Join(t.TempDir(), "tinyllama-q4_0.gguf")
	if err := synth.Write(tiny, synth.Options{Preset: "tinyllama-1.1b", Type: quant.Q4_0, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	before := heapAlloc()
	for _, path := range []string{filepath.Join(dir, "models", "rand-qwen3-chat-q8_0.gguf"), tiny} {
		be, err := cpu.New(cpu.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := runtime.Load(path, runtime.Options{Backend: be})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		defer be.Close()
	}
	after := heapAlloc()
	t.Logf("HeapAlloc %.1f MiB before, %.1f MiB with both models loaded", float64(before)/(1<<20), float64(after)/(1<<20))
	if after > heapLimit {
		t.Errorf("HeapAlloc %d MiB with the models loaded, limit %d MiB", after>>20, heapLimit>>20)
	}
}

// TestDecodeAllocatesNothing checks that a decode step (one token through the whole model) allocates nothing on
// the Go heap once its program is compiled.
func TestDecodeAllocatesNothing(t *testing.T) {
	s := stories(t)
	tok := []int32{1}
	if _, err := s.Eval(tok, false); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(20, func() {
		if s.Pos() >= s.Ctx()-1 {
			s.Truncate(1)
		}
		if _, err := s.Eval(tok, false); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("a decode step allocates %v times", allocs)
	}
}

func stories(tb testing.TB) *runtime.Session {
	dir := testdir.Dir(tb)
	be, err := cpu.New(cpu.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	m, err := runtime.Load(filepath.Join(dir, "models", "stories260K-Q8_0.gguf"), runtime.Options{Backend: be})
	if err != nil {
		tb.Fatal(err)
	}
	s, err := m.NewSession(runtime.SessionOptions{Ctx: 128})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close(); m.Close(); be.Close() })
	return s
}

// BenchmarkDecode is one decode step on stories260K Q8_0 (0 allocs/op).
func BenchmarkDecode(b *testing.B) {
	s := stories(b)
	tok := []int32{1}
	if _, err := s.Eval(tok, false); err != nil { // compile the one-token program outside the timing
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if s.Pos() >= s.Ctx()-1 {
			s.Truncate(0)
		}
		if _, err := s.Eval(tok, false); err != nil {
			b.Fatal(err)
		}
	}
}
