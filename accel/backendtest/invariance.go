package backendtest

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// Invariance checks batch invariance: every op gives a row the same bits however the row is batched — alone,
// with the other rows of its batch in any number and order, split into several runs, among unrelated rows
// (enough of them to take a backend's batched kernels) — and on every backend given (a CPU backend with other
// thread counts, say). A row computed alone on the first backend is the reference for every other way. The
// backends must have the same Caps; the caller closes them.
//
// The ops are checked one at a time, each on the rows of its own batch: MatMul for every weight type of the
// Caps in shapes that take each of their orders (row lengths with and without elements past the last vector,
// row counts with and without the multiples of 4 and 8 the repacked and tiled orders need), attention over F32
// and F16 caches (head sizes of the vector kernels and others, grouped queries, a window and soft-capping,
// queries at any positions), and the per-row ops (norms, softmax, activations, RoPE).
func Invariance(t *testing.T, backends ...accel.Backend) {
	if len(backends) == 0 {
		t.Fatal("no backend")
	}
	t.Run("mat_mul", func(t *testing.T) {
		for _, typ := range backends[0].Caps().WeightTypes {
			for _, s := range invMatShapes(typ) {
				in, out := s[0], s[1]
				t.Run(fmt.Sprintf("%s/%dx%d", typ, out, in), func(t *testing.T) {
					r := invRand(t)
					data := (&env{t: t, be: backends[0], rng: r}).quantData(typ, out, in)
					newRows(t, r, backends, in, out, func(e *env, g *graph, x accel.Tensor, _ []int) accel.Tensor {
						return g.b.MatMul(g.b.Weight(e.weight("w", typ, []int{out, in}, data)), x)
					})
				})
			}
		}
	})
	t.Run("rows", func(t *testing.T) {
		for _, c := range invRowOps {
			t.Run(c.name, func(t *testing.T) {
				newRows(t, invRand(t), backends, c.in, c.out, c.f)
			})
		}
	})
	t.Run("attention", func(t *testing.T) {
		for _, c := range invAttnCases {
			for _, cache := range []accel.DType{quant.F32, quant.F16} {
				t.Run(fmt.Sprintf("%s/%s", c.name, cache), func(t *testing.T) { invAttention(t, backends, c, cache) })
			}
		}
	})
}

// invMatShapes are (in, out) pairs: rows of a few vectors and of more, with and without a tail past the last
// 64 (float types), row counts that are multiples of 8, of 4 only, and neither.
func invMatShapes(typ accel.DType) [][2]int {
	s := [][2]int{{256, 24}, {512, 20}, {256, 13}}
	switch be := typ.BlockElems(); {
	case be == 1:
		s = append(s, [2]int{88, 16}, [2]int{172, 12}, [2]int{64, 9})
	case be <= 32:
		s = append(s, [2]int{96, 16}, [2]int{160, 10})
	}
	if testing.Short() {
		s = s[:2]
	}
	return s
}

func invRand(t *testing.T) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(t.Name()))
	return rand.New(rand.NewPCG(h.Sum64(), 2))
}

func normalRows(r *rand.Rand, n int, sd float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64() * sd)
	}
	return v
}

// invTargets and invCompanions: the rows whose results are compared, and rows that keep them company.
const (
	invTargets    = 5
	invCompanions = 23
)

// batching is one way of computing the target rows: runs of rows, each entry a target (≥ 0) or a companion
// (-1 - index).
type batching struct {
	name string
	runs [][]int
}

func batchings() []batching {
	all := []int{0, 1, 2, 3, 4}
	var mixed []int
	for i := 0; i < invCompanions; i++ {
		mixed = append(mixed, -1-i)
		if i%5 == 2 && len(all) > 0 {
			mixed, all = append(mixed, all[0]), all[1:]
		}
	}
	mixed = append(mixed, all...)
	return []batching{
		{"together", [][]int{{0, 1, 2, 3, 4}}},
		{"reversed", [][]int{{4, 3, 2, 1, 0}}},
		{"split", [][]int{{0, 1}, {2}, {3, 4}}},
		{"with companions", [][]int{mixed}},
		{"after companions", [][]int{{-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, 0, 1, 2, 3, 4}}},
	}
}

// newRows runs op on rows of in values (keys: which target or companion each row is, for ops that take more than
// the row, as RoPE its position): the targets alone on the first backend (the reference), then every batching
// on every backend, and compares the targets' out values bit for bit.
func newRows(t *testing.T, r *rand.Rand, backends []accel.Backend, in, out int,
	op func(e *env, g *graph, x accel.Tensor, keys []int) accel.Tensor) {
	t.Helper()
	targets, companions := normalRows(r, invTargets*in, 1), normalRows(r, invCompanions*in, 3)
	row := func(k int) []float32 {
		if k >= 0 {
			return targets[k*in : (k+1)*in]
		}
		return companions[(-1-k)*in : (-k)*in]
	}
	compute := func(be accel.Backend, rows []int) [][]float32 {
		e := &env{t: t, be: be, rng: r}
		var x []float32
		for _, k := range rows {
			x = append(x, row(k)...)
		}
		g := e.graph()
		y := g.run(op(e, g, g.inputF32("x", x, len(rows), in), rows))[0]
		res := make([][]float32, len(rows))
		for i := range rows {
			res[i] = y[i*out : (i+1)*out]
		}
		return res
	}
	ref := make([][]float32, invTargets)
	for k := range ref {
		ref[k] = compute(backends[0], []int{k})[0]
	}
	for bi, be := range backends {
		for _, b := range batchings() {
			for _, run := range b.runs {
				got := compute(be, run)
				for i, k := range run {
					if k >= 0 {
						sameBits(t, fmt.Sprintf("backend %d, %s: row %d", bi, b.name, k), got[i], ref[k])
					}
				}
			}
		}
	}
}

// sameBits fails t where got and want differ in any bit.
func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Errorf("%s: value %d is %g (%#x), alone %g (%#x)", what, i, got[i], math.Float32bits(got[i]),
				want[i], math.Float32bits(want[i]))
			return
		}
	}
}

// invRowOps are the per-row ops, each on rows of in values giving out values.
var invRowOps = []struct {
	name    string
	in, out int
	f       func(e *env, g *graph, x accel.Tensor, keys []int) accel.Tensor
}{
	{"rms_norm", 200, 200, func(_ *env, g *graph, x accel.Tensor, _ []int) accel.Tensor { return g.b.RMSNorm(x, 1e-6) }},
	{"layer_norm", 200, 200, func(_ *env, g *graph, x accel.Tensor, _ []int) accel.Tensor { return g.b.LayerNorm(x, 1e-5) }},
	{"softmax", 300, 300, func(_ *env, g *graph, x accel.Tensor, _ []int) accel.Tensor { return g.b.Softmax(g.b.Scale(x, 3)) }},
	{"silu", 172, 172, func(_ *env, g *graph, x accel.Tensor, _ []int) accel.Tensor { return g.b.SiLU(x) }},
	{"gelu", 100, 100, func(_ *env, g *graph, x accel.Tensor, _ []int) accel.Tensor { return g.b.GELU(x) }},
	{"swiglu", 344, 172, func(_ *env, g *graph, x accel.Tensor, _ []int) accel.Tensor {
		return g.b.SwiGLU(g.b.Slice(x, 0, 172), g.b.Slice(x, 172, 172))
	}},
	{"geglu", 200, 100, func(_ *env, g *graph, x accel.Tensor, _ []int) accel.Tensor {
		return g.b.GeGLU(g.b.Slice(x, 0, 100), g.b.Slice(x, 100, 100))
	}},
	{"softcap", 64, 64, func(_ *env, g *graph, x accel.Tensor, _ []int) accel.Tensor { return g.b.SoftCap(g.b.Scale(x, 20), 30) }},
	{"add_mul", 96, 96, func(e *env, g *graph, x accel.Tensor, _ []int) accel.Tensor {
		w := g.b.Weight(e.f32Weight("w", []int{96}, normalRows(rand.New(rand.NewPCG(3, 4)), 96, 1)))
		return g.b.Add(g.b.Mul(x, w), x)
	}},
	// Each row has its own position (from its key), up to 4000.
	{"rope", 3 * 80, 3 * 80, func(_ *env, g *graph, x accel.Tensor, keys []int) accel.Tensor {
		pos := make([]int32, len(keys))
		for i, k := range keys {
			pos[i] = int32((k+invCompanions)*977%4000 + 3)
		}
		xs := g.b.Reshape(x, len(keys), 3, 80)
		return g.b.Reshape(g.b.RoPE(xs, g.inputI32("pos", pos), accel.RoPEParams{Mode: accel.RoPENeoX, Dims: 64,
			Base: 1e6, FreqScale: 1}, accel.Tensor{}), len(keys), 3*80)
	}},
}

// invAttnCase is an attention shape; the queries attend to a cache of ctx rows filled in the same run.
type invAttnCase struct {
	name                        string
	heads, kvHeads, size, vsize int
	ctx                         int
	window                      int
	softCap                     float32
}

var invAttnCases = []invAttnCase{
	{name: "gqa-64", heads: 4, kvHeads: 2, size: 64, vsize: 64, ctx: 100},
	{name: "mha-80", heads: 3, kvHeads: 3, size: 80, vsize: 80, ctx: 70},
	{name: "head-8", heads: 8, kvHeads: 4, size: 8, vsize: 8, ctx: 90},
	{name: "window-softcap", heads: 4, kvHeads: 1, size: 64, vsize: 64, ctx: 100, window: 8, softCap: 20},
}

// invAttention checks attention queries: a query's result depends on its q, its position and the cache, never
// on the other queries of its batch.
func invAttention(t *testing.T, backends []accel.Backend, c invAttnCase, cache accel.DType) {
	r := invRand(t)
	kv, vv := normalRows(r, c.ctx*c.kvHeads*c.size, 1), normalRows(r, c.ctx*c.kvHeads*c.vsize, 1)
	rows := make([]int32, c.ctx)
	for i := range rows {
		rows[i] = int32(i)
	}
	qsize := c.heads * c.size
	targets, companions := normalRows(r, invTargets*qsize, 2), normalRows(r, invCompanions*qsize, 2)
	tpos := []int32{int32(c.ctx - 1), 0, 17, 63, int32(c.ctx / 2)}
	cpos := make([]int32, invCompanions)
	for i := range cpos {
		cpos[i] = int32(r.IntN(c.ctx))
	}
	p := accel.AttentionParams{Scale: float32(1 / math.Sqrt(float64(c.size))), SoftCap: c.softCap, Window: c.window}
	compute := func(be accel.Backend, sel []int) [][]float32 {
		e := &env{t: t, be: be, rng: r}
		var q []float32
		var pos []int32
		for _, k := range sel {
			if k >= 0 {
				q, pos = append(q, targets[k*qsize:(k+1)*qsize]...), append(pos, tpos[k])
			} else {
				q, pos = append(q, companions[(-1-k)*qsize:(-k)*qsize]...), append(pos, cpos[-1-k])
			}
		}
		g := e.graph()
		kt := g.b.KVStore(g.b.Buffer(e.buffer("k", cache, c.ctx, c.kvHeads, c.size)),
			g.inputF32("kin", kv, c.ctx, c.kvHeads, c.size), g.inputI32("kpos", rows))
		vt := g.b.KVStore(g.b.Buffer(e.buffer("v", cache, c.ctx, c.kvHeads, c.vsize)),
			g.inputF32("vin", vv, c.ctx, c.kvHeads, c.vsize), g.inputI32("vpos", rows))
		y := g.run(g.b.Attention(g.inputF32("q", q, len(sel), c.heads, c.size), kt, vt, g.inputI32("pos", pos), p))[0]
		out := c.heads * c.vsize
		res := make([][]float32, len(sel))
		for i := range sel {
			res[i] = y[i*out : (i+1)*out]
		}
		return res
	}
	ref := make([][]float32, invTargets)
	for k := range ref {
		ref[k] = compute(backends[0], []int{k})[0]
	}
	for bi, be := range backends {
		for _, b := range batchings() {
			for _, run := range b.runs {
				got := compute(be, run)
				for i, k := range run {
					if k >= 0 {
						sameBits(t, fmt.Sprintf("backend %d, %s: query %d at %d", bi, b.name, k, tpos[k]), got[i], ref[k])
					}
				}
			}
		}
	}
}
