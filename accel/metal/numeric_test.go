package metal

import (
	"testing"

	"github.com/forma-llm/forma/internal/gputest"
)

// numericKernel runs numeric_check on g (runNumeric, the probes' runner).
func numericKernel(g gpu) gputest.Kernel {
	return func(t *testing.T, fn uint32, a, b, c []float32) []float32 {
		got, err := runNumeric(g, fn, a, b, c)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
}

// TestNumerics compares numeric.glsl's functions, through the MSL translation and the compile options, with Go
// (gputest.Numerics).
func TestNumerics(t *testing.T) {
	gputest.Numerics(t, numericKernel(testGPU(t)))
}

// TestProbeFMA checks the backend's probe against the device's fma() on random arguments (gputest.ProbeFMA).
func TestProbeFMA(t *testing.T) {
	g := testGPU(t)
	fused, err := probeFMA(g)
	if err != nil {
		t.Fatal(err)
	}
	gputest.ProbeFMA(t, fused, numericKernel(g))
	t.Logf("%s: fma() fused: %v", g.info().Name, fused)
}
