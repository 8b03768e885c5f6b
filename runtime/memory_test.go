package runtime_test

import (
	"path/filepath"
	goruntime "runtime"
	"sync"
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
	var models []*runtime.Model
	for _, path := range []string{filepath.Join(dir, "models", "rand-qwen3-chat-q8_0.gguf"), tiny} {
		be, err := cpu.New(cpu.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := runtime.Load(path, runtime.Options{Backend: be, Parallel: 16})
		if err != nil {
			t.Fatal(err)
		}
		defer be.Close()
		defer m.Close()
		models = append(models, m)
	}
	after := heapAlloc()
	t.Logf("HeapAlloc %.1f MiB before, %.1f MiB with both models loaded", float64(before)/(1<<20), float64(after)/(1<<20))
	if after > heapLimit {
		t.Errorf("HeapAlloc %d MiB with the models loaded, limit %d MiB", after>>20, heapLimit>>20)
	}
	// 16 sequences active on the 1.1B model: each has its prompt in the cache and is between decode steps.
	tinyModel := models[1]
	var wg sync.WaitGroup
	var active sync.WaitGroup
	release := make(chan struct{})
	active.Add(16)
	for i := range 16 {
		wg.Go(func() {
			s, err := tinyModel.NewSession(runtime.SessionOptions{Ctx: 64})
			if err != nil {
				t.Error(err)
				active.Done()
				return
			}
			defer s.Close()
			prompt := []int32{1, int32(100 + i), 200, 300, int32(400 + i), 500, 600, 700}
			if _, err := s.Eval(prompt, false); err != nil {
				t.Error(err)
			}
			if _, err := s.Eval([]int32{int32(i + 5)}, false); err != nil {
				t.Error(err)
			}
			active.Done()
			<-release
		})
	}
	active.Wait()
	during := heapAlloc()
	st := tinyModel.EngineStats(runtime.KVF16)
	close(release)
	wg.Wait()
	t.Logf("HeapAlloc %.1f MiB with 16 sequences active (%d passes for %d tokens, %d pages held)",
		float64(during)/(1<<20), st.Passes, st.Tokens, st.PagesHeld)
	if during > heapLimit {
		t.Errorf("HeapAlloc %d MiB with 16 sequences active, limit %d MiB", during>>20, heapLimit>>20)
	}
}

// TestParallelDecodeAllocatesNothing: four sessions decoding together allocate nothing per token, in the engine
// or in their own loops, in a round of steps that compiled no new pass size (which rounds do depends on timing).
func TestParallelDecodeAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts need a normal build")
	}
	dir := testdir.Dir(t)
	be, err := cpu.New(cpu.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, err := runtime.Load(filepath.Join(dir, "models", "stories260K-Q8_0.gguf"), runtime.Options{Backend: be, Parallel: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	defer m.Close()
	const n, steps = 4, 30
	sessions := make([]*runtime.Session, n)
	for i := range sessions {
		if sessions[i], err = m.NewSession(runtime.SessionOptions{Ctx: 128}); err != nil {
			t.Fatal(err)
		}
		defer sessions[i].Close()
	}
	round := func() (mallocs uint64, compiled bool) {
		progs := m.EngineStats(runtime.KVF16).Programs
		var done sync.WaitGroup
		start := make(chan struct{})
		done.Add(n)
		for i, s := range sessions {
			s.Truncate(0)
			go func() {
				defer done.Done()
				tok := []int32{int32(1 + i)}
				<-start
				for range steps {
					if _, err := s.Eval(tok, false); err != nil {
						t.Error(err)
					}
				}
			}()
		}
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		close(start)
		done.Wait()
		goruntime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs, m.EngineStats(runtime.KVF16).Programs != progs
	}
	for try := 0; try < 20; try++ {
		mallocs, compiled := round()
		if compiled {
			continue
		}
		// A heap profile of such a round (MemProfileRate 1) shows no allocation by the engine or the sessions;
		// MemStats also counts a few of the Go runtime's own for the round's goroutines and timers.
		t.Logf("%d allocations in %d decode steps of %d sessions", mallocs, steps, n)
		if mallocs >= steps {
			t.Errorf("%d allocations in %d decode steps of %d sessions", mallocs, steps, n)
		}
		return
	}
	t.Error("every round compiled a new pass size")
}
