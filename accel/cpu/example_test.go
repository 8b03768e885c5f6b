package cpu_test

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf/quant"
)

// A weight is uploaded once, a graph compiled once, and the program run with new inputs as often as needed.
func Example() {
	be, err := cpu.New(cpu.Options{Threads: 2})
	if err != nil {
		panic(err)
	}
	defer be.Close()

	// W = [[1 2 3 4] [0 0 0 1]] as F32 (a model file would give any quant type; the bytes are used in place).
	data := make([]byte, 4*8)
	quant.QuantizeF32([]float32{1, 2, 3, 4, 0, 0, 0, 1}, data)
	w, err := be.Upload(accel.WeightData{Name: "w", Type: quant.F32, Shape: []int{2, 4}, Data: data})
	if err != nil {
		panic(err)
	}

	b := accel.NewBuilder()
	x := b.Input("x", quant.F32, 1, 4)
	y := b.Output(b.MatMul(b.Weight(w), x))
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	prog, err := be.Compile(g, accel.CompileOptions{})
	if err != nil {
		panic(err)
	}
	defer prog.Close()

	out := make([]float32, 2)
	for _, in := range [][]float32{{1, 1, 1, 1}, {0.5, 0, 0, 2}} {
		prog.SetFloat32(x, in)
		if err := prog.Run(); err != nil {
			panic(err)
		}
		prog.Read(y, out)
		fmt.Println(out)
	}
	// Output:
	// [10 1]
	// [8.5 2]
}
