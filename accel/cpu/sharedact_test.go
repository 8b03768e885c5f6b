package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// TestSharedActivations: products that follow one of the same input and activation layout reuse its converted
// rows (shareActivations) and give what each gives alone, bit for bit; a product of another input, or of a
// weight type whose activations differ, converts its own. Q8_0 (a stored batched kernel), Q4_K and F16, with 1
// and 3 activation rows.
func TestSharedActivations(t *testing.T) {
	const in, out = 256, 48
	r := rand.New(rand.NewPCG(9, 10))
	be := newTestBackend(t, 2)
	defer be.Close()
	weight := func(typ quant.Type) accel.Weight {
		rb, _ := typ.RowBytes(in)
		data, row := make([]byte, out*rb), make([]float32, in)
		for j := 0; j < out; j++ {
			for i := range row {
				row[i] = float32(r.NormFloat64())
			}
			if err := quant.Quantize(typ, row, data[j*rb:(j+1)*rb]); err != nil {
				t.Fatal(err)
			}
		}
		w, err := be.Upload(accel.WeightData{Name: "w", Type: typ, Shape: []int{out, in}, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	// two of x, one of y with the same weight type, two of y in another type, two in F16, one of x again
	ws := []accel.Weight{weight(quant.Q8_0), weight(quant.Q8_0), weight(quant.Q8_0), weight(quant.Q4_K),
		weight(quant.Q4_K), weight(quant.F16), weight(quant.F16), weight(quant.Q8_0)}
	input := []int{0, 0, 1, 1, 1, 1, 1, 0}
	shared := []bool{false, true, false, false, true, false, true, false}
	for _, n := range []int{1, 3} {
		xs := [2][]float32{make([]float32, n*in), make([]float32, n*in)}
		for _, x := range xs {
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
		}
		run := func(idx []int) ([][]float32, *program, []accel.Tensor) {
			bld := accel.NewBuilder()
			x := [2]accel.Tensor{bld.Input("x", quant.F32, n, in), bld.Input("y", quant.F32, n, in)}
			var outs []accel.Tensor
			for _, i := range idx {
				o := bld.MatMul(bld.Weight(ws[i]), x[input[i]])
				bld.Output(o)
				outs = append(outs, o)
			}
			prog := compileBench(t, be, bld)
			defer prog.Close()
			for k := range x {
				if err := prog.SetFloat32(x[k], xs[k]); err != nil {
					t.Fatal(err)
				}
			}
			if err := prog.Run(); err != nil {
				t.Fatal(err)
			}
			res := make([][]float32, len(outs))
			for k, o := range outs {
				res[k] = make([]float32, n*out)
				if err := prog.Read(o, res[k]); err != nil {
					t.Fatal(err)
				}
			}
			return res, prog.(*program), outs
		}
		all := []int{0, 1, 2, 3, 4, 5, 6, 7}
		got, p, outs := run(all)
		for k, s := range p.steps {
			for i, o := range outs {
				if mm := s.(*matMulStep); p.nodes[k] == o.ID() && mm.sharedAct != shared[i] {
					t.Errorf("n=%d: product %d shares its activations: %v, want %v", n, i, mm.sharedAct, shared[i])
				}
			}
		}
		for i := range all {
			want, _, _ := run([]int{i})
			assertBits(t, fmt.Sprintf("n=%d: product %d, element", n, i), got[i], want[0])
		}
	}
}
