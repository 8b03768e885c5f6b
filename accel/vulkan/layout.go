package vulkan

import (
	"fmt"

	"github.com/forma-llm/forma/gguf/quant"
)

// layout is how one GGUF weight type is stored in device memory (shaders/blocks.glsl documents the blocks).
// Every device block is whole 32-bit words, so shaders need no 8- or 16-bit storage access. A source block
// (a "unit": one element for the float types) converts into devBytes bytes.
type layout struct {
	name     string     // shader variant suffix: "f16", "q4_k", "q8s", …
	wtype    uint32     // WTYPE of the shaders
	act      quant.Type // what activations are converted to first (quant.ActivationType of the source type)
	devElems int        // elements per device block (1 for the float types)
	devBytes int        // device bytes per source unit
	// convert writes one source unit's device bytes; nil for types stored as they are.
	convert func(src, dst []byte)
}

// Shader WTYPE values (shaders/blocks.glsl).
const (
	wtF32 = iota
	wtF16
	wtBF16
	wtQ4_0
	wtQ8_0
	wtQ4_K
	wtQ5_K
	wtQ6_K
	wtQ8S
)

// layouts maps every supported weight type to its device layout. F32, F16, BF16, Q4_K and Q5_K keep GGUF's
// bytes (their blocks are already whole words); Q4_0, Q8_0 and Q6_K get two bytes of padding per block so their
// fields land on word boundaries; the other types become Q8S (q8s.go).
var layouts = func() map[quant.Type]*layout {
	m := map[quant.Type]*layout{
		quant.F32:  {name: "f32", wtype: wtF32, devElems: 1, devBytes: 4},
		quant.F16:  {name: "f16", wtype: wtF16, devElems: 1, devBytes: 2},
		quant.BF16: {name: "bf16", wtype: wtBF16, devElems: 1, devBytes: 2},
		quant.Q4_K: {name: "q4_k", wtype: wtQ4_K, devElems: quant.QKK, devBytes: 144},
		quant.Q5_K: {name: "q5_k", wtype: wtQ5_K, devElems: quant.QKK, devBytes: 176},
		quant.Q4_0: {name: "q4_0", wtype: wtQ4_0, devElems: quant.QK, devBytes: 20, convert: padAfter(2)},
		quant.Q8_0: {name: "q8_0", wtype: wtQ8_0, devElems: quant.QK, devBytes: 36, convert: padAfter(2)},
		quant.Q6_K: {name: "q6_k", wtype: wtQ6_K, devElems: quant.QKK, devBytes: 212, convert: padAfter(210)},
	}
	for t, conv := range q8sConverters {
		m[t] = &layout{name: "q8s", wtype: wtQ8S, devElems: q8sElems, devBytes: t.BlockElems() / q8sElems * q8sBytes,
			convert: func(src, dst []byte) { conv(src, q8sWriter(dst)) }}
	}
	for t, l := range m {
		l.act = quant.ActivationType(t)
	}
	return m
}()

// padAfter inserts two zero bytes after the first n bytes of a block (Q4_0 and Q8_0 after their F16 scale,
// so the quants start on a word; Q6_K at the end, so the next block does).
func padAfter(n int) func(src, dst []byte) {
	return func(src, dst []byte) {
		copy(dst, src[:n])
		dst[n], dst[n+1] = 0, 0
		copy(dst[n+2:], src[n:])
	}
}

// weightTypes lists the supported types in GGUF order.
var weightTypes = []quant.Type{quant.F32, quant.F16, quant.BF16, quant.Q4_0, quant.Q4_1, quant.Q5_0, quant.Q5_1,
	quant.Q8_0, quant.Q2_K, quant.Q3_K, quant.Q4_K, quant.Q5_K, quant.Q6_K, quant.IQ4_NL, quant.IQ4_XS, quant.MXFP4}

// units returns the number of source units in n elements of type t.
func units(t quant.Type, n int64) int64 { return n / int64(t.BlockElems()) }

// deviceBytes is the device size of n elements of type t (n a whole number of blocks), not yet rounded to words.
func (l *layout) deviceBytes(t quant.Type, n int64) int64 { return units(t, n) * int64(l.devBytes) }

// index converts an element offset (a whole number of device blocks) into the unit shaders index weights by:
// elements for F32, halves for F16 and BF16 (both equal to the element), words for block layouts.
func (l *layout) index(elem int64) int64 {
	if l.devElems == 1 {
		return elem
	}
	return elem / int64(l.devElems) * int64(l.devBlockBytes()/4)
}

// devBlockBytes is the size of one device block (of devElems elements).
func (l *layout) devBlockBytes() int {
	if l.name == "q8s" {
		return q8sBytes
	}
	return l.devBytes
}

// fill writes bytes [pos, pos+len(chunk)) of the device form of src (whole source units of type t) into chunk;
// bytes past the converted data (the padding to whole words) are zero.
func (l *layout) fill(t quant.Type, src, chunk []byte, pos int64) {
	if l.convert == nil {
		n := 0
		if pos < int64(len(src)) {
			n = copy(chunk, src[pos:])
		}
		clear(chunk[n:])
		return
	}
	ub, db := int64(t.BlockBytes()), int64(l.devBytes)
	nunits := int64(len(src)) / ub
	var tmp [8 * q8sBytes]byte // the largest device unit (a K-quant block as Q8S)
	for done := int64(0); done < int64(len(chunk)); {
		at := pos + done
		u, off := at/db, at%db
		if u >= nunits {
			clear(chunk[done:])
			return
		}
		in := src[u*ub : (u+1)*ub]
		if off == 0 && int64(len(chunk))-done >= db {
			l.convert(in, chunk[done:done+db])
			done += db
			continue
		}
		l.convert(in, tmp[:db])
		done += int64(copy(chunk[done:], tmp[off:db]))
	}
}

// layoutOf returns the layout of t or an error naming the tensor.
func layoutOf(name string, t quant.Type) (*layout, error) {
	l, ok := layouts[t]
	if !ok {
		return nil, fmt.Errorf("vulkan: weight %q: type %s is not supported", name, t)
	}
	return l, nil
}
