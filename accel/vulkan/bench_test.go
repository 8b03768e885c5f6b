package vulkan

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMatVec measures one recorded mat-vec dispatch, submitted and waited for, per iteration.
func BenchmarkMatVec(b *testing.B) {
	d, err := Open(Options{}) // no validation: it would dominate the timings
	if errors.Is(err, ErrNoLoader) || errors.Is(err, ErrNoDevice) {
		b.Skipf("no Vulkan here: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	for _, size := range [][2]int{{1024, 1024}, {4096, 4096}} {
		rows, cols := size[0], size[1]
		b.Run(fmt.Sprintf("f32/%dx%d", rows, cols), func(b *testing.B) {
			r := rand.New(rand.NewPCG(3, 4))
			w, x := newF32(b, d, "W", randFloats(r, rows*cols)), newF32(b, d, "x", randFloats(r, cols))
			y := mustBuffer(b, d, "y", int64(4*rows), DeviceLocal)
			defer func() { w.Close(); x.Close(); y.Close() }()
			p, err := d.Pipeline(PipelineDesc{Name: "matvec_f32", SPIRV: shader(b, "matvec_f32"), Buffers: 3, PushSize: 32,
				Spec: []uint32{128}})
			if err != nil {
				b.Fatal(err)
			}
			c := mustCommands(b, d, CommandsOptions{Name: "matvec"})
			defer c.Close()
			record(b, c, func() {
				c.Dispatch(p, groups2D(uint32(rows/2)), PushUint32(uint32(rows), uint32(cols), 1, 0, 0, 0, 0, 64), w.All(), x.All(), y.All())
			})
			b.SetBytes(int64(4 * rows * cols))
			for b.Loop() {
				if err := c.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
