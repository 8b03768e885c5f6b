package metal

import (
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/backendtest"
)

// newTestBackend returns a backend on g for t, closed at cleanup.
func newTestBackend(t testing.TB, g gpu, opt Options) *Backend {
	t.Helper()
	b, err := newBackendOn(g, opt, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestConformance runs accel/backendtest — the suite the CPU and Vulkan backends pass — on the test device:
// Metal on macOS, the same backend over Vulkan elsewhere.
func TestConformance(t *testing.T) {
	g := testGPU(t)
	backendtest.Run(t, func(t *testing.T) accel.Backend { return newTestBackend(t, g, Options{}) })
}

// TestNoCopyChoice checks when weights are mapped in place.
func TestNoCopyChoice(t *testing.T) {
	apple := Info{Name: "Apple M2", UnifiedMemory: true, OS: "14.6.1"}
	vm14 := Info{Name: "Apple Paravirtual device", UnifiedMemory: true, OS: "14.7"}
	vm15 := Info{Name: "Apple Paravirtual device", UnifiedMemory: true, OS: "15.2"}
	amd := Info{Name: "AMD Radeon Pro 5500M", UnifiedMemory: false, OS: "13.6"}
	for _, c := range []struct {
		mode WeightMode
		info Info
		env  string
		want bool
	}{
		{WeightsAuto, apple, "", true}, {WeightsAuto, vm14, "", false}, {WeightsAuto, vm15, "", true},
		{WeightsAuto, amd, "", false}, {WeightsAuto, vm14, "1", true}, {WeightsAuto, apple, "0", false},
		{WeightsNoCopy, vm14, "0", true}, {WeightsNoCopy, amd, "1", false}, {WeightsCopy, apple, "1", false},
	} {
		if got := noCopy(c.mode, c.info, c.env); got != c.want {
			t.Errorf("mode %d on %s (macOS %s), %s=%q: no copy %v, want %v", c.mode, c.info.Name, c.info.OS, NoCopyEnv, c.env, got, c.want)
		}
	}
}

// TestBatchInvariance: every op gives a row the same bits alone and in batches of any size and composition
// (mat-vec and tiled products, backendtest.Invariance).
func TestBatchInvariance(t *testing.T) {
	g := testGPU(t)
	backendtest.Invariance(t, newTestBackend(t, g, Options{}))
}
