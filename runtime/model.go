package runtime

import (
	"errors"
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/model"
)

// Model is a loaded model: the mapped file, the backend holding its weights, and its architecture. It is
// read-only and shared by any number of sessions.
type Model struct {
	File    *gguf.File
	Backend accel.Backend
	Arch    model.Model

	compileOpts accel.CompileOptions
	ownBackend  bool
}

// Options configure loading.
type Options struct {
	// Backend runs the model; nil means a new CPU backend, closed with the model.
	Backend accel.Backend
	// Debug is passed to every compiled program (see accel.CompileOptions).
	Debug func(n *accel.Node, values []float32)
}

// Load opens a GGUF file and uploads its weights.
func Load(path string, opt Options) (*Model, error) {
	if opt.Backend == nil {
		return nil, errors.New("runtime: no backend given")
	}
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	arch, err := model.Load(f, opt.Backend, model.LoadOptions{})
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Model{File: f, Backend: opt.Backend, Arch: arch, compileOpts: accel.CompileOptions{Debug: opt.Debug}}, nil
}

// Close releases the file mapping. The backend, which holds references into it, must be closed first.
func (m *Model) Close() error {
	if m == nil {
		return nil
	}
	if err := m.File.Close(); err != nil {
		return fmt.Errorf("runtime: %w", err)
	}
	return nil
}
