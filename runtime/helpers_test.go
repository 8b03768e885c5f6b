package runtime_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/sample"
)

// newCPU returns a CPU backend of the given threads (the model given it closes it).
func newCPU(t testing.TB, threads int) *cpu.Backend {
	t.Helper()
	be, err := cpu.New(cpu.Options{Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	return be
}

// modelPath returns the path of a reference model, skipping when the testdata is absent; an absolute path (a
// model a test wrote) is itself.
func modelPath(t testing.TB, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(testdir.Sub(t, "models"), name)
}

// load loads a reference model on a 1-thread CPU backend owned by the model.
func load(t testing.TB, name string) *runtime.Model {
	t.Helper()
	m, err := runtime.Load(modelPath(t, name), runtime.Options{Backend: newCPU(t, 1), CloseBackend: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	})
	return m
}

// loadWith loads a reference model on a 1-thread CPU backend with the given engine options.
func loadWith(t testing.TB, name string, opt runtime.Options) *runtime.Model {
	t.Helper()
	opt.Backend, opt.CloseBackend = newCPU(t, 1), true
	m, err := runtime.Load(modelPath(t, name), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	})
	return m
}

func session(t testing.TB, m *runtime.Model, opt runtime.SessionOptions) *runtime.Session {
	t.Helper()
	s, err := m.NewSession(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func greedy() *sample.Options {
	o := sample.Defaults()
	o.Temperature = 0
	return &o
}

func seeded(seed uint64) *sample.Options {
	o := sample.Defaults()
	o.Seed = seed
	return &o
}

// collect runs a generation to its end and returns the ids, the text and the error that ended it.
func collect(seq func(func(runtime.Token, error) bool)) (ids []int32, text string, err error) {
	for tok, e := range seq {
		if e != nil {
			return ids, text, e
		}
		if tok.ID >= 0 {
			ids = append(ids, tok.ID)
		}
		text += tok.Text
	}
	return ids, text, nil
}

func generate(t testing.TB, s *runtime.Session, prompt string, opt runtime.GenerateOptions) ([]int32, string) {
	t.Helper()
	ids, text, err := collect(s.Generate(context.Background(), prompt, opt))
	if err != nil {
		t.Fatal(err)
	}
	return ids, text
}

func equalIDs(a, b []int32) bool { return slices.Equal(a, b) }
