package cpu

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// matProgram compiles y = x·Wᵀ for a random W [out, in] of type typ and x [n, in].
func matProgram(b *testing.B, be *Backend, typ accel.DType, n, in, out int) (accel.Program, int) {
	rng := rand.New(rand.NewPCG(3, 4))
	rb, _ := typ.RowBytes(in)
	data := make([]byte, out*rb)
	row := make([]float32, in)
	for r := 0; r < out; r++ {
		for i := range row {
			row[i] = float32(rng.NormFloat64())
		}
		if err := quant.Quantize(typ, row, data[r*rb:(r+1)*rb]); err != nil {
			b.Fatal(err)
		}
	}
	w, err := be.Upload(accel.WeightData{Name: "w", Type: typ, Shape: []int{out, in}, Data: data})
	if err != nil {
		b.Fatal(err)
	}
	bld := accel.NewBuilder()
	x := bld.Input("x", quant.F32, n, in)
	bld.Output(bld.MatMul(bld.Weight(w), x))
	prog := compileBench(b, be, bld)
	xs := make([]float32, n*in)
	for i := range xs {
		xs[i] = float32(rng.NormFloat64())
	}
	if err := prog.SetFloat32(x, xs); err != nil {
		b.Fatal(err)
	}
	return prog, len(data)
}

func benchMat(b *testing.B, n, in, out int, types []accel.DType) {
	be, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	for _, typ := range types {
		name := fmt.Sprintf("%s/%dx%d", strings.ToLower(typ.String()), out, in)
		if n > 1 {
			name = fmt.Sprintf("%s/%dx%dx%d", strings.ToLower(typ.String()), n, out, in)
		}
		b.Run(name, func(b *testing.B) {
			prog, bytes := matProgram(b, be, typ, n, in, out)
			defer prog.Close()
			b.SetBytes(int64(bytes))
			b.ReportAllocs()
			for b.Loop() {
				if err := prog.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMatVec is one token's product with a 4096×4096 weight of every type.
func BenchmarkMatVec(b *testing.B) { benchMat(b, 1, 4096, 4096, weightTypes) }

// BenchmarkMatMul is a 512-token prefill's product with a 2048×2048 weight.
func BenchmarkMatMul(b *testing.B) {
	benchMat(b, 512, 2048, 2048, []accel.DType{quant.Q4_0, quant.Q8_0, quant.Q4_K, quant.F16})
}

// BenchmarkMatSmall is the products of a model small enough to stay in cache (stories260K: 64×64 and 172×64
// Q8_0, and its 64×172 F16 ffn_down, whose rows end in a tail after the last step of 64) on 1, 2, 4 and 8
// activation rows: a decode step and passes of prompt lookup.
func BenchmarkMatSmall(b *testing.B) {
	for _, n := range []int{1, 2, 4, 8} {
		benchMat(b, n, 64, 64, []accel.DType{quant.Q8_0})
		benchMat(b, n, 64, 172, []accel.DType{quant.Q8_0})
		benchMat(b, n, 172, 64, []accel.DType{quant.F16})
	}
}

// BenchmarkDispatch is 100 small steps, each split over every thread: the cost of waking the workers and
// waiting for them.
func BenchmarkDispatch(b *testing.B) {
	be, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	be.eager = true
	bld := accel.NewBuilder()
	x := bld.Input("x", quant.F32, 4, 64)
	y := x
	for i := 0; i < 100; i++ {
		y = bld.Scale(y, 1.0001)
	}
	bld.Output(y)
	prog := compileBench(b, be, bld)
	defer prog.Close()
	prog.SetFloat32(x, make([]float32, 4*64))
	b.ReportAllocs()
	for b.Loop() {
		if err := prog.Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100, "ns/step")
}

// BenchmarkAttention is one decode step's attention (one query) and a 64-token prompt chunk's, at the end of
// a cache of 2048 positions (32 heads of 128, 8 KV heads), with F32 and F16 caches.
func BenchmarkAttention(b *testing.B) {
	be, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	const heads, kvHeads, size, ctx = 32, 8, 128, 2048
	rng := rand.New(rand.NewPCG(5, 6))
	normal := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for _, c := range []struct {
		cache accel.DType
		flash bool
	}{{quant.F32, false}, {quant.F16, false}, {quant.F16, true}, {quant.Q8_0, true}, {quant.Q4_0, true}} {
		cache := c.cache
		kb, err := be.NewBuffer(accel.TensorDesc{Name: "k", Type: cache, Shape: []int{ctx, kvHeads, size}})
		if err != nil {
			b.Fatal(err)
		}
		vb, err := be.NewBuffer(accel.TensorDesc{Name: "v", Type: cache, Shape: []int{ctx, kvHeads, size}})
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{1, 64} {
			name := strings.ToLower(cache.String())
			if c.flash {
				name += "-fa"
			}
			b.Run(fmt.Sprintf("%s/%dq", name, n), func(b *testing.B) {
				prog := attnProgram(b, be, kb, vb, heads, size, ctx-n, normal(n*heads*size),
					accel.AttentionParams{Scale: 0.088, Flash: c.flash})
				defer prog.Close()
				for b.Loop() {
					if err := prog.Run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkAttentionDepth is the attention of a decode step (1q) and of a prefill pass (64q) at 4608 cells in
// qwen3-0.6b's shape (16 heads of 128, 8 KV heads), over six layers' caches (113 MB, more than the caches hold,
// as a model's layers are): the rows of one KV head lie 2 KiB apart, which the lane kernels' unit order and
// prefetches are for. Bytes are the cells' keys and values read.
func BenchmarkAttentionDepth(b *testing.B) {
	be, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	const heads, kvHeads, size, ctx, layers = 16, 8, 128, 4608, 6
	rng := rand.New(rand.NewPCG(5, 6))
	var kbs, vbs []accel.Buffer
	for range layers {
		kb, vb := f16Cache(b, be, rng, ctx, kvHeads, size)
		kbs, vbs = append(kbs, kb), append(vbs, vb)
	}
	for _, n := range []int{1, 64} {
		b.Run(fmt.Sprintf("%dq", n), func(b *testing.B) {
			qs := make([]float32, n*heads*size)
			for i := range qs {
				qs[i] = float32(rng.NormFloat64())
			}
			progs := make([]accel.Program, layers)
			for l := range progs {
				progs[l] = attnProgram(b, be, kbs[l], vbs[l], heads, size, ctx-n, qs, accel.AttentionParams{Scale: 0.088})
				defer progs[l].Close()
			}
			b.SetBytes(layers * ctx * kvHeads * 2 * size * 2)
			for b.Loop() {
				for _, prog := range progs {
					if err := prog.Run(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkAttentionLanes is a pass's attention for 1 to 8 queries of one sequence at 600 cells, in the
// lane kernels' heads of 8 (stories260K's: 8 heads, 4 KV heads, one thread): 1–4 queries fill a block of 8
// lanes, 5–8 one of 16, whose values' sums value16T takes in one pass where value8 took two.
func BenchmarkAttentionLanes(b *testing.B) {
	be, err := New(Options{Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	const heads, kvHeads, size, ctx, at = 8, 4, 8, 1024, 600
	rng := rand.New(rand.NewPCG(5, 6))
	kb, vb := f16Cache(b, be, rng, ctx, kvHeads, size)
	for _, n := range []int{1, 2, 4, 5, 8, 9, 12, 16} {
		b.Run(fmt.Sprintf("%dq", n), func(b *testing.B) {
			qs := make([]float32, n*heads*size)
			for i := range qs {
				qs[i] = float32(rng.NormFloat64())
			}
			prog := attnProgram(b, be, kb, vb, heads, size, at, qs, accel.AttentionParams{Scale: 0.35})
			defer prog.Close()
			b.SetBytes(int64(at * kvHeads * 2 * size * 2)) // the cells' keys and values
			for b.Loop() {
				if err := prog.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// f16Cache returns F16 key and value caches of ctx cells of kvHeads heads of size, filled with random values.
func f16Cache(b *testing.B, be *Backend, rng *rand.Rand, ctx, kvHeads, size int) (k, v accel.Buffer) {
	k, err := be.NewBuffer(accel.TensorDesc{Name: "k", Type: quant.F16, Shape: []int{ctx, kvHeads, size}})
	if err != nil {
		b.Fatal(err)
	}
	v, err = be.NewBuffer(accel.TensorDesc{Name: "v", Type: quant.F16, Shape: []int{ctx, kvHeads, size}})
	if err != nil {
		b.Fatal(err)
	}
	copy(k.(*buffer).mem, randF16Bytes(rng, ctx*kvHeads*size, 1.5))
	copy(v.(*buffer).mem, randF16Bytes(rng, ctx*kvHeads*size, 1))
	return k, v
}

// attnProgram compiles the attention of len(q)/(heads·size) queries at positions first, first+1, … over the
// caches kb and vb, with q set.
func attnProgram(b *testing.B, be *Backend, kb, vb accel.Buffer, heads, size, first int, qs []float32,
	p accel.AttentionParams) accel.Program {
	n := len(qs) / (heads * size)
	bld := accel.NewBuilder()
	q, pos := bld.Input("q", quant.F32, n, heads, size), bld.Input("pos", quant.I32, n)
	bld.Output(bld.Attention(q, bld.Buffer(kb), bld.Buffer(vb), pos, p))
	prog := compileBench(b, be, bld)
	ps := make([]int32, n)
	for i := range ps {
		ps[i] = int32(first + i)
	}
	if err := prog.SetFloat32(q, qs); err != nil {
		b.Fatal(err)
	}
	if err := prog.SetInt32(pos, ps); err != nil {
		b.Fatal(err)
	}
	return prog
}

// compileBench builds bld's graph and compiles it on be.
func compileBench(b testing.TB, be *Backend, bld *accel.Builder) accel.Program {
	g, err := bld.Build()
	if err != nil {
		b.Fatal(err)
	}
	prog, err := be.Compile(g, accel.CompileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return prog
}
