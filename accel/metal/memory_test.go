package metal

import (
	goruntime "runtime"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/internal/gputest"
)

// TestSplitWeights copies every weight into buffers of 3 KiB, split by rows, and checks products and lookups
// against an unsplit copy (gputest.SplitWeights).
func TestSplitWeights(t *testing.T) {
	g := testGPU(t)
	whole, split := newTestBackend(t, g, Options{Weights: WeightsCopy}), newTestBackend(t, g, Options{Weights: WeightsCopy})
	split.partBytes = 3 << 10
	gputest.SplitWeights(t, whole, split, func(w accel.Weight) int { return len(w.(*weight).Parts) })
}

// TestProgramRunAllocs checks that setting inputs, running and reading a compiled program allocates nothing
// (gputest.RunAllocs).
func TestProgramRunAllocs(t *testing.T) {
	if goruntime.GOOS != "darwin" {
		t.Skip("the Vulkan stand-in allocates per run; Metal's is checked on macOS")
	}
	gputest.RunAllocs(t, newTestBackend(t, testGPU(t), Options{}))
}

// BenchmarkDecodeStep measures one recorded decode step of gputest.DecodeProgram's layer (gputest.BenchDecode).
func BenchmarkDecodeStep(b *testing.B) {
	gputest.BenchDecode(b, newTestBackend(b, testGPU(b), Options{}))
}

// TestDebug checks CompileOptions.Debug (gputest.Debug).
func TestDebug(t *testing.T) {
	gputest.Debug(t, newTestBackend(t, testGPU(t), Options{}))
}
