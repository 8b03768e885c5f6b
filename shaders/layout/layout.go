// Package layout is how each GGUF weight type is stored in device memory for forma's shaders (blocks.glsl
// documents the blocks), shared by the GPU backends. Every device block is whole 32-bit words, so shaders need
// no 8- or 16-bit storage access. F32, F16, BF16, Q4_K and Q5_K keep GGUF's bytes; Q4_0, Q8_0 and Q6_K get two
// bytes of padding per block so their fields land on word boundaries; the other types become Q8S (q8s.go), an
// exact conversion.
package layout

import (
	"fmt"

	"github.com/forma-llm/forma/gguf/quant"
)

// Layout is the device form of one weight type. A source block (a "unit": one element for the float types)
// converts into DevBytes bytes.
type Layout struct {
	Name     string     // shader variant suffix: "f16", "q4_k", "q8s", …
	WType    uint32     // WTYPE of the shaders
	Act      quant.Type // what activations are converted to first (quant.ActivationType of the source type)
	DevElems int        // elements per device block (1 for the float types)
	DevBytes int        // device bytes per source unit
	// convert writes one source unit's device bytes; nil for types stored as they are.
	convert func(src, dst []byte)
}

// Shader WTYPE values (shaders/blocks.glsl).
const (
	WF32 = iota
	WF16
	WBF16
	WQ4_0
	WQ8_0
	WQ4_K
	WQ5_K
	WQ6_K
	WQ8S
)

var layouts = func() map[quant.Type]*Layout {
	m := map[quant.Type]*Layout{
		quant.F32:  {Name: "f32", WType: WF32, DevElems: 1, DevBytes: 4},
		quant.F16:  {Name: "f16", WType: WF16, DevElems: 1, DevBytes: 2},
		quant.BF16: {Name: "bf16", WType: WBF16, DevElems: 1, DevBytes: 2},
		quant.Q4_K: {Name: "q4_k", WType: WQ4_K, DevElems: quant.QKK, DevBytes: 144},
		quant.Q5_K: {Name: "q5_k", WType: WQ5_K, DevElems: quant.QKK, DevBytes: 176},
		quant.Q4_0: {Name: "q4_0", WType: WQ4_0, DevElems: quant.QK, DevBytes: 20, convert: padAfter(2)},
		quant.Q8_0: {Name: "q8_0", WType: WQ8_0, DevElems: quant.QK, DevBytes: 36, convert: padAfter(2)},
		quant.Q6_K: {Name: "q6_k", WType: WQ6_K, DevElems: quant.QKK, DevBytes: 212, convert: padAfter(210)},
	}
	for t, conv := range q8sConverters {
		m[t] = &Layout{Name: "q8s", WType: WQ8S, DevElems: q8sElems, DevBytes: t.BlockElems() / q8sElems * q8sBytes,
			convert: func(src, dst []byte) { conv(src, q8sWriter(dst)) }}
	}
	for t, l := range m {
		l.Act = quant.ActivationType(t)
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

// types lists the supported types in GGUF order: gguf/quant's weight types that have a layout here.
var types = func() []quant.Type {
	var ts []quant.Type
	for _, t := range quant.WeightTypes() {
		if layouts[t] != nil {
			ts = append(ts, t)
		}
	}
	return ts
}()

// Types lists the weight types the shaders handle, in GGUF order.
func Types() []quant.Type { return append([]quant.Type(nil), types...) }

// quantizeShaders name the activation conversion of each activation type (quantize.comp's variants).
var quantizeShaders = map[quant.Type]string{quant.Q8_0: "quantize_q8_0", quant.Q8_1: "quantize_q8_1",
	quant.Q8_K: "quantize_q8_k", quant.F16: "quantize_f16", quant.BF16: "quantize_bf16"}

// Quantize returns the shader converting n activation rows of cols elements to act, and the invocations it
// takes: one per block of act (a multiple of 32 elements per row; 256 for Q8_K), or for F16 and BF16 one per
// 32 elements of each row, the last group partial.
func Quantize(act quant.Type, n, cols int) (shader string, units int) {
	switch act {
	case quant.Q8_K:
		units = n * cols / 256
	case quant.F16, quant.BF16:
		units = n * ((cols + 31) / 32)
	default:
		units = n * cols / 32
	}
	return quantizeShaders[act], units
}

// Of returns the layout of t, or an error naming the tensor.
func Of(name string, t quant.Type) (*Layout, error) {
	l, ok := layouts[t]
	if !ok {
		return nil, fmt.Errorf("weight %q: type %s is not supported", name, t)
	}
	return l, nil
}

// Lookup returns the layout of t, nil if the shaders do not handle it.
func Lookup(t quant.Type) *Layout { return layouts[t] }

// Verbatim reports whether the device bytes are the GGUF bytes (no conversion), so a weight can be used in place.
func (l *Layout) Verbatim() bool { return l.convert == nil }

// KQuant reports whether the layout is one of the K-quant shaders' (Q4_K, Q5_K, Q6_K), which take Q8_K
// activations in 256-element blocks.
func (l *Layout) KQuant() bool { return l.DevElems == quant.QKK && l.WType != WQ8S }

// units returns the number of source units in n elements of type t.
func units(t quant.Type, n int64) int64 { return n / int64(t.BlockElems()) }

// DeviceBytes is the device size of n elements of type t (n a whole number of blocks), not yet rounded to words.
func (l *Layout) DeviceBytes(t quant.Type, n int64) int64 { return units(t, n) * int64(l.DevBytes) }

// Index converts an element offset (a whole number of device blocks) into the unit shaders index weights by:
// elements for F32, halves for F16 and BF16 (both equal to the element), words for block layouts.
func (l *Layout) Index(elem int64) int64 {
	if l.DevElems == 1 {
		return elem
	}
	return elem / int64(l.DevElems) * int64(l.devBlockBytes()/4)
}

// devBlockBytes is the size of one device block (of DevElems elements).
func (l *Layout) devBlockBytes() int {
	if l.WType == WQ8S {
		return q8sBytes
	}
	return l.DevBytes
}

// Fill writes bytes [pos, pos+len(chunk)) of the device form of src (whole source units of type t) into chunk;
// bytes past the converted data (the padding to whole words) are zero.
func (l *Layout) Fill(t quant.Type, src, chunk []byte, pos int64) {
	if l.convert == nil {
		n := 0
		if pos < int64(len(src)) {
			n = copy(chunk, src[pos:])
		}
		clear(chunk[n:])
		return
	}
	ub, db := int64(t.BlockBytes()), int64(l.DevBytes)
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
