package metal

import (
	"encoding/binary"
	"math"
	"testing"
)

// simdProbeOutput is what the SIMD-group probe writes on a device whose SIMD groups are width threads, with
// thread bad (if ≥ 0) seeing a wrong maximum.
func simdProbeOutput(width, bad int) []byte {
	out := make([]byte, 16*probeThreads)
	for lid := 0; lid < probeThreads; lid++ {
		group, lane := lid/width, lid%width
		m := float32(group*width + width - 1)
		if lid == bad {
			m = float32(lid)
		}
		first := uint32(0)
		if lane == 0 {
			first = 1
		}
		for k, w := range []uint32{math.Float32bits(m), uint32(width), first, uint32(group<<16 | lane<<8 | width)} {
			binary.LittleEndian.PutUint32(out[16*lid+4*k:], w)
		}
	}
	return out
}

func TestCheckSimdProbe(t *testing.T) {
	for _, w := range []int{8, 16, 32, 64} {
		if width, ok := checkSimdProbe(simdProbeOutput(w, -1)); !ok || width != w {
			t.Errorf("SIMD width %d: got %d, %v", w, width, ok)
		}
		if _, ok := checkSimdProbe(simdProbeOutput(w, 37)); ok {
			t.Errorf("SIMD width %d: a wrong maximum passes", w)
		}
	}
	if _, ok := checkSimdProbe(make([]byte, 16*probeThreads)); ok {
		t.Error("an output of zeros passes")
	}
	// SIMD groups need not be consecutive threads: interleaved groups whose reductions are right pass.
	out := make([]byte, 16*probeThreads)
	for lid := 0; lid < probeThreads; lid++ {
		group, lane := lid%4, lid/4 // width 32: group g holds threads g, g+4, …
		first := uint32(0)
		if lane == 0 {
			first = 1
		}
		for k, w := range []uint32{math.Float32bits(float32(124 + group)), 32, first, uint32(group<<16 | lane<<8 | 32)} {
			binary.LittleEndian.PutUint32(out[16*lid+4*k:], w)
		}
	}
	if width, ok := checkSimdProbe(out); !ok || width != 32 {
		t.Errorf("interleaved SIMD groups: %d, %v", width, ok)
	}
}
