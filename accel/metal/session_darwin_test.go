//go:build darwin

package metal

import (
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
)

// TestSession runs stories260K through runtime on Metal: the Go heap stays small with the model loaded
// (weights live in the file mapping or Metal buffers), and a decode step — encoding a command buffer, running
// it, reading the logits — allocates nothing once compiled.
func TestSession(t *testing.T) {
	path := filepath.Join(testdir.Dir(t), "models", "stories260K-Q8_0.gguf")
	be := newTestBackend(t, testGPU(t), Options{})
	m, err := runtime.Load(path, runtime.Options{Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s, err := m.NewSession(runtime.SessionOptions{Ctx: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Eval([]int32{1, 403, 407, 261}, false); err != nil {
		t.Fatal(err)
	}
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	if ms.HeapAlloc > 64<<20 {
		t.Errorf("Go heap %d MiB with the model loaded", ms.HeapAlloc>>20)
	}
	tok := []int32{5}
	step := func() {
		if err := s.Truncate(4); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Eval(tok, false); err != nil {
			t.Fatal(err)
		}
	}
	step()
	if n := testing.AllocsPerRun(10, step); n != 0 {
		t.Errorf("a decode step allocates %v times", n)
	}
}
