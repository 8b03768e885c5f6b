// Package testgen runs generation tests over the sessions of a testdata model: the constrained-generation
// tests of runtime/grammar and runtime/grammar/jsonschema share it.
package testgen

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
)

// Load loads a model of testdata's models folder on a one-thread CPU backend; the test's cleanup closes it.
func Load(t testing.TB, model string) *runtime.Model {
	t.Helper()
	be, err := cpu.New(cpu.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, err := runtime.Load(filepath.Join(testdir.Sub(t, "models"), model), runtime.Options{Backend: be, CloseBackend: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// OnSessions loads model (Load) and runs f on every item, the items shared by n sessions of the model (with
// a context of ctx tokens) that run concurrently, as a server's requests do.
func OnSessions[T any](t *testing.T, model string, n, ctx int, items []T, f func(s *runtime.Session, item T)) {
	m := Load(t, model)
	work := make(chan T)
	var wg sync.WaitGroup
	for range n {
		s, err := m.NewSession(runtime.SessionOptions{Ctx: ctx})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		wg.Go(func() {
			for item := range work {
				f(s, item)
			}
		})
	}
	for _, item := range items {
		work <- item
	}
	close(work)
	wg.Wait()
}
