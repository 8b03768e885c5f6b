package metal

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/forma-llm/forma/accel/internal/gpulower"
	"github.com/forma-llm/forma/shaders"
)

// probeFMA reports whether the device's fma() rounds once. llama.cpp's kernels fuse, so shaders (numeric.glsl's
// fmaf) use the device's fma only where this finds it fused, and an exact emulation elsewhere. The probe
// computes products whose unfused and fused results differ.
func probeFMA(g gpu) (bool, error) {
	const n = 64
	var a, b, c [n]float32
	for i := range a {
		a[i] = 1 + float32(i)*0x1p-12 + 0x1p-23
		b[i] = 1 - float32(i)*0x1p-13 + 0x1p-22
		c[i] = -float32(float64(a[i]) * float64(b[i])) // a·b + c is the product's rounding error, 0 if unfused
	}
	out, err := runNumeric(g, 10, a[:], b[:], c[:])
	if err != nil {
		return false, fmt.Errorf("metal: fma probe: %w", err)
	}
	for i := range a {
		if out[i] != float32(math.FMA(float64(a[i]), float64(b[i]), float64(c[i]))) {
			return false, nil
		}
	}
	return true, nil
}

// runNumeric applies numeric_check's function fn to a, b and c on the device (with the exact fma emulation:
// NATIVE_FMA off).
func runNumeric(g gpu, fn uint32, a, b, c []float32) ([]float32, error) {
	n := len(a)
	k, err := shaders.MSLKernel("numeric_check")
	if err != nil {
		return nil, err
	}
	var spec [numSpec]uint32
	spec[0], spec[1] = gpulower.WGElementwise, fn
	pipe, err := g.pipeline(k, spec)
	if err != nil {
		return nil, err
	}
	var bufs [4]buffer
	defer func() {
		for _, bf := range bufs {
			if bf != nil {
				bf.release()
			}
		}
	}()
	for i, vals := range [][]float32{a, b, c, nil} {
		if bufs[i], err = g.newBuffer("numeric probe", int64(4*n)); err != nil {
			return nil, err
		}
		m := bufs[i].contents()
		for j := 0; j < n; j++ {
			v := float32(0)
			if vals != nil {
				v = vals[j]
			}
			binary.LittleEndian.PutUint32(m[4*j:], math.Float32bits(v))
		}
	}
	pc := make([]byte, k.PushSize)
	binary.LittleEndian.PutUint32(pc, uint32(n))
	st := step{pipe: pipe, push: pc, groups: gpulower.Groups(n, gpulower.WGElementwise), wg: gpulower.WGElementwise}
	for _, bf := range bufs {
		st.bufs = append(st.bufs, bound{buf: bf})
	}
	if err := g.run([]step{st}); err != nil {
		return nil, err
	}
	out := make([]float32, n)
	m := bufs[3].contents()
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(m[4*i:]))
	}
	return out, nil
}

// probeThreads is the threadgroup of the SIMD-group probe (probe_darwin.go): the shaders' largest.
const probeThreads = 128

// checkSimdProbe reads the probe's output. Every thread must report the same width, a power of two dividing
// the threadgroup, and a lane below it; within each SIMD group (the threads reporting its index, whichever they
// are) lanes must be distinct, every thread must see the group's largest thread id and its thread count, and
// only lane 0 must be first.
func checkSimdProbe(out []byte) (width int, ok bool) {
	word := func(lid, k int) uint32 { return binary.LittleEndian.Uint32(out[16*lid+4*k:]) }
	width = int(word(0, 3) & 0xff)
	if width == 0 || width&(width-1) != 0 || probeThreads%width != 0 {
		return width, false
	}
	type group struct {
		most  int
		lanes uint64
		n     int
	}
	groups := map[uint32]*group{}
	for lid := 0; lid < probeThreads; lid++ {
		id := word(lid, 3)
		g, lane := id>>16, int(id>>8&0xff)
		if int(id&0xff) != width || lane >= width {
			return width, false
		}
		gr := groups[g]
		if gr == nil {
			gr = &group{most: -1}
			groups[g] = gr
		}
		if gr.lanes&(1<<lane) != 0 {
			return width, false
		}
		gr.lanes |= 1 << lane
		gr.most = max(gr.most, lid)
		gr.n++
	}
	for lid := 0; lid < probeThreads; lid++ {
		gr := groups[word(lid, 3)>>16]
		first := uint32(0)
		if word(lid, 3)>>8&0xff == 0 {
			first = 1
		}
		if math.Float32frombits(word(lid, 0)) != float32(gr.most) || word(lid, 1) != uint32(gr.n) || word(lid, 2) != first {
			return width, false
		}
	}
	return width, true
}
