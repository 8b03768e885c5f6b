package backendtest

import (
	"fmt"
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// ropeCases: both layouts, partial rotary dimensions, frequency factors, YaRN, linear scaling, the head sizes
// of common models and small ones.
var ropeCases = []struct {
	name        string
	heads, size int
	p           accel.RoPEParams
	factors     bool
}{
	{"normal", 4, 64, accel.RoPEParams{Mode: accel.RoPENormal, Dims: 64, Base: 10000, FreqScale: 1}, false},
	{"neox", 2, 128, accel.RoPEParams{Mode: accel.RoPENeoX, Dims: 128, Base: 1e6, FreqScale: 1}, false},
	{"neox-partial", 3, 80, accel.RoPEParams{Mode: accel.RoPENeoX, Dims: 32, Base: 10000, FreqScale: 1}, false},
	{"normal-partial", 2, 16, accel.RoPEParams{Mode: accel.RoPENormal, Dims: 8, Base: 500, FreqScale: 1}, false},
	{"factors", 2, 64, accel.RoPEParams{Mode: accel.RoPENeoX, Dims: 64, Base: 500000, FreqScale: 1}, true},
	{"linear", 1, 8, accel.RoPEParams{Mode: accel.RoPENormal, Dims: 8, Base: 10000, FreqScale: 0.25, AttnFactor: 1}, false},
	{"yarn", 2, 64, accel.RoPEParams{Mode: accel.RoPENeoX, Dims: 64, Base: 10000, FreqScale: 0.25, ExtFactor: 1,
		AttnFactor: 0.9, BetaFast: 32, BetaSlow: 1, OrigCtx: 4096}, false},
	{"yarn-normal-factors", 2, 32, accel.RoPEParams{Mode: accel.RoPENormal, Dims: 32, Base: 10000, FreqScale: 0.5,
		ExtFactor: 0.5, AttnFactor: 1, BetaFast: 32, BetaSlow: 1, OrigCtx: 2048}, true},
}

func testRoPE(e *env) {
	for _, c := range ropeCases {
		for _, pos := range [][]int32{{0}, {5, 6, 7, 8, 9}, {3000, 17, 1, 250}} {
			n := len(pos)
			x := e.normal(n*c.heads*c.size, 1)
			g := e.graph()
			var ff []float32
			var fft accel.Tensor
			if c.factors {
				ff = e.uniform(c.p.Dims/2, 1, 8)
				fft = g.b.Weight(e.f32Weight("rope_freqs", []int{c.p.Dims / 2}, ff))
			}
			got := g.run(g.b.RoPE(g.inputF32("x", x, n, c.heads, c.size), g.inputI32("pos", pos), c.p, fft))[0]
			want, tol := newRoPERef(c.p, ff).apply(x, pos, c.heads, c.size)
			expect(e.t, fmt.Sprintf("rope %s at %v", c.name, pos), got, want, func(i int) float64 { return tol[i] })
		}
	}
}

// testKVStore writes rows at scattered positions in two runs and reads the whole cache back: written rows are
// the converted values, the others keep what they had.
func testKVStore(e *env) {
	for _, typ := range []accel.DType{quant.F16, quant.F32} {
		const ctx, heads, size = 12, 2, 8
		buf := e.buffer("cache", typ, ctx, heads, size)
		want := make([]float64, ctx*heads*size)
		for _, pos := range [][]int32{{4, 5, 6}, {0, 11, 5}} {
			x := e.normal(len(pos)*heads*size, 3)
			g := e.graph()
			got := g.run(g.b.KVStore(g.b.Buffer(buf), g.inputF32("x", x, len(pos), heads, size), g.inputI32("pos", pos)))[0]
			for i, p := range pos {
				for j := 0; j < heads*size; j++ {
					v := x[i*heads*size+j]
					if typ == quant.F16 {
						v = f16Round(v)
					}
					want[int(p)*heads*size+j] = float64(v)
				}
			}
			expect(e.t, fmt.Sprintf("%s cache after storing at %v", typ, pos), got, want, exact)
		}
	}
}

// attnCases cover grouped-query ratios 1, 2 and 4, head sizes from 8 to 128 (and a V head size of its own),
// sliding windows and soft-capping.
var attnCases = []struct {
	name                     string
	heads, kvHeads           int
	size, vsize, ctx, window int
	softCap                  float32
}{
	{"mha", 4, 4, 8, 8, 12, 0, 0},
	{"gqa2-64", 4, 2, 64, 64, 20, 0, 0},
	{"gqa4-128", 8, 2, 128, 128, 10, 0, 0},
	{"gqa2-80-window", 4, 2, 80, 80, 16, 3, 0},
	{"softcap", 2, 1, 16, 16, 10, 0, 50},
	{"window-softcap-vsize", 4, 1, 16, 24, 14, 5, 20},
}

func testAttention(e *env) {
	testPagedAttention(e)
	testAttentionVariants(e)
	cases := attnCases
	if e.short {
		cases = cases[:4]
	}
	for _, c := range cases {
		for _, cache := range []accel.DType{quant.F16, quant.F32} {
			for _, pos := range [][]int32{{0}, {7, 8, 9}, {int32(c.ctx - 1), 3, 11 % int32(c.ctx), 1, 5}} {
				name := fmt.Sprintf("%s %s cache, positions %v", c.name, cache, pos)
				p := accel.AttentionParams{Scale: float32(1 / math.Sqrt(float64(c.size))), SoftCap: c.softCap, Window: c.window}
				runAttention(e, name, c.heads, c.kvHeads, c.size, c.vsize, c.ctx, cache, p, pos)
			}
		}
	}
}

// runAttention fills both caches in the same graph (all ctx rows, stored in shuffled order) and attends q.
func runAttention(e *env, name string, heads, kvHeads, size, vsize, ctx int, cache accel.DType, p accel.AttentionParams, pos []int32) {
	kv, vv := e.normal(ctx*kvHeads*size, 1), e.normal(ctx*kvHeads*vsize, 1)
	q := e.normal(len(pos)*heads*size, 2)
	order := make([]int32, ctx)
	for i, j := range e.rng.Perm(ctx) {
		order[i] = int32(j)
	}
	// Row i of the k/v inputs goes to cache row order[i].
	kin, vin := make([]float32, len(kv)), make([]float32, len(vv))
	for i, r := range order {
		copy(kin[i*kvHeads*size:(i+1)*kvHeads*size], kv[int(r)*kvHeads*size:])
		copy(vin[i*kvHeads*vsize:(i+1)*kvHeads*vsize], vv[int(r)*kvHeads*vsize:])
	}
	g := e.graph()
	kt := g.b.KVStore(g.b.Buffer(e.buffer("k", cache, ctx, kvHeads, size)), g.inputF32("kin", kin, ctx, kvHeads, size), g.inputI32("kpos", order))
	vt := g.b.KVStore(g.b.Buffer(e.buffer("v", cache, ctx, kvHeads, vsize)), g.inputF32("vin", vin, ctx, kvHeads, vsize), g.inputI32("vpos", order))
	got := g.run(g.b.Attention(g.inputF32("q", q, len(pos), heads, size), kt, vt, g.inputI32("pos", pos), p))[0]
	f16 := cache == quant.F16
	if f16 {
		for i := range kv {
			kv[i] = f16Round(kv[i])
		}
		for i := range vv {
			vv[i] = f16Round(vv[i])
		}
	}
	ref := &attnRef{p: p, kF16: f16, vF16: f16, heads: heads, kvHeads: kvHeads, size: size, vsize: vsize, k: kv, v: vv}
	want, tol := ref.apply(q, pos)
	expect(e.t, "attention "+name, got, want, func(i int) float64 { return tol[i] })
}

// pagedCases: sequences of several lengths in shuffled pages of a shared cache, their queries in runs (as a
// scheduler batches them), head sizes that take the CPU's lane kernels (multiples of 16) and those that do not.
var pagedCases = []struct {
	name           string
	heads, kvHeads int
	size, vsize    int
	page, window   int
	lens           []int   // cells of each sequence
	queries        [][]int // per run of queries: the sequence, then its positions
}{
	{"gqa2-16", 4, 2, 16, 16, 4, 0, []int{9, 3, 14}, [][]int{{0, 8}, {2, 11, 12, 13}, {1, 2}}},
	{"mha-8-window", 2, 2, 8, 8, 8, 5, []int{20, 17}, [][]int{{1, 16}, {0, 3, 19}}},
	{"gqa2-16-window-released", 4, 2, 16, 16, 4, 6, []int{23, 17, 30}, [][]int{{0, 17, 18}, {2, 29}, {1, 16}, {0, 22}}},
	{"gqa4-32", 8, 2, 32, 32, 16, 0, []int{40, 5, 33}, [][]int{{2, 31, 32}, {0, 39}, {1, 0, 1, 2, 3, 4}}},
}

// testPagedAttention fills a shared cache with each sequence's cells in the pages its table names (pages in a
// shuffled order, some unused) and attends runs of queries of several sequences in one pass: each query must
// equal attention over its own sequence alone. With a window, the pages behind every query's window are
// released (-1 in the table, as an engine frees a sliding-window layer's old pages): nothing may read them.
func testPagedAttention(e *env) {
	for _, c := range pagedCases {
		for _, cache := range []accel.DType{quant.F16, quant.F32} {
			runPagedAttention(e, c.name+" "+cache.String(), c.heads, c.kvHeads, c.size, c.vsize, c.page, c.window, cache, c.lens, c.queries)
		}
	}
}

func runPagedAttention(e *env, name string, heads, kvHeads, size, vsize, page, window int, cache accel.DType, lens []int, runs [][]int) {
	maxPages := 0
	for _, l := range lens {
		maxPages = max(maxPages, (l+page-1)/page)
	}
	pages := len(lens)*maxPages + 2 // spare pages nobody uses
	rows := pages * page
	perm := e.rng.Perm(pages)
	table := make([]int32, len(lens)*maxPages)
	for i := range table {
		table[i] = int32(perm[i])
	}
	// Each sequence's cells, and the rows they are stored at.
	var slots []int32
	var kin, vin []float32
	ks, vs := make([][]float32, len(lens)), make([][]float32, len(lens))
	for q, l := range lens {
		ks[q], vs[q] = e.normal(l*kvHeads*size, 1), e.normal(l*kvHeads*vsize, 1)
		for c := 0; c < l; c++ {
			slots = append(slots, table[q*maxPages+c/page]*int32(page)+int32(c%page))
		}
		kin, vin = append(kin, ks[q]...), append(vin, vs[q]...)
	}
	var seq, pos []int32
	for _, r := range runs {
		for _, p := range r[1:] {
			seq, pos = append(seq, int32(r[0])), append(pos, int32(p))
		}
	}
	n := len(pos)
	attnTable := table
	if window > 0 {
		attnTable = append([]int32(nil), table...)
		for q := range lens {
			first := lens[q]
			for i := range pos {
				if int(seq[i]) == q {
					first = min(first, max(0, int(pos[i])-window+1))
				}
			}
			for j := 0; j < first/page; j++ {
				attnTable[q*maxPages+j] = -1
			}
		}
	}
	q := e.normal(n*heads*size, 2)
	p := accel.AttentionParams{Scale: float32(1 / math.Sqrt(float64(size))), Window: window, PageSize: page}
	g := e.graph()
	kt := g.b.KVStore(g.b.Buffer(e.buffer("k", cache, rows, kvHeads, size)), g.inputF32("kin", kin, len(slots), kvHeads, size), g.inputI32("kslots", slots))
	vt := g.b.KVStore(g.b.Buffer(e.buffer("v", cache, rows, kvHeads, vsize)), g.inputF32("vin", vin, len(slots), kvHeads, vsize), g.inputI32("vslots", slots))
	got := g.run(g.b.PagedAttention(g.inputF32("q", q, n, heads, size), kt, vt, g.inputI32("pos", pos), g.inputI32("seq", seq),
		g.inputI32("pages", attnTable, len(lens), maxPages), p))[0]
	f16 := cache == quant.F16
	want, tol := make([]float64, 0, len(got)), make([]float64, 0, len(got))
	for i := 0; i < n; i++ {
		k, v := append([]float32(nil), ks[seq[i]]...), append([]float32(nil), vs[seq[i]]...)
		if f16 {
			for j := range k {
				k[j] = f16Round(k[j])
			}
			for j := range v {
				v[j] = f16Round(v[j])
			}
		}
		ref := &attnRef{p: p, kF16: f16, vF16: f16, heads: heads, kvHeads: kvHeads, size: size, vsize: vsize, k: k, v: v}
		w, t := ref.apply(q[i*heads*size:(i+1)*heads*size], pos[i:i+1])
		want, tol = append(want, w...), append(tol, t...)
	}
	expect(e.t, "paged attention "+name, got, want, func(i int) float64 { return tol[i] })
}

// testAttentionVariants covers attention sinks (gpt-oss: per head, a logit in the softmax without a value; with
// and without a window) and values inside the keys (multi-head latent attention's one cache: the values are
// each key row's first VSize elements), on both cache types and in the paged form.
func testAttentionVariants(e *env) {
	for _, cache := range []accel.DType{quant.F16, quant.F32} {
		for _, c := range []struct {
			name                        string
			heads, kvHeads, size, vsize int
			window                      int
			sinks, vInK, paged          bool
			pos                         []int32
		}{
			{"sinks", 4, 2, 64, 64, 0, true, false, false, []int32{0, 5, 6, 20}},
			{"sinks-window", 8, 2, 16, 16, 4, true, false, false, []int32{3, 9, 10, 11}},
			{"sinks-paged", 4, 1, 32, 32, 0, true, false, true, []int32{1, 12, 13}},
			{"v-in-k", 4, 1, 48, 32, 0, false, true, false, []int32{0, 7, 8, 9, 23}},
			{"v-in-k-paged", 8, 1, 24, 16, 0, false, true, true, []int32{19, 20, 2}},
		} {
			name := fmt.Sprintf("%s %s cache, positions %v", c.name, cache, c.pos)
			runAttentionVariant(e, name, c.heads, c.kvHeads, c.size, c.vsize, c.window, c.sinks, c.vInK, c.paged, cache, c.pos)
		}
	}
}

// runAttentionVariant stores 24 cells of one sequence (in a paged form: in reversed pages of 8) and attends q.
func runAttentionVariant(e *env, name string, heads, kvHeads, size, vsize, window int, sinks, vInK, paged bool,
	cache accel.DType, pos []int32) {
	const ctx, page = 24, 8
	kv, vv := e.normal(ctx*kvHeads*size, 1), e.normal(ctx*kvHeads*vsize, 1)
	q := e.normal(len(pos)*heads*size, 2)
	slots := make([]int32, ctx)
	table := make([]int32, ctx/page)
	for c := range slots {
		slots[c] = int32(c)
		if paged {
			table[c/page] = int32(ctx/page - 1 - c/page)
			slots[c] = table[c/page]*page + int32(c%page)
		}
	}
	p := accel.AttentionParams{Scale: float32(1 / math.Sqrt(float64(size))), Window: window}
	g := e.graph()
	var sv []float32
	if sinks {
		sv = e.normal(heads, 2)
		p.Sinks = g.b.Weight(e.f32Weight("sinks", []int{heads}, sv))
	}
	kt := g.b.KVStore(g.b.Buffer(e.buffer("k", cache, ctx, kvHeads, size)), g.inputF32("kin", kv, ctx, kvHeads, size), g.inputI32("ks", slots))
	vt := kt
	if vInK {
		p.VSize = vsize
	} else {
		vt = g.b.KVStore(g.b.Buffer(e.buffer("v", cache, ctx, kvHeads, vsize)), g.inputF32("vin", vv, ctx, kvHeads, vsize), g.inputI32("vs", slots))
	}
	qt, pt := g.inputF32("q", q, len(pos), heads, size), g.inputI32("pos", pos)
	var y accel.Tensor
	if paged {
		p.PageSize = page
		seq := make([]int32, len(pos))
		y = g.b.PagedAttention(qt, kt, vt, pt, g.inputI32("seq", seq), g.inputI32("pages", table, 1, len(table)), p)
	} else {
		y = g.b.Attention(qt, kt, vt, pt, p)
	}
	got := g.run(y)[0]
	f16 := cache == quant.F16
	if f16 {
		for i := range kv {
			kv[i] = f16Round(kv[i])
		}
		for i := range vv {
			vv[i] = f16Round(vv[i])
		}
	}
	ref := &attnRef{p: p, kF16: f16, vF16: f16, heads: heads, kvHeads: kvHeads, size: size, vsize: vsize, k: kv, v: vv, sinks: sv}
	if vInK {
		ref.v, ref.vstride = kv, size
	}
	want, tol := ref.apply(q, pos)
	expect(e.t, "attention "+name, got, want, func(i int) float64 { return tol[i] })
}
