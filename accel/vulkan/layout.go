package vulkan

import (
	"fmt"

	"github.com/forma-llm/forma/gguf/quant"
	shlayout "github.com/forma-llm/forma/shaders/layout"
)

// layout is how one GGUF weight type is stored in device memory: shaders/layout's table (shared with the Metal
// backend, which runs the same shaders), under the names this package's code uses. A source block (a "unit":
// one element for the float types) converts into devBytes bytes.
type layout struct {
	l        *shlayout.Layout
	name     string     // shader variant suffix: "f16", "q4_k", "q8s", …
	wtype    uint32     // WTYPE of the shaders
	act      quant.Type // what activations are converted to first (quant.ActivationType of the source type)
	devElems int        // elements per device block (1 for the float types)
	devBytes int        // device bytes per source unit
}

// wtBF16 is the shaders' WTYPE of BF16 weights.
const wtBF16 = shlayout.WBF16

// layouts maps every supported weight type to its device layout.
var layouts = func() map[quant.Type]*layout {
	m := map[quant.Type]*layout{}
	for _, t := range shlayout.Types() {
		l := shlayout.Lookup(t)
		m[t] = &layout{l: l, name: l.Name, wtype: l.WType, act: l.Act, devElems: l.DevElems, devBytes: l.DevBytes}
	}
	return m
}()

// weightTypes lists the supported types in GGUF order.
var weightTypes = shlayout.Types()

// deviceBytes is the device size of n elements of type t (n a whole number of blocks), not yet rounded to words.
func (l *layout) deviceBytes(t quant.Type, n int64) int64 { return l.l.DeviceBytes(t, n) }

// index converts an element offset (a whole number of device blocks) into the unit shaders index weights by.
func (l *layout) index(elem int64) int64 { return l.l.Index(elem) }

// fill writes bytes [pos, pos+len(chunk)) of the device form of src (whole source units of type t) into chunk.
func (l *layout) fill(t quant.Type, src, chunk []byte, pos int64) { l.l.Fill(t, src, chunk, pos) }

// layoutOf returns the layout of t or an error naming the tensor.
func layoutOf(name string, t quant.Type) (*layout, error) {
	l, ok := layouts[t]
	if !ok {
		return nil, fmt.Errorf("vulkan: weight %q: type %s is not supported", name, t)
	}
	return l, nil
}
