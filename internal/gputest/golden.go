package gputest

import (
	"path/filepath"
	goruntime "runtime"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/internal/golden"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
)

// Golden runs golden case c on be with a KV cache of type kv under crit and logs the report. The shaders compute
// the CPU backend's results bit for bit, so a case may fail on a GPU only where it fails on the CPU too: a
// failing case is run on the CPU, and fails t unless the CPU fails it as well.
func Golden(t *testing.T, c *golden.Case, be accel.Backend, kv runtime.KVType, crit golden.Criteria) {
	t.Helper()
	r, err := golden.Run(c, be, kv, crit)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r.Summary())
	if len(r.Failures) == 0 {
		return
	}
	cb, err := cpu.New(cpu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	cr, err := golden.Run(c, cb, kv, crit)
	if err != nil {
		t.Fatal(err)
	}
	if len(cr.Failures) > 0 {
		t.Logf("fails on the CPU as well (%s)", cr.Summary())
		return
	}
	for _, f := range r.Failures {
		t.Errorf("%s (the CPU passes)", f)
	}
}

// Session runs stories260K (testdata's Q8_0) through runtime on be: the Go heap stays small with the model
// loaded (weights live in device memory or the file mapping), and a decode step allocates nothing once
// compiled.
func Session(t *testing.T, be accel.Backend) {
	path := filepath.Join(testdir.Dir(t), "models", "stories260K-Q8_0.gguf")
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
