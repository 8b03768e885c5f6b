package runtime

import (
	"path/filepath"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/testdir"
)

func TestKVTypeDType(t *testing.T) {
	for _, tc := range []struct {
		kv   KVType
		want accel.DType
		ok   bool
	}{
		{KVDefault, accel.F16, true},
		{KVF16, accel.F16, true},
		{KVF32, accel.F32, true},
		{KVQ8_0, quant.Q8_0, true},
		{KVQ4_0, quant.Q4_0, true},
		{KVQ4_0 + 1, 0, false},
	} {
		got, err := tc.kv.DType()
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("%v.DType() = %v, %v; want %v (ok %v)", tc.kv, got, err, tc.want, tc.ok)
		}
	}
}

// TestSessionKVType checks that the cache a session allocates has the type asked for: accel.F32 is DType's
// zero value, so an F32 request once silently became the F16 default.
func TestSessionKVType(t *testing.T) {
	path := filepath.Join(testdir.Sub(t, "models"), "stories260K-F32.gguf")
	be, err := cpu.New(cpu.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	m, err := Load(path, Options{Backend: be})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, tc := range []struct {
		kv   KVType
		want accel.DType
	}{{KVDefault, accel.F16}, {KVF16, accel.F16}, {KVF32, accel.F32}} {
		s, err := m.NewSession(SessionOptions{Ctx: 8, KV: tc.kv})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range s.eng.bufs {
			if got := b.Desc().Type; got != tc.want {
				t.Errorf("KV %v: cache %s has type %v, want %v", tc.kv, b.Desc().Name, got, tc.want)
			}
		}
		s.Close()
	}
	if _, err := m.NewSession(SessionOptions{Ctx: 8, KV: KVF32 + 1}); err == nil {
		t.Error("an unknown KV type was accepted")
	}
}
