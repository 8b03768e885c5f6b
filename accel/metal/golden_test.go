package metal

import (
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/internal/golden"
	"github.com/forma-llm/forma/internal/gputest"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
)

// The acceptance criteria the CPU and Vulkan backends are held to (runtime/golden_test.go measures them).
var (
	f16Cache        = golden.Criteria{MaxKL: 1e-2, TieGap: 0.2}
	knownDeviations = map[string]golden.Criteria{"stories260K-Q5_1": {MaxKL: 2e-3, TieGap: 0.1}}
)

// TestGolden runs the golden cases of testdata through runtime (weights mapped from the file, in place where
// the type allows) under the criteria the CPU backend is held to. The shaders compute the CPU backend's
// results bit for bit, so a case may fail here only where it fails on the CPU too. On Metal every case runs
// with an F32 and an F16 cache (batch cases only for F16); elsewhere, on Vulkan's software device, one batch
// case per model with the F32 cache (TestViews and the Vulkan backend's own golden test cover more there).
func TestGolden(t *testing.T) {
	dir := testdir.Dir(t)
	names, err := golden.Cases(dir)
	if err != nil || len(names) == 0 {
		t.Fatalf("no golden cases in %s: %v", dir, err)
	}
	g := testGPU(t)
	full := goruntime.GOOS == "darwin" && !testing.Short()
	for _, kv := range []struct {
		name string
		typ  runtime.KVType
	}{{"kv=f32", runtime.KVF32}, {"kv=f16", runtime.KVF16}} {
		for _, name := range names {
			t.Run(kv.name+"/"+name, func(t *testing.T) {
				seq := strings.HasSuffix(name, ".seq")
				if kv.typ == runtime.KVF16 && seq {
					t.Skip("token-by-token cases run with the F32 cache only")
				}
				if !full && (kv.typ == runtime.KVF16 || seq || strings.HasSuffix(name, ".long")) {
					t.Skip("on Vulkan's software device: the short batch cases with the F32 cache")
				}
				crit := golden.Strict
				if kv.typ == runtime.KVF16 {
					crit = f16Cache
				} else if d, ok := knownDeviations[strings.Split(name, ".")[0]]; ok {
					crit = d
				}
				c, err := golden.Load(dir, name)
				if err != nil {
					t.Fatal(err)
				}
				gputest.Golden(t, c, newTestBackend(t, g, Options{}), kv.typ, crit)
			})
		}
	}
}

// TestGoldenSynth runs the synth golden cases (mixtures of experts and the dense families, models that the test
// writes again; internal/golden/testdata/synth) under the criteria the CPU backend is held to. On
// Metal every case runs with an F32 cache and the batch cases with an F16 cache too; elsewhere, on Vulkan's
// software device, the batch cases with the F32 cache (with -short, one per architecture). As TestGolden, a case may fail only where the CPU fails
// it too.
func TestGoldenSynth(t *testing.T) {
	dir := golden.SynthDir()
	names, err := golden.Cases(dir)
	if err != nil || len(names) == 0 {
		t.Fatalf("no golden cases in %s: %v", dir, err)
	}
	g := testGPU(t)
	full := goruntime.GOOS == "darwin" && !testing.Short()
	models := t.TempDir()
	for _, kv := range []struct {
		name string
		typ  runtime.KVType
		crit golden.Criteria
	}{{"kv=f32", runtime.KVF32, golden.Strict}, {"kv=f16", runtime.KVF16, golden.SynthF16Cache}} {
		for _, name := range names {
			t.Run(kv.name+"/"+name, func(t *testing.T) {
				seq := strings.HasSuffix(name, ".seq")
				if seq && kv.typ == runtime.KVF16 || !full && (seq || kv.typ == runtime.KVF16) {
					t.Skip("token-by-token cases with the F32 cache only, and on Vulkan's software device the batch cases with it")
				}
				if testing.Short() && !strings.Contains(name, "q8_0") && !strings.Contains(name, "mxfp4") {
					t.Skip("short mode: one case per architecture")
				}
				crit := kv.crit
				if d, ok := golden.SynthDeviations[strings.Split(name, ".")[0]]; ok && kv.typ == runtime.KVF32 {
					crit = d
				}
				c, err := golden.Load(dir, name)
				if err != nil {
					t.Fatal(err)
				}
				if err := golden.SynthModel(c, models); err != nil {
					t.Fatal(err)
				}
				gputest.Golden(t, c, newTestBackend(t, g, Options{}), kv.typ, crit)
			})
		}
	}
}

// TestViews loads models whose weights are mapped from the file (stories260K in F32 and F16, a random Q4_K
// llama) with the device's largest buffer cut to a few pages, so the file takes many overlapping no-copy views
// and tensors too large for one are copied split by rows, and checks the logits are the CPU backend's, bit for
// bit.
func TestViews(t *testing.T) {
	dir := testdir.Dir(t)
	g := testGPU(t)
	for _, c := range []struct {
		model     string
		maxBuffer int64
		views     int // at least
	}{{"stories260K-F32.gguf", 96 << 10, 8}, {"stories260K-F16.gguf", 64 << 10, 8}, {"rand-llama-q4_k.gguf", 1 << 20, 1}} {
		t.Run(c.model, func(t *testing.T) {
			path := filepath.Join(dir, "models", c.model)
			prompt := []int32{1, 403, 407, 261, 112, 30, 7}
			want := evalLogits(t, path, nil, prompt)
			small := &limitedGPU{gpu: g, maxBuffer: c.maxBuffer}
			be := newTestBackend(t, small, Options{Weights: WeightsNoCopy})
			got := evalLogits(t, path, be, prompt)
			if small.wrapped == 0 {
				t.Fatal("no weight was mapped in place")
			}
			be.mu.Lock()
			views, copied := 0, 0
			for _, m := range be.mappings {
				views += len(m.views)
			}
			for w := range be.weights {
				if w.copied {
					copied++
				}
			}
			be.mu.Unlock()
			t.Logf("%d views, %d weights copied", views, copied)
			if views < c.views || copied == 0 {
				t.Errorf("%d views of the file and %d weights copied with buffers of at most %d bytes", views, copied, c.maxBuffer)
			}
			for i := range want {
				if want[i] != got[i] {
					t.Fatalf("logit %d: %g, the CPU backend %g", i, got[i], want[i])
				}
			}
		})
	}
}

// evalLogits runs prompt through the model on be (the CPU backend if nil) and returns every row's logits.
func evalLogits(t *testing.T, path string, be *Backend, prompt []int32) []float32 {
	t.Helper()
	opt := runtime.Options{Backend: be}
	if be == nil {
		cb, err := cpu.New(cpu.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opt.Backend, opt.CloseBackend = cb, true
	}
	m, err := runtime.Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	s, err := m.NewSession(runtime.SessionOptions{Ctx: 32, KV: runtime.KVF32})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.Eval(prompt, true)
	if err != nil {
		t.Fatal(err)
	}
	return append([]float32(nil), out...)
}

// limitedGPU reports a smaller largest buffer than its device's and counts no-copy buffers.
type limitedGPU struct {
	gpu
	maxBuffer int64
	wrapped   int
}

func (l *limitedGPU) info() Info {
	inf := l.gpu.info()
	inf.MaxBuffer = l.maxBuffer
	return inf
}

func (l *limitedGPU) wrap(name string, mem []byte) (buffer, error) {
	if int64(len(mem)) > l.maxBuffer {
		panic("a view larger than the largest buffer")
	}
	l.wrapped++
	return l.gpu.wrap(name, mem)
}
