package vulkan

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/forma-llm/forma/accel/internal/gpulower"
	"github.com/forma-llm/forma/internal/gputest"
)

// TestNumerics compares numeric.glsl's functions with Go (gputest.Numerics).
func TestNumerics(t *testing.T) {
	d := sharedDevice(t)
	gputest.Numerics(t, func(t *testing.T, fn uint32, a, b, c []float32) []float32 { return runNumeric(t, d, fn, a, b, c) })
}

// runNumeric runs numeric_check's function fn over a, b and c on d.
func runNumeric(t *testing.T, d *Device, fn uint32, a, b, c []float32) []float32 {
	t.Helper()
	bytesOf := func(v []float32) []byte {
		out := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
		}
		return out
	}
	ab, bb := mustBuffer(t, d, "a", int64(4*len(a)), DeviceLocal), mustBuffer(t, d, "b", int64(4*len(b)), DeviceLocal)
	cb, yb := mustBuffer(t, d, "c", int64(4*len(c)), DeviceLocal), mustBuffer(t, d, "y", int64(4*len(a)), DeviceLocal)
	defer func() { ab.Close(); bb.Close(); cb.Close(); yb.Close() }()
	if err := d.Write(ab, 0, bytesOf(a)); err != nil {
		t.Fatal(err)
	}
	if err := d.Write(bb, 0, bytesOf(b)); err != nil {
		t.Fatal(err)
	}
	if err := d.Write(cb, 0, bytesOf(c)); err != nil {
		t.Fatal(err)
	}
	p, err := d.Pipeline(PipelineDesc{Name: "numeric_check", SPIRV: shader(t, "numeric_check"), Buffers: 4, PushSize: 4, Spec: []uint32{64, fn}})
	if err != nil {
		t.Fatal(err)
	}
	cmds := mustCommands(t, d, CommandsOptions{Name: "numeric"})
	defer cmds.Close()
	record(t, cmds, func() {
		cmds.Dispatch(p, gpulower.Flat((len(a)+63)/64), PushUint32(uint32(len(a))), ab.All(), bb.All(), cb.All(), yb.All())
	})
	if err := cmds.Run(); err != nil {
		t.Fatal(err)
	}
	return readF32(t, d, yb)
}

// TestProbeFMA checks the backend's probe against the device's fma() on random arguments (gputest.ProbeFMA).
func TestProbeFMA(t *testing.T) {
	d := sharedDevice(t)
	fused, err := probeFMA(d)
	if err != nil {
		t.Fatal(err)
	}
	gputest.ProbeFMA(t, fused, func(t *testing.T, fn uint32, a, b, c []float32) []float32 { return runNumeric(t, d, fn, a, b, c) })
	t.Logf("%s: fma() fused: %v", d.Info().Name, fused)
}
