package gpulower

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// TestReadValues checks the conversion of each element type the host reads back.
func TestReadValues(t *testing.T) {
	want := []float32{3, -2, 0, 65504} // exact in every type
	cases := []struct {
		typ  accel.DType
		size int
		put  func(b []byte, v float32)
	}{
		{accel.F32, 4, func(b []byte, v float32) { binary.LittleEndian.PutUint32(b, math.Float32bits(v)) }},
		{accel.F16, 2, func(b []byte, v float32) { binary.LittleEndian.PutUint16(b, quant.F32ToF16(v)) }},
		{accel.I32, 4, func(b []byte, v float32) { binary.LittleEndian.PutUint32(b, uint32(int32(v))) }},
	}
	for _, c := range cases {
		mem := make([]byte, c.size*(len(want)+1)) // one more value than read
		for i, v := range want {
			c.put(mem[c.size*i:], v)
		}
		c.put(mem[c.size*len(want):], 7)
		got := make([]float32, len(want))
		ReadValues(got, mem, c.typ)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: value %d is %g, want %g", c.typ, i, got[i], want[i])
			}
		}
	}
	ReadValues(nil, nil, accel.F32) // nothing to read: no access to mem
}
