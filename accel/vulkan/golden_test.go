package vulkan_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel/vulkan"
	"github.com/forma-llm/forma/internal/golden"
	"github.com/forma-llm/forma/internal/gputest"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
)

// The acceptance criteria, as runtime's TestGolden holds the CPU backend to them: golden.Strict with an F32 KV
// cache, and a looser bound with an F16 cache, a different computation from the reference's F32 cache (see
// runtime/golden_test.go for the measurements behind it).
var f16Cache = golden.Criteria{MaxKL: 1e-2, TieGap: 0.2}

// TestGolden runs every case of testdata/golden and testdata/extra/golden on the Vulkan backend with an F32 and
// an F16 KV cache (batch cases only for F16; with -short, batch cases and the F32 cache only) under the criteria
// the CPU backend is held to. The shaders compute what the CPU backend computes, bit for bit, so a case may fail
// on Vulkan only where it fails on the CPU too: a failing case is run on the CPU, and fails the test unless the
// CPU fails it as well. One validated device serves every case, and any validation message fails the test.
func TestGolden(t *testing.T) {
	dir := testdir.Dir(t)
	refs, err := golden.AllCases(dir)
	if err != nil || len(refs) == 0 {
		t.Fatalf("no golden cases in %s: %v", dir, err)
	}
	dev := goldenDevice(t)
	for _, kv := range []struct {
		name string
		typ  runtime.KVType
	}{{"kv=f32", runtime.KVF32}, {"kv=f16", runtime.KVF16}} {
		for _, ref := range refs {
			name := ref.Name
			t.Run(kv.name+"/"+ref.Label(), func(t *testing.T) {
				seq := strings.HasSuffix(name, ".seq")
				if kv.typ == runtime.KVF16 && seq {
					t.Skip("token-by-token cases run with the F32 cache only (lavapipe is slow)")
				}
				if testing.Short() && (kv.typ == runtime.KVF16 || seq) {
					t.Skip("short mode: batch cases with the F32 cache only")
				}
				crit := golden.Strict
				if kv.typ == runtime.KVF16 {
					crit = f16Cache
				}
				c, err := ref.Load()
				if err != nil {
					t.Fatal(err)
				}
				gputest.Golden(t, c, goldenBackend(t, dev), kv.typ, crit)
			})
		}
	}
}

// TestGoldenSynth runs the synth golden cases (mixtures of experts and the dense families, models that the test
// writes again; internal/golden/testdata/synth) on the Vulkan backend under the criteria runtime's
// TestGoldenSynth holds the CPU backend to: batch cases with an F32 and an F16 cache, token-by-token ones with
// the F32 cache (not with -short). As TestGolden, a case may fail only where the CPU fails it too.
func TestGoldenSynth(t *testing.T) {
	dir := golden.SynthDir()
	names, err := golden.Cases(dir)
	if err != nil || len(names) == 0 {
		t.Fatalf("no golden cases in %s: %v", dir, err)
	}
	dev := goldenDevice(t)
	models := t.TempDir()
	for _, kv := range []struct {
		name string
		typ  runtime.KVType
		crit golden.Criteria
	}{{"kv=f32", runtime.KVF32, golden.Strict}, {"kv=f16", runtime.KVF16, golden.SynthF16Cache}} {
		for _, name := range names {
			t.Run(kv.name+"/"+name, func(t *testing.T) {
				seq := strings.HasSuffix(name, ".seq")
				if seq && (kv.typ == runtime.KVF16 || testing.Short()) {
					t.Skip("token-by-token cases run with the F32 cache only, and not in short mode")
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
				gputest.Golden(t, c, goldenBackend(t, dev), kv.typ, crit)
			})
		}
	}
}

// goldenDevice opens a validated device (unvalidated without the layer) for the test and fails it on any
// validation message; it skips without Vulkan.
func goldenDevice(t *testing.T) *vulkan.Device {
	t.Helper()
	dev, err := vulkan.Open(vulkan.Options{Validation: true})
	if errors.Is(err, vulkan.ErrNoValidationLayer) {
		t.Logf("running without validation: %v", err)
		dev, err = vulkan.Open(vulkan.Options{})
	}
	if errors.Is(err, vulkan.ErrNoLoader) || errors.Is(err, vulkan.ErrNoDevice) {
		t.Skipf("no Vulkan here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		dev.Close()
		for _, m := range dev.Messages() {
			t.Errorf("validation: %v", m)
		}
	})
	return dev
}

// goldenBackend returns a backend on dev, closed (and its error reported) when t ends.
func goldenBackend(t *testing.T, dev *vulkan.Device) *vulkan.Backend {
	be, err := vulkan.NewBackendOn(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := be.Close(); err != nil {
			t.Error(err)
		}
	})
	return be
}

// TestSession runs stories260K through runtime on the Vulkan backend (gputest.Session): the Go heap stays small
// with the model loaded (weights live in device memory), and a decode step allocates nothing once compiled.
func TestSession(t *testing.T) {
	gputest.Session(t, goldenBackend(t, goldenDevice(t)))
}
