package runtime_test

import (
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/internal/golden"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
)

// TestGolden runs every case of testdata/golden on the CPU backend with an F32 and an F16 KV cache and holds
// forma to the acceptance rule: the same argmax per row unless the reference's top two are within 1e-3, KL
// under 1e-3 (F32 cache) or 5e-3 (F16), and identical greedy tokens up to a near-tie.
func TestGolden(t *testing.T) {
	dir := testdir.Dir(t)
	names, err := golden.Cases(dir)
	if err != nil || len(names) == 0 {
		t.Fatalf("no golden cases in %s: %v", dir, err)
	}
	for _, kv := range []struct {
		name  string
		dt    runtime.KVType
		maxKL float64
	}{{"kv=f32", runtime.KVF32, 1e-3}, {"kv=f16", runtime.KVF16, 5e-3}} {
		for _, name := range names {
			t.Run(kv.name+"/"+name, func(t *testing.T) {
				if testing.Short() && kv.dt == runtime.KVF16 && strings.Contains(name, "seq") {
					t.Skip("short mode: batch cases only for the F16 cache")
				}
				c, err := golden.Load(dir, name)
				if err != nil {
					t.Fatal(err)
				}
				be, err := cpu.New(cpu.Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer be.Close()
				r, err := golden.Run(c, be, kv.dt, kv.maxKL)
				if err != nil {
					t.Fatal(err)
				}
				t.Log(r.Summary())
				for _, f := range r.Failures {
					t.Error(f)
				}
			})
		}
	}
}
