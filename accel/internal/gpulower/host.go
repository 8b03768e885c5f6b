package gpulower

import (
	"unsafe"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// The host's side of a program's memory, which both backends read in place (mapped or shared storage).

// Producer returns the computed node whose step writes node i's memory (i itself, or the root of a view).
func Producer(g *accel.Graph, i int) int {
	for g.Nodes[i].Op.IsView() {
		i = g.Nodes[i].Args[0].ID()
	}
	return i
}

// ReadValues converts len(dst) values of type t (F16, I32 or F32) from the start of mem into dst. It allocates
// nothing.
func ReadValues(dst []float32, mem []byte, t accel.DType) {
	if len(dst) == 0 {
		return
	}
	switch t {
	case quant.F16:
		for i, h := range unsafe.Slice((*uint16)(unsafe.Pointer(&mem[0])), len(dst)) {
			dst[i] = quant.F16ToF32(h)
		}
	case quant.I32:
		for i, v := range unsafe.Slice((*int32)(unsafe.Pointer(&mem[0])), len(dst)) {
			dst[i] = float32(v)
		}
	default:
		copy(dst, unsafe.Slice((*float32)(unsafe.Pointer(&mem[0])), len(dst)))
	}
}
