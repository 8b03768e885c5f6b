//go:build darwin

package metal

import (
	"errors"
	"testing"
)

// testGPU opens the Metal device for t (closed at cleanup), or skips when there is none. Set MTL_DEBUG_LAYER=1
// and MTL_SHADER_VALIDATION=1 to have Metal check every call and every shader access (the macOS workflow does).
func testGPU(t testing.TB) gpu {
	t.Helper()
	g, err := openGPU()
	if errors.Is(err, ErrNoDevice) {
		t.Skipf("no Metal device: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.close() })
	inf := g.info()
	t.Logf("%s: macOS %s, families %v, unified %v, SIMD width %d (reductions %v)", inf.Name, inf.OS, inf.Families,
		inf.UnifiedMemory, inf.ThreadsPerSIMD, inf.Simdgroup)
	return g
}
