package vulkan

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// BenchmarkProgramMatVec measures a compiled one-product program per weight type, as a decode step runs it:
// activation conversion, mat-vec, copy of the result to the host; b.SetBytes is the weight's GGUF size.
func BenchmarkProgramMatVec(b *testing.B) {
	d, err := Open(Options{}) // no validation: it would dominate the timings
	if errors.Is(err, ErrNoLoader) || errors.Is(err, ErrNoDevice) {
		b.Skipf("no Vulkan here: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	be, err := NewBackendOn(d)
	if err != nil {
		b.Skip(err)
	}
	defer be.Close()
	r := rand.New(rand.NewPCG(11, 12))
	for _, typ := range []quant.Type{quant.F16, quant.Q8_0, quant.Q4_0, quant.Q4_K, quant.Q5_K, quant.Q6_K} {
		for _, size := range [][2]int{{1024, 1024}, {4096, 4096}} {
			rows, cols := size[0], size[1]
			b.Run(fmt.Sprintf("%s/%dx%d", typ, rows, cols), func(b *testing.B) {
				rb, _ := typ.RowBytes(cols)
				vals := make([]float32, rows*cols)
				for i := range vals {
					vals[i] = float32(r.NormFloat64())
				}
				data := make([]byte, rows*rb)
				if err := quant.Quantize(typ, vals, data); err != nil {
					b.Fatal(err)
				}
				w, err := be.Upload(accel.WeightData{Name: "w", Type: typ, Shape: []int{rows, cols}, Data: data})
				if err != nil {
					b.Fatal(err)
				}
				g := accel.NewBuilder()
				x := g.Input("x", accel.F32, 1, cols)
				y := g.Output(g.MatMul(g.Weight(w), x))
				gr, err := g.Build()
				if err != nil {
					b.Fatal(err)
				}
				p, err := be.Compile(gr, accel.CompileOptions{})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				p.SetFloat32(x, vals[:cols])
				out := make([]float32, rows)
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if err := p.Run(); err != nil {
						b.Fatal(err)
					}
					if err := p.Read(y, out); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
