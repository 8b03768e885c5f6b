package runtime

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/internal/testdir"
)

// writeKVFile writes a GGUF v3 file with the given metadata (uint32, float32 or string values) and no tensors.
func writeKVFile(t *testing.T, kvs [][2]any) string {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { w(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	w(uint32(3))
	w(uint64(0))
	w(uint64(len(kvs)))
	for _, kv := range kvs {
		str(kv[0].(string))
		switch v := kv[1].(type) {
		case uint32:
			w(uint32(4))
			w(v)
		case float32:
			w(uint32(6))
			w(math.Float32bits(v))
		case string:
			w(uint32(8))
			str(v)
		}
	}
	for b.Len()%gguf.DefaultAlignment != 0 {
		b.WriteByte(0)
	}
	p := filepath.Join(t.TempDir(), "kv.gguf")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadSampling(t *testing.T) {
	p := writeKVFile(t, [][2]any{
		{"general.architecture", "llama"},
		{"general.sampling.top_k", uint32(20)},
		{"general.sampling.top_p", float32(0.8)},
		{"general.sampling.min_p", float32(0)},
		{"general.sampling.temp", float32(0.6)},
		{"general.sampling.penalty_last_n", uint32(128)},
		{"general.sampling.penalty_repeat", float32(1.05)},
		{"general.sampling.mirostat", uint32(2)},
		{"general.sampling.mirostat_tau", float32(6)},
		{"general.sampling.xtc_probability", float32(0.5)},
	})
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, err := readSampling(f)
	if err != nil {
		t.Fatal(err)
	}
	if o.TopK != 20 || o.TopP != 0.8 || o.MinP != 0 || o.Temperature != 0.6 || o.RepeatLastN != 128 ||
		o.RepeatPenalty != 1.05 || o.TypicalP != 1 || o.Mirostat != 2 || o.MirostatTau != 6 || o.XTCProbability != 0.5 {
		t.Errorf("sampling from the file: %+v", o)
	}

	bad := writeKVFile(t, [][2]any{{"general.sampling.top_p", float32(2)}})
	f2, err := gguf.Open(bad)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	if _, err := readSampling(f2); err == nil || !strings.Contains(err.Error(), "top_p 2 must be") {
		t.Errorf("top_p = 2 gave %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	notGGUF := filepath.Join(dir, "x.gguf")
	os.WriteFile(notGGUF, []byte("this is not a model file, just some text"), 0o644)
	noArch := writeKVFile(t, [][2]any{{"general.name", "x"}})
	be, err := cpu.New(cpu.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing.gguf"), "no such file"},
		{notGGUF, "magic"},
		{noArch, "general.architecture"},
	} {
		m, err := Load(tc.path, Options{Backend: be})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%s) = %v; want an error containing %q", filepath.Base(tc.path), err, tc.want)
		}
		if m != nil {
			t.Errorf("Load(%s) returned a model with its error", tc.path)
		}
	}
}

// TestLoadOwnsBackend: a model given CloseBackend reports upload progress and closes the backend with itself.
func TestLoadOwnsBackend(t *testing.T) {
	path := filepath.Join(testdir.Sub(t, "models"), "stories260K-Q8_0.gguf")
	var calls int
	var last, total int64
	cb, err := cpu.New(cpu.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(path, Options{Backend: cb, CloseBackend: true, Progress: func(done, tot int64) {
		if done < last {
			t.Errorf("progress went back from %d to %d", last, done)
		}
		calls++
		last, total = done, tot
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 3 || last != total || total == 0 {
		t.Errorf("progress: %d calls, last %d of %d", calls, last, total)
	}
	if m.Backend == nil {
		t.Fatal("no backend")
	}
	if m.Tokenizer.Len() != m.HParams().Vocab {
		t.Errorf("tokenizer %d, vocab %d", m.Tokenizer.Len(), m.HParams().Vocab)
	}
	if _, err := m.Template(); err != nil {
		t.Errorf("template: %v", err)
	}
	be := m.Backend
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := be.NewBuffer(m.kvDescForTest()); err == nil {
		t.Error("the model's backend is still open after Close")
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
