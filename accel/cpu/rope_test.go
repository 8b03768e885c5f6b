package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// TestRoPESharedTable: rope steps with the same positions and parameters share the first one's table of (cos,
// sin) (shareRoPETables). Each output of a program of several rope steps (q and k of different head counts,
// one with another base, which fills a table of its own, one with partial rotation) equals the step's output
// in a program of its own, bit for bit, with 1 and 3 threads.
func TestRoPESharedTable(t *testing.T) {
	const n, size = 5, 16
	base := accel.RoPEParams{Mode: accel.RoPENeoX, Dims: size, Base: 10000, FreqScale: 1, AttnFactor: 1}
	other, partial := base, base
	other.Base = 500000
	partial.Dims = 8
	specs := []struct {
		heads int
		p     accel.RoPEParams
	}{{8, base}, {4, base}, {4, other}, {2, base}, {3, partial}}
	r := rand.New(rand.NewPCG(51, 52))
	xs := make([][]float32, len(specs))
	for i, sp := range specs {
		xs[i] = make([]float32, n*sp.heads*size)
		for j := range xs[i] {
			xs[i][j] = float32(r.NormFloat64())
		}
	}
	pos := []int32{0, 3, 100, 2047, 7}
	for _, threads := range []int{1, 3} {
		be := newTestBackend(t, threads)
		run := func(which []int) [][]float32 {
			b := accel.NewBuilder()
			p := b.Input("pos", quant.I32, n)
			in, out := make([]accel.Tensor, len(which)), make([]accel.Tensor, len(which))
			for k, i := range which {
				in[k] = b.Input("x", quant.F32, n, specs[i].heads, size)
				out[k] = b.Output(b.RoPE(in[k], p, specs[i].p, accel.Tensor{}))
			}
			g, err := b.Build()
			if err != nil {
				t.Fatal(err)
			}
			prog, err := be.Compile(g, accel.CompileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer prog.Close()
			if err := prog.SetInt32(p, pos); err != nil {
				t.Fatal(err)
			}
			for k, i := range which {
				if err := prog.SetFloat32(in[k], xs[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := prog.Run(); err != nil {
				t.Fatal(err)
			}
			ys := make([][]float32, len(which))
			for k, i := range which {
				ys[k] = make([]float32, len(xs[i]))
				if err := prog.Read(out[k], ys[k]); err != nil {
					t.Fatal(err)
				}
			}
			return ys
		}
		all := run([]int{0, 1, 2, 3, 4})
		for i := range specs {
			alone := run([]int{i})[0]
			for j := range alone {
				if math.Float32bits(all[i][j]) != math.Float32bits(alone[j]) {
					t.Fatalf("%d threads, rope %d: y[%d] = %v with the others, %v alone", threads, i, j, all[i][j], alone[j])
				}
			}
		}
		be.Close()
	}
}

// TestRoPEKernels: the vector kernels (ropeStep.fast, where the CPU has them) rotate every row as
// ropeStep.rotate does, bit for bit, in the normal and the NeoX modes, and leave the elements past Dims alone,
// for heads of 8 to 128 values with full and partial rotation.
func TestRoPEKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	cases := []struct {
		mode             accel.RoPEMode
		rows, size, dims int
	}{
		{accel.RoPENormal, 1, 8, 8}, {accel.RoPENormal, 8, 8, 8}, {accel.RoPENormal, 3, 64, 64},
		{accel.RoPENormal, 4, 128, 64}, {accel.RoPENormal, 2, 24, 16},
		{accel.RoPENeoX, 1, 16, 16}, {accel.RoPENeoX, 5, 128, 128}, {accel.RoPENeoX, 3, 80, 32},
		{accel.RoPENeoX, 2, 256, 96}, {accel.RoPENeoX, 2, 64, 48},
	}
	for _, c := range cases {
		s := &ropeStep{p: accel.RoPEParams{Mode: c.mode, Dims: c.dims}, size: c.size}
		x := make([]float32, c.rows*c.size)
		cache := make([]float32, c.dims)
		for i := range x {
			x[i] = float32(r.NormFloat64() * math.Ldexp(1, r.IntN(20)-10))
		}
		for i := range cache {
			cache[i] = float32(r.Float64()*2 - 1)
		}
		got := make([]float32, len(x))
		for i := range got {
			got[i] = -1
		}
		if !s.fast(x, got, cache, c.rows, c.dims) {
			t.Skip("no vector kernel on this CPU")
		}
		want := make([]float32, len(x))
		for i := range want {
			want[i] = -1
		}
		for i := 0; i < c.rows; i++ {
			s.rotate(x[i*c.size:(i+1)*c.size], want[i*c.size:(i+1)*c.size], cache)
		}
		assertBits(t, fmt.Sprintf("%+v: element", c), got, want)
	}
}
