package gputest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf/quant"
)

// SameBitsAsCPU pins the property the GPU backends' docs state: every op on the shaders gives the CPU
// backend's float32 results bit for bit (except products with Q2_K, Q3_K and IQ4_XS weights, which only the
// conformance suite's tolerances check). It is what makes a GPU backend (be, called name in messages) pass and
// fail exactly the golden cases the CPU does; if the CPU backend changes how it rounds, the shaders (or this
// test) must follow.
func SameBitsAsCPU(t *testing.T, vb accel.Backend, name string) {
	cb, err := cpu.New(cpu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close()
	sb := &sameBits{cb: cb, vb: vb, name: name, r: rand.New(rand.NewPCG(13, 14)), types: vb.Caps().WeightTypes}
	t.Run("mat_mul", sb.matMul)
	t.Run("get_rows", sb.getRows)
	sb.elementwise(t)
	t.Run("rope", sb.rope)
	t.Run("kv_store", sb.kvStore)
	t.Run("attention", sb.attention)
	t.Run("short_conv", sb.shortConv)
	t.Run("moe", sb.moe)
}

// sameBits compares a GPU backend (vb, called name) with the CPU backend (cb) on the same random inputs from r,
// for the weight types the GPU backend uploads.
type sameBits struct {
	cb, vb accel.Backend
	name   string
	r      *rand.Rand
	types  []quant.Type
}

// graphFunc builds one graph on a backend: its output and the values of its F32 and I32 inputs.
type graphFunc func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32)

// normal returns n values from a normal distribution of standard deviation sd.
func (sb *sameBits) normal(n int, sd float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(sb.r.NormFloat64() * sd)
	}
	return v
}

// upload uploads a weight named "w" to be.
func (sb *sameBits) upload(t *testing.T, be accel.Backend, typ quant.Type, shape []int, data []byte) accel.Weight {
	w, err := be.Upload(accel.WeightData{Name: "w", Type: typ, Shape: shape, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// same builds the graph on both backends with the same inputs and compares the outputs bit for bit.
func (sb *sameBits) same(t *testing.T, what string, build graphFunc) {
	t.Helper()
	var res [2][]float32
	for k, be := range []accel.Backend{sb.cb, sb.vb} {
		g := accel.NewBuilder()
		out, f32, i32 := build(be, g)
		g.Output(out)
		gr, err := g.Build()
		if err != nil {
			t.Fatal(err)
		}
		p, err := be.Compile(gr, accel.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for in, v := range f32 {
			p.SetFloat32(in, v)
		}
		for in, v := range i32 {
			p.SetInt32(in, v)
		}
		if err := p.Run(); err != nil {
			t.Fatal(err)
		}
		res[k] = make([]float32, accel.Elements(g.Shape(out)))
		if err := p.Read(out, res[k]); err != nil {
			t.Fatal(err)
		}
		p.Close()
	}
	bad := 0
	for i := range res[0] {
		if math.Float32bits(res[0][i]) != math.Float32bits(res[1][i]) && !(res[0][i] == 0 && res[1][i] == 0) {
			if bad < 3 {
				t.Errorf("%s [%d]: %s %g (%#x), CPU %g (%#x)", what, i, sb.name, res[1][i], math.Float32bits(res[1][i]), res[0][i], math.Float32bits(res[0][i]))
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values differ", what, bad, len(res[0]))
	}
}

// matMul compares products with every weight type whose product is exact, mat-vecs and tiles.
func (sb *sameBits) matMul(t *testing.T) {
	for _, typ := range sb.types {
		if typ == quant.Q2_K || typ == quant.Q3_K || typ == quant.IQ4_XS {
			continue
		}
		shapes := [][3]int{{1, 96, 2048}, {3, 40, 512}, {17, 33, 256}}
		if typ.BlockElems() == 1 { // float rows whose length leaves elements after the last 64 (and 16)
			shapes = append(shapes, [3]int{1, 12, 172}, [3]int{5, 12, 88}, [3]int{2, 8, 120})
		}
		for _, s := range shapes {
			n, rows, cols := s[0], s[1], s[2]
			data := RandomBlocks(t, typ, rows*cols/typ.BlockElems(), sb.r)
			x := sb.normal(n*cols, 1)
			sb.same(t, fmt.Sprintf("%s %v", typ, s), func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32) {
				in := g.Input("x", accel.F32, n, cols)
				return g.MatMul(g.Weight(sb.upload(t, be, typ, []int{rows, cols}, data)), in), map[accel.Tensor][]float32{in: x}, nil
			})
		}
		if typ == quant.BF16 {
			sb.matMulBF16Edges(t)
		}
	}
}

// matMulBF16Edges compares BF16 products where VDPBF16PS's flushes show (quant.BF16MulAdd): denormal weights
// meeting large activations and the reverse, at the same elements of every row, and rows whose sums cross
// 2^-126.
func (sb *sameBits) matMulBF16Edges(t *testing.T) {
	const n, rows, cols = 3, 8, 192
	r := sb.r
	bf := func(e0, ne int) uint16 { return uint16(r.IntN(2))<<15 | uint16(e0+r.IntN(ne))<<7 | uint16(r.IntN(128)) }
	for _, tiny := range []bool{false, true} {
		data, x := make([]byte, 2*rows*cols), make([]float32, n*cols)
		for k := 0; k < cols; k++ {
			kind := r.IntN(10)
			for i := 0; i < rows; i++ {
				h := bf(120, 15)
				switch {
				case tiny:
					h = bf(58, 13) // products 2^-138 … 2^-112
				case kind < 2:
					h = uint16(r.IntN(2))<<15 | uint16(1+r.IntN(127)) // denormal
				case kind < 4:
					h = bf(220, 21)
				}
				data[2*(i*cols+k)], data[2*(i*cols+k)+1] = byte(h), byte(h>>8)
			}
			for j := 0; j < n; j++ {
				h := bf(120, 15)
				switch {
				case tiny:
					h = bf(58, 13)
				case kind < 2:
					h = bf(220, 21)
				case kind < 4:
					h = uint16(r.IntN(2))<<15 | uint16(1+r.IntN(127))
				}
				x[j*cols+k] = quant.BF16ToF32(h)
			}
		}
		sb.same(t, fmt.Sprintf("BF16 denormals (tiny sums %v)", tiny), func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32) {
			in := g.Input("x", accel.F32, n, cols)
			return g.MatMul(g.Weight(sb.upload(t, be, quant.BF16, []int{rows, cols}, data)), in), map[accel.Tensor][]float32{in: x}, nil
		})
	}
}

// getRows compares row lookups in every weight type.
func (sb *sameBits) getRows(t *testing.T) {
	for _, typ := range sb.types {
		data := RandomBlocks(t, typ, 7*256/typ.BlockElems(), sb.r)
		ids := []int32{6, 0, 3, 3}
		sb.same(t, typ.String(), func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32) {
			in := g.Input("ids", accel.I32, len(ids))
			return g.GetRows(g.Weight(sb.upload(t, be, typ, []int{7, 256}, data)), in), nil, map[accel.Tensor][]int32{in: ids}
		})
	}
}

// elementwise compares the elementwise ops and norms, each a subtest of t.
func (sb *sameBits) elementwise(t *testing.T) {
	unary := []struct {
		name string
		f    func(g *accel.Builder, x, y accel.Tensor) accel.Tensor
		sd   float64
	}{
		{"add", (*accel.Builder).Add, 3}, {"mul", (*accel.Builder).Mul, 3},
		{"scale", func(g *accel.Builder, x, _ accel.Tensor) accel.Tensor { return g.Scale(x, 0.37) }, 3},
		{"rms_norm", func(g *accel.Builder, x, _ accel.Tensor) accel.Tensor { return g.RMSNorm(x, 1e-6) }, 3},
		{"layer_norm", func(g *accel.Builder, x, _ accel.Tensor) accel.Tensor { return g.LayerNorm(x, 1e-5) }, 3},
		{"softmax", func(g *accel.Builder, x, _ accel.Tensor) accel.Tensor { return g.Softmax(x) }, 5},
		{"silu", func(g *accel.Builder, x, _ accel.Tensor) accel.Tensor { return g.SiLU(x) }, 6},
		{"gelu", func(g *accel.Builder, x, _ accel.Tensor) accel.Tensor { return g.GELU(x) }, 6},
		{"swiglu", (*accel.Builder).SwiGLU, 6}, {"geglu", (*accel.Builder).GeGLU, 6},
		{"softcap", func(g *accel.Builder, x, _ accel.Tensor) accel.Tensor { return g.SoftCap(x, 30) }, 40},
		{"sigmoid", func(g *accel.Builder, x, _ accel.Tensor) accel.Tensor { return g.Sigmoid(x) }, 6},
		{"swiglu_oai", func(g *accel.Builder, x, y accel.Tensor) accel.Tensor { return g.SwiGLUOAI(x, y, 1.702, 7) }, 9},
		{"div_sum", func(g *accel.Builder, x, _ accel.Tensor) accel.Tensor { return g.DivSum(g.Sigmoid(x), 6.103515625e-5) }, 3},
		{"concat", func(g *accel.Builder, x, y accel.Tensor) accel.Tensor { return g.Concat(x, y) }, 1},
	}
	for _, u := range unary {
		t.Run(u.name, func(t *testing.T) {
			for _, s := range [][2]int{{3, 1000}, {17, 64}} {
				a, b := sb.normal(s[0]*s[1], u.sd), sb.normal(s[0]*s[1], 1)
				sb.same(t, fmt.Sprint(s), func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32) {
					x, y := g.Input("a", accel.F32, s[0], s[1]), g.Input("b", accel.F32, s[0], s[1])
					return u.f(g, x, y), map[accel.Tensor][]float32{x: a, y: b}, nil
				})
			}
		})
	}
}

// rope compares RoPE, normal and NeoX, with YaRN and with frequency factors.
func (sb *sameBits) rope(t *testing.T) {
	pos := []int32{0, 7, 300, 4095, 100000}
	for _, p := range []accel.RoPEParams{
		{Mode: accel.RoPENormal, Dims: 64, Base: 10000, FreqScale: 1},
		{Mode: accel.RoPENeoX, Dims: 32, Base: 1e6, FreqScale: 1},
		{Mode: accel.RoPENeoX, Dims: 64, Base: 10000, FreqScale: 0.25, ExtFactor: 1, AttnFactor: 0.9, BetaFast: 32, BetaSlow: 1, OrigCtx: 4096},
	} {
		x := sb.normal(len(pos)*3*80, 1)
		ff := make([]float32, p.Dims/2)
		for i := range ff {
			ff[i] = 1 + 7*sb.r.Float32()
		}
		for _, factors := range []bool{false, true} {
			sb.same(t, fmt.Sprintf("%+v factors %v", p, factors), func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32) {
				in, pt := g.Input("x", accel.F32, len(pos), 3, 80), g.Input("pos", accel.I32, len(pos))
				var ft accel.Tensor
				if factors {
					data := make([]byte, 4*len(ff))
					quant.QuantizeF32(ff, data)
					ft = g.Weight(sb.upload(t, be, quant.F32, []int{len(ff)}, data))
				}
				return g.RoPE(in, pt, p, ft), map[accel.Tensor][]float32{in: x}, map[accel.Tensor][]int32{pt: pos}
			})
		}
	}
}

// kvStore compares cache writes.
func (sb *sameBits) kvStore(t *testing.T) {
	// Rows of odd length (F16 rows then straddle words) and a position given twice (the last write wins).
	for _, cache := range []quant.Type{quant.F16, quant.F32} {
		for _, pos := range [][]int32{{4, 1, 0}, {2, 3, 2}} {
			x := sb.normal(len(pos)*3, 2)
			sb.same(t, fmt.Sprintf("%s at %v", cache, pos), func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32) {
				buf, err := be.NewBuffer(accel.TensorDesc{Name: "c", Type: cache, Shape: []int{5, 1, 3}})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { buf.Close() })
				xt, pt := g.Input("x", accel.F32, len(pos), 1, 3), g.Input("pos", accel.I32, len(pos))
				return g.KVStore(g.Buffer(buf), xt, pt), map[accel.Tensor][]float32{xt: x}, map[accel.Tensor][]int32{pt: pos}
			})
		}
	}
}

// attention compares attention over F16 and F32 caches.
func (sb *sameBits) attention(t *testing.T) {
	// A batch and a single query, in a short context and in one longer than the shader keeps in shared
	// memory; heads of 64, and of 8 and 88 (elements after ggml_vec_dot_f32's last 64-element step).
	for _, c := range []struct {
		ctx  int
		pos  []int32
		size int
	}{{40, []int32{39, 0, 17, 5}, 64}, {40, []int32{37}, 64}, {2100, []int32{2099, 2050}, 64}, {2100, []int32{2099}, 64},
		{40, []int32{39, 3}, 8}, {40, []int32{30}, 88}} {
		const heads, kvHeads = 4, 2
		size := c.size
		ctx := c.ctx
		kv, vv := sb.normal(ctx*kvHeads*size, 1), sb.normal(ctx*kvHeads*size, 1)
		rows := make([]int32, ctx)
		for i := range rows {
			rows[i] = int32(i)
		}
		q := sb.normal(len(c.pos)*heads*size, 2)
		// Every pairing of cache types, as each has a kernel of its own (attention_k16_v32, …).
		for _, caches := range [][2]quant.Type{{quant.F16, quant.F16}, {quant.F32, quant.F32}, {quant.F16, quant.F32}, {quant.F32, quant.F16}} {
			for _, p := range []accel.AttentionParams{{Scale: 0.125}, {Scale: 0.125, Window: 8, SoftCap: 20}} {
				sb.same(t, fmt.Sprintf("ctx %d at %v, %v %+v", ctx, c.pos, caches, p), func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32) {
					kb, err := be.NewBuffer(accel.TensorDesc{Name: "k", Type: caches[0], Shape: []int{ctx, kvHeads, size}})
					if err != nil {
						t.Fatal(err)
					}
					vbuf, err := be.NewBuffer(accel.TensorDesc{Name: "v", Type: caches[1], Shape: []int{ctx, kvHeads, size}})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { kb.Close(); vbuf.Close() })
					ki, vi := g.Input("kin", accel.F32, ctx, kvHeads, size), g.Input("vin", accel.F32, ctx, kvHeads, size)
					rt, pt, qt := g.Input("rows", accel.I32, ctx), g.Input("pos", accel.I32, len(c.pos)), g.Input("q", accel.F32, len(c.pos), heads, size)
					a := g.Attention(qt, g.KVStore(g.Buffer(kb), ki, rt), g.KVStore(g.Buffer(vbuf), vi, rt), pt, p)
					return a, map[accel.Tensor][]float32{ki: kv, vi: vv, qt: q}, map[accel.Tensor][]int32{rt: rows, pt: c.pos}
				})
			}
		}
	}
}

// shortConv compares the paged short convolution.
func (sb *sameBits) shortConv(t *testing.T) {
	// LFM2's 3 taps (fused multiply-adds only) and 25 (16 and 8 products rounded first, then one fused),
	// over a cache of two pages of 8 rows whose table lists them the other way round; tokens near the
	// start (zero cells) and on both sides of the page boundary.
	const rows, d, page = 16, 40, 8
	in := sb.normal(rows*d, 1)
	slots := make([]int32, rows)
	for i := range slots {
		slots[i] = int32(i)
	}
	pos := []int32{0, 2, 7, 8, 9, 15}
	for _, taps := range []int{3, 25} {
		w := sb.normal(d*taps, 0.5)
		sb.same(t, fmt.Sprintf("%d taps", taps), func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32) {
			buf, err := be.NewBuffer(accel.TensorDesc{Name: "conv", Type: quant.F32, Shape: []int{rows, 1, d}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { buf.Close() })
			data := make([]byte, 4*len(w))
			quant.QuantizeF32(w, data)
			xt, st := g.Input("in", accel.F32, rows, 1, d), g.Input("slots", accel.I32, rows)
			pt, qt, tt := g.Input("pos", accel.I32, len(pos)), g.Input("seq", accel.I32, len(pos)), g.Input("pages", accel.I32, 1, 2)
			y := g.PagedShortConv(g.KVStore(g.Buffer(buf), xt, st), g.Weight(sb.upload(t, be, quant.F32, []int{d, taps}, data)), pt, qt, tt, page)
			return y, map[accel.Tensor][]float32{xt: in}, map[accel.Tensor][]int32{st: slots, pt: pos, qt: make([]int32, len(pos)),
				tt: {1, 0}}
		})
	}
}

// moe compares the mixture-of-experts ops: the router's chain (softmax, top-k, pick, weighted sum, bias by
// expert), mat_mul_id for every weight type with an exact product, and the families' attention.
func (sb *sameBits) moe(t *testing.T) {
	const n, experts, k, d = 5, 40, 4, 48
	logits, xs := sb.normal(n*experts, 2), sb.normal(n*k*d, 1)
	bias := sb.normal(experts*d, 1)
	sb.same(t, "router", func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32) {
		lt, xt := g.Input("logits", accel.F32, n, experts), g.Input("x", accel.F32, n, k, d)
		probs := g.Softmax(lt)
		ids := g.TopK(probs, k)
		data := make([]byte, 4*len(bias))
		quant.QuantizeF32(bias, data)
		xb := g.AddID(xt, g.Weight(sb.upload(t, be, quant.F32, []int{experts, d}, data)), ids)
		return g.WeightedSum(xb, g.Pick(probs, ids)), map[accel.Tensor][]float32{lt: logits, xt: xs}, nil
	})
	for _, typ := range sb.types {
		if typ != quant.Q2_K && typ != quant.Q3_K && typ != quant.IQ4_XS {
			sb.matMulID(t, typ, n, experts, k)
		}
	}
	sb.attentionMoE(t)
}

// matMulID compares mat_mul_id with weights of type typ, n rows of k slots over the experts: ids per row with
// the input broadcast and per slot, and a matrix per slot without ids.
func (sb *sameBits) matMulID(t *testing.T, typ quant.Type, n, experts, k int) {
	const cols = 256
	for _, out := range []int{24, 20} { // 24 rows: Q4_0 and Q4_K take the repacked order
		data := RandomBlocks(t, typ, experts*out*cols/typ.BlockElems(), sb.r)
		ids := make([]int32, n*k)
		for i := range ids {
			ids[i] = int32(sb.r.IntN(experts))
		}
		for _, perSlot := range []bool{false, true} {
			rows := n
			if perSlot {
				rows = n * k
			}
			x := sb.normal(rows*cols, 1)
			sb.same(t, fmt.Sprintf("mat_mul_id %s out %d per-slot %v", typ, out, perSlot), func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32) {
				var xt accel.Tensor
				if perSlot {
					xt = g.Input("x", accel.F32, n, k, cols)
				} else {
					xt = g.Input("x", accel.F32, n, cols)
				}
				it := g.Input("ids", accel.I32, n, k)
				y := g.MatMulID(g.Weight(sb.upload(t, be, typ, []int{experts, out, cols}, data)), xt, it)
				return y, map[accel.Tensor][]float32{xt: x}, map[accel.Tensor][]int32{it: ids}
			})
		}
		for _, rows := range []int{1, 3} { // a matrix per slot: MatMul's order for one row and for a batch
			heads := 4
			x := sb.normal(rows*heads*cols, 1)
			sb.same(t, fmt.Sprintf("mat_mul_id %s out %d per head, %d rows", typ, out, rows), func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32) {
				xt := g.Input("x", accel.F32, rows, heads, cols)
				w := g.Weight(sb.upload(t, be, typ, []int{heads, out, cols}, data[:len(data)*heads/experts]))
				return g.MatMulID(w, xt, accel.Tensor{}), map[accel.Tensor][]float32{xt: x}, nil
			})
		}
	}
}

// attentionMoE compares the attention of the mixture-of-experts families: with sinks, and latent attention's
// values inside 80-element keys (64 + the leftover 16).
func (sb *sameBits) attentionMoE(t *testing.T) {
	for _, c := range []struct {
		heads, kvHeads, size, vsize int
		sinks, vInK                 bool
		pos                         []int32
	}{{4, 2, 64, 64, true, false, []int32{30, 2, 17}}, {4, 1, 80, 64, false, true, []int32{31, 9}}, {4, 1, 80, 64, false, true, []int32{25}}} {
		const ctx = 32
		for _, cache := range []quant.Type{quant.F16, quant.F32} {
			kv, vv, q, sk := sb.normal(ctx*c.kvHeads*c.size, 1), sb.normal(ctx*c.kvHeads*c.vsize, 1), sb.normal(len(c.pos)*c.heads*c.size, 2), sb.normal(c.heads, 2)
			rows := make([]int32, ctx)
			for i := range rows {
				rows[i] = int32(i)
			}
			sb.same(t, fmt.Sprintf("attention %+v %s", c, cache), func(be accel.Backend, g *accel.Builder) (accel.Tensor, map[accel.Tensor][]float32, map[accel.Tensor][]int32) {
				kb, err := be.NewBuffer(accel.TensorDesc{Name: "k", Type: cache, Shape: []int{ctx, c.kvHeads, c.size}})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { kb.Close() })
				ki, rt := g.Input("kin", accel.F32, ctx, c.kvHeads, c.size), g.Input("rows", accel.I32, ctx)
				pt, qt := g.Input("pos", accel.I32, len(c.pos)), g.Input("q", accel.F32, len(c.pos), c.heads, c.size)
				kt := g.KVStore(g.Buffer(kb), ki, rt)
				vt := kt
				f32 := map[accel.Tensor][]float32{ki: kv, qt: q}
				p := accel.AttentionParams{Scale: 0.1}
				if c.vInK {
					p.VSize = c.vsize
				} else {
					vb, err := be.NewBuffer(accel.TensorDesc{Name: "v", Type: cache, Shape: []int{ctx, c.kvHeads, c.vsize}})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { vb.Close() })
					vi := g.Input("vin", accel.F32, ctx, c.kvHeads, c.vsize)
					vt = g.KVStore(g.Buffer(vb), vi, rt)
					f32[vi] = vv
				}
				if c.sinks {
					st := g.Input("sinks", accel.F32, c.heads)
					p.Sinks = st
					f32[st] = sk
				}
				return g.Attention(qt, kt, vt, pt, p), f32, map[accel.Tensor][]int32{rt: rows, pt: c.pos}
			})
		}
	}
}
