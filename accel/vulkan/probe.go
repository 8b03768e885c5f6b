package vulkan

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/forma-llm/forma/shaders"
)

// probeFMA reports whether the device's fma() rounds once. Vulkan lets it be a multiply and an add (lavapipe's
// is); llama.cpp's kernels fuse, so shaders (numeric.glsl's fmaf) use the device's fma only where this finds it
// fused, and an exact emulation elsewhere. The probe computes products whose unfused and fused results differ.
func probeFMA(d *Device) (bool, error) {
	const n = 64
	var a, b, c [n]float32
	for i := range a {
		a[i] = 1 + float32(i)*0x1p-12 + 0x1p-23
		b[i] = 1 - float32(i)*0x1p-13 + 0x1p-22
		c[i] = -float32(float64(a[i]) * float64(b[i])) // a·b + c is the product's rounding error, 0 if unfused
	}
	code, err := shaders.SPIRV("numeric_check")
	if err != nil {
		return false, err
	}
	pipe, err := d.Pipeline(PipelineDesc{Name: "numeric_check", SPIRV: code, Buffers: 4, PushSize: 4, Spec: []uint32{n, 10}})
	if err != nil {
		return false, err
	}
	var bufs [4]*Buffer
	defer func() {
		for _, b := range bufs {
			if b != nil {
				b.Close()
			}
		}
	}()
	for i, vals := range [][]float32{a[:], b[:], c[:], make([]float32, n)} {
		if bufs[i], err = d.NewBuffer("fma probe", 4*n, Readback); err != nil {
			return false, err
		}
		m := bufs[i].Mapped()
		for j, v := range vals {
			binary.LittleEndian.PutUint32(m[4*j:], math.Float32bits(v))
		}
	}
	cmds, err := d.NewCommands(CommandsOptions{Name: "fma probe"})
	if err != nil {
		return false, err
	}
	defer cmds.Close()
	if err := cmds.Begin(); err != nil {
		return false, err
	}
	cmds.Dispatch(pipe, [3]uint32{1, 1, 1}, PushUint32(n), bufs[0].All(), bufs[1].All(), bufs[2].All(), bufs[3].All())
	if err := cmds.End(); err != nil {
		return false, err
	}
	if err := cmds.Run(); err != nil {
		return false, fmt.Errorf("vulkan: fma probe: %w", err)
	}
	out := bufs[3].Mapped()
	for i := range a {
		want := float32(math.FMA(float64(a[i]), float64(b[i]), float64(c[i])))
		if math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])) != want {
			return false, nil
		}
	}
	return true, nil
}
