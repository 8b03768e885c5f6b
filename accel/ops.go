package accel

import (
	"fmt"
	"slices"

	"github.com/forma-llm/forma/gguf/quant"
)

// Reshape views x's elements with another shape (same count).
func (b *Builder) Reshape(x Tensor, shape ...int) Tensor {
	t, n, ok := b.op(OpReshape, x)
	if !ok {
		return t
	}
	xs := b.shapeOf(x)
	n.Type = b.typeOf(x)
	if !validShape(shape) || Elements(shape) != Elements(xs) {
		return b.fail(t, "cannot reshape %v to %v", xs, shape)
	}
	if be := n.Type.BlockElems(); be > 1 && shape[len(shape)-1]%be != 0 {
		return b.fail(t, "cannot reshape %v %s to %v: rows must be whole %d-element blocks", xs, n.Type, shape, be)
	}
	n.Shape = slices.Clone(shape)
	return t
}

// Rows views rows [start, start+count) of x (along its first dimension).
func (b *Builder) Rows(x Tensor, start, count int) Tensor {
	t, n, ok := b.op(OpRows, x)
	if !ok {
		return t
	}
	xs := b.shapeOf(x)
	n.Type = b.typeOf(x)
	if start < 0 || count <= 0 || start+count > xs[0] {
		return b.fail(t, "rows [%d, %d) of %v", start, start+count, xs)
	}
	if be := n.Type.BlockElems(); be > 1 && start*Elements(xs[1:])%be != 0 {
		return b.fail(t, "rows [%d, %d) of %v %s do not start on a %d-element block", start, start+count, xs, n.Type, be)
	}
	n.I = []int{start, count}
	n.Shape = append([]int{count}, xs[1:]...)
	return t
}

// GetRows looks up rows of table ([rows, d], any weight type) for ids (I32 [n]): result F32 [n, d].
func (b *Builder) GetRows(table, ids Tensor) Tensor {
	t, n, ok := b.op(OpGetRows, table, ids)
	if !ok {
		return t
	}
	ts, is := b.shapeOf(table), b.shapeOf(ids)
	if len(ts) != 2 || len(is) != 1 || b.typeOf(ids) != I32 {
		return b.fail(t, "table %v %s and ids %v %s: want a matrix and I32 ids [n]", ts, b.typeOf(table), is, b.typeOf(ids))
	}
	n.Shape = []int{is[0], ts[1]}
	return t
}

// MatMul multiplies x (F32 [n, in]) by the weight w ([out, in], any weight type), giving F32 [n, out]:
// y[i][o] = Σ_k w[o][k]·x[i][k]. Backends quantize x to w's activation type first, as llama.cpp does.
func (b *Builder) MatMul(w, x Tensor) Tensor {
	t, n, ok := b.op(OpMatMul, w, x)
	if !ok {
		return t
	}
	ws, xs := b.shapeOf(w), b.shapeOf(x)
	if len(ws) != 2 || len(xs) != 2 || ws[1] != xs[1] || b.typeOf(x) != F32 {
		return b.fail(t, "weight %v %s times input %v %s: want [out, in] · F32 [n, in]", ws, b.typeOf(w), xs, b.typeOf(x))
	}
	if ws[1]%b.typeOf(w).BlockElems() != 0 {
		return b.fail(t, "weight row of %d is not a whole number of %s blocks", ws[1], b.typeOf(w))
	}
	n.Shape = []int{xs[0], ws[0]}
	return t
}

// broadcastable reports whether bs equals as or a suffix of it.
func broadcastable(as, bs []int) bool {
	return len(bs) <= len(as) && slices.Equal(as[len(as)-len(bs):], bs)
}

func (b *Builder) binary(op Op, x, y Tensor) Tensor {
	t, n, ok := b.op(op, x, y)
	if !ok {
		return t
	}
	xs, ys := b.shapeOf(x), b.shapeOf(y)
	if b.typeOf(x) != F32 || b.typeOf(y) != F32 || !broadcastable(xs, ys) {
		return b.fail(t, "operands %v %s and %v %s: want F32, the second of the first's shape or a suffix of it",
			xs, b.typeOf(x), ys, b.typeOf(y))
	}
	n.Shape = slices.Clone(xs)
	return t
}

// Add returns x + y; y has x's shape or its trailing dimensions (a bias broadcast over rows).
func (b *Builder) Add(x, y Tensor) Tensor { return b.binary(OpAdd, x, y) }

// Mul returns x ⊙ y; y has x's shape or its trailing dimensions (a norm weight broadcast over rows).
func (b *Builder) Mul(x, y Tensor) Tensor { return b.binary(OpMul, x, y) }

// unary appends an F32 → F32 op of the same shape.
func (b *Builder) unary(op Op, x Tensor, f float32) Tensor {
	t, n, ok := b.op(op, x)
	if !ok {
		return t
	}
	if b.typeOf(x) != F32 {
		return b.fail(t, "operand is %s, want F32", b.typeOf(x))
	}
	n.Shape, n.F = slices.Clone(b.shapeOf(x)), f
	return t
}

// Scale returns x·s.
func (b *Builder) Scale(x Tensor, s float32) Tensor { return b.unary(OpScale, x, s) }

// RMSNorm returns x / sqrt(mean(x²) + eps) over the last dimension (no weight: Mul by it after, as ggml does).
func (b *Builder) RMSNorm(x Tensor, eps float32) Tensor { return b.unary(OpRMSNorm, x, eps) }

// LayerNorm returns (x - mean) / sqrt(var + eps) over the last dimension (no weight or bias).
func (b *Builder) LayerNorm(x Tensor, eps float32) Tensor { return b.unary(OpLayerNorm, x, eps) }

// Softmax returns the softmax of x over the last dimension.
func (b *Builder) Softmax(x Tensor) Tensor { return b.unary(OpSoftmax, x, 0) }

// SiLU returns x·σ(x).
func (b *Builder) SiLU(x Tensor) Tensor { return b.unary(OpSiLU, x, 0) }

// GELU returns the tanh approximation of GELU, as ggml_gelu.
func (b *Builder) GELU(x Tensor) Tensor { return b.unary(OpGELU, x, 0) }

// SoftCap returns c·tanh(x/c).
func (b *Builder) SoftCap(x Tensor, c float32) Tensor {
	t := b.unary(OpSoftCap, x, c)
	if c <= 0 && b.node(t).Shape != nil {
		return b.fail(t, "soft-cap %g must be positive", c)
	}
	return t
}

func (b *Builder) glu(op Op, gate, up Tensor) Tensor {
	t, n, ok := b.op(op, gate, up)
	if !ok {
		return t
	}
	gs, us := b.shapeOf(gate), b.shapeOf(up)
	if b.typeOf(gate) != F32 || b.typeOf(up) != F32 || !slices.Equal(gs, us) {
		return b.fail(t, "gate %v and up %v must be F32 of one shape", gs, us)
	}
	n.Shape = slices.Clone(gs)
	return t
}

// SwiGLU returns silu(gate) ⊙ up.
func (b *Builder) SwiGLU(gate, up Tensor) Tensor { return b.glu(OpSwiGLU, gate, up) }

// GeGLU returns gelu(gate) ⊙ up.
func (b *Builder) GeGLU(gate, up Tensor) Tensor { return b.glu(OpGeGLU, gate, up) }

// Slice copies elements [start, start+count) of the last dimension of x (F32): a fused QKV output split.
func (b *Builder) Slice(x Tensor, start, count int) Tensor {
	t, n, ok := b.op(OpSlice, x)
	if !ok {
		return t
	}
	xs := b.shapeOf(x)
	last := xs[len(xs)-1]
	if b.typeOf(x) != F32 || start < 0 || count <= 0 || start+count > last {
		return b.fail(t, "slice [%d, %d) of %v %s", start, start+count, xs, b.typeOf(x))
	}
	n.I = []int{start, count}
	n.Shape = append(slices.Clone(xs[:len(xs)-1]), count)
	return t
}

// Permute copies x (F32) with its axes reordered: result dimension i is x's dimension axes[i].
func (b *Builder) Permute(x Tensor, axes ...int) Tensor {
	t, n, ok := b.op(OpPermute, x)
	if !ok {
		return t
	}
	xs := b.shapeOf(x)
	seen := make([]bool, len(xs))
	if b.typeOf(x) != F32 || len(axes) != len(xs) {
		return b.fail(t, "permute %v of %v %s", axes, xs, b.typeOf(x))
	}
	n.Shape = make([]int, len(xs))
	for i, a := range axes {
		if a < 0 || a >= len(xs) || seen[a] {
			return b.fail(t, "permute %v of %v: not a permutation", axes, xs)
		}
		seen[a] = true
		n.Shape[i] = xs[a]
	}
	n.I = slices.Clone(axes)
	return t
}

// RoPE rotates x (F32 [n, heads, headSize]) by the positions pos (I32 [n]). factors, if valid, is an F32
// weight [Dims/2] dividing each pair's frequency (llama.cpp's rope_freqs / rope factors).
func (b *Builder) RoPE(x, pos Tensor, p RoPEParams, factors Tensor) Tensor {
	args := []Tensor{x, pos}
	if factors.Valid() {
		args = append(args, factors)
	}
	t, n, ok := b.op(OpRoPE, args...)
	if !ok {
		return t
	}
	xs, ps := b.shapeOf(x), b.shapeOf(pos)
	if len(xs) != 3 || b.typeOf(x) != F32 || len(ps) != 1 || ps[0] != xs[0] || b.typeOf(pos) != I32 {
		return b.fail(t, "x %v %s and positions %v %s: want F32 [n, heads, size] and I32 [n]", xs, b.typeOf(x), ps, b.typeOf(pos))
	}
	if p.Dims <= 0 || p.Dims%2 != 0 || p.Dims > xs[2] || p.Base <= 0 || p.FreqScale <= 0 {
		return b.fail(t, "bad RoPE parameters %+v for head size %d", p, xs[2])
	}
	if factors.Valid() {
		if fs := b.shapeOf(factors); b.typeOf(factors) != F32 || len(fs) != 1 || fs[0] != p.Dims/2 {
			return b.fail(t, "frequency factors %v %s: want F32 [%d]", fs, b.typeOf(factors), p.Dims/2)
		}
	}
	if p.AttnFactor == 0 {
		p.AttnFactor = 1
	}
	n.Shape, n.RoPE = slices.Clone(xs), p
	return t
}

// KVStore writes x (F32 [n, kvHeads, size]) into rows pos (I32 [n]) of cache ([ctx, kvHeads, size] of a
// KVCacheType), converting to the cache's type (Q8_0 and Q4_0 as llama.cpp's CPU backend quantizes a cache row).
// The result stands for the cache after the write: pass it to Attention so the read is ordered after the write.
func (b *Builder) KVStore(cache, x, pos Tensor) Tensor { return b.KVStoreRotated(cache, x, pos, 0) }

// KVStoreRotated is KVStore with each row multiplied first, block by block, by the orthonormal Hadamard matrix
// of size rot (a power of two dividing the head size; 0 for none), as llama.cpp rotates the keys and values of
// a quantized cache (AttentionParams.RotK, RotV).
func (b *Builder) KVStoreRotated(cache, x, pos Tensor, rot int) Tensor {
	t, n, ok := b.op(OpKVStore, cache, x, pos)
	if !ok {
		return t
	}
	cs, xs, ps := b.shapeOf(cache), b.shapeOf(x), b.shapeOf(pos)
	ct := b.typeOf(cache)
	if b.node(cache).Op != OpBuffer && b.node(cache).Op != OpKVStore {
		return b.fail(t, "the cache must be a buffer")
	}
	if !IsKVCacheType(ct) || len(cs) != 3 || len(xs) != 3 || !slices.Equal(cs[1:], xs[1:]) ||
		b.typeOf(x) != F32 || len(ps) != 1 || ps[0] != xs[0] || b.typeOf(pos) != I32 {
		return b.fail(t, "cache %v %s, x %v %s, positions %v: want F16/F32/Q8_0/Q4_0 [ctx, heads, size], F32 [n, heads, size], I32 [n]",
			cs, ct, xs, b.typeOf(x), ps)
	}
	if err := CheckKVCache(ct, cs[2]); err != nil {
		return b.fail(t, "%v", err)
	}
	if !validRotation(rot, cs[2]) {
		return b.fail(t, "rotation size %d does not divide the head size %d in powers of two", rot, cs[2])
	}
	if rot > 0 {
		n.I = []int{rot}
	}
	n.Type, n.Shape = ct, slices.Clone(cs)
	return t
}

// Attention computes grouped-query attention of q (F32 [n, heads, size]) over the caches k ([ctx, kvHeads,
// size]) and v ([ctx, kvHeads, vsize]), F16 or F32, or, with p.Flash, any KVCacheType. Query i attends to cache
// rows 0…pos[i] (I32 [n]; within p.Window, if set): pos[i] is the last cell it sees, its own position for causal
// attention, the last cell of its sequence for an encoder's. Query head h reads kv head h/(heads/kvHeads). The
// result is F32 [n, heads·vsize].
func (b *Builder) Attention(q, k, v, pos Tensor, p AttentionParams) Tensor {
	t, n, ok := b.op(OpAttention, withSinks([]Tensor{q, k, v, pos}, p)...)
	if !ok {
		return t
	}
	if p.PageSize != 0 {
		return b.fail(t, "a page size needs PagedAttention")
	}
	return b.checkAttention(t, n, p)
}

// PagedAttention is Attention over a cache that several sequences share in pages of p.PageSize rows. Query i
// belongs to sequence seq[i] (I32 [n], a row of pages); that sequence's cell c — the key and value at position
// c — is cache row pages[seq[i]][c/PageSize]·PageSize + c%PageSize (pages: I32 [seqs, maxPages]). Query i
// attends to its own sequence's cells 0…pos[i] (within p.Window; pos[i] is the last cell it sees, as for
// Attention), in position order, so its result does not depend on where the pages lie or on the other queries
// of the batch.
func (b *Builder) PagedAttention(q, k, v, pos, seq, pages Tensor, p AttentionParams) Tensor {
	t, n, ok := b.op(OpAttention, withSinks([]Tensor{q, k, v, pos, seq, pages}, p)...)
	if !ok {
		return t
	}
	qs, ks, ss, ps := b.shapeOf(q), b.shapeOf(k), b.shapeOf(seq), b.shapeOf(pages)
	if p.PageSize <= 0 {
		return b.fail(t, "page size %d must be positive", p.PageSize)
	}
	if len(ss) != 1 || len(qs) < 1 || ss[0] != qs[0] || b.typeOf(seq) != I32 || len(ps) != 2 || b.typeOf(pages) != I32 {
		return b.fail(t, "sequences %v %s and pages %v %s: want I32 [n] and I32 [seqs, maxPages]", ss, b.typeOf(seq), ps, b.typeOf(pages))
	}
	if p.PageSize <= 0 || len(ks) < 1 || ks[0]%p.PageSize != 0 {
		return b.fail(t, "page size %d does not divide the cache's %v rows", p.PageSize, ks)
	}
	return b.checkAttention(t, n, p)
}

// IsKVCacheType reports whether t can be a KV cache's element type: F32, F16, Q8_0 or Q4_0 (llama.cpp's -ctk/-ctv
// choices that its CPU flash attention reads).
func IsKVCacheType(t DType) bool { return t == F32 || t == F16 || t == quant.Q8_0 || t == quant.Q4_0 }

// CheckKVCache returns an error naming the problem when a cache of type t cannot hold heads of size elements:
// t is not a KVCacheType, or t is quantized and size is not a whole number of its blocks (each head's row is
// quantized on its own, as llama.cpp's per-head views of the cache require).
func CheckKVCache(t DType, size int) error {
	if !IsKVCacheType(t) {
		return fmt.Errorf("KV cache type %s is not supported (f32, f16, q8_0 or q4_0)", t)
	}
	if bs := t.BlockElems(); size <= 0 || size%bs != 0 {
		return fmt.Errorf("a %s KV cache needs a head size that is a multiple of %d, not %d", t, bs, size)
	}
	return nil
}

// validRotation reports whether rot is 0 or a power of two dividing size.
func validRotation(rot, size int) bool {
	return rot == 0 || rot > 0 && rot&(rot-1) == 0 && size%rot == 0
}

// KVRotation returns llama.cpp's attention rotation size for a cache of type t and heads of size elements
// (0 for none): a quantized cache rotates when the head size is a multiple of 64, the keys by the largest power
// of two dividing it, the values by 64.
func KVRotation(t DType, size int, keys bool) int {
	if t.BlockElems() == 1 || size <= 0 || size%64 != 0 {
		return 0
	}
	if !keys {
		return 64
	}
	n := 64
	for size%(2*n) == 0 {
		n *= 2
	}
	return n
}

// checkAttention checks the operands q, k, v and pos common to both forms and sets the result's shape.
func (b *Builder) checkAttention(t Tensor, n *Node, p AttentionParams) Tensor {
	q, k, v, pos := n.Args[0], n.Args[1], n.Args[2], n.Args[3]
	qs, ks, vs, ps := b.shapeOf(q), b.shapeOf(k), b.shapeOf(v), b.shapeOf(pos)
	kt, vt := b.typeOf(k), b.typeOf(v)
	if len(qs) != 3 || len(ks) != 3 || len(vs) != 3 || b.typeOf(q) != F32 || !IsKVCacheType(kt) ||
		!IsKVCacheType(vt) || len(ps) != 1 || ps[0] != qs[0] || b.typeOf(pos) != I32 {
		return b.fail(t, "q %v, k %v %s, v %v %s, positions %v: want F32 [n, heads, size], caches [ctx, kvHeads, size], I32 [n]",
			qs, ks, kt, vs, vt, ps)
	}
	for _, c := range []struct {
		t    DType
		size int
	}{{kt, ks[2]}, {vt, vs[2]}} {
		if err := CheckKVCache(c.t, c.size); err != nil {
			return b.fail(t, "%v", err)
		}
		if c.t.BlockElems() > 1 && !p.Flash {
			return b.fail(t, "a %s KV cache needs flash attention (AttentionParams.Flash), as in llama.cpp", c.t)
		}
	}
	if qs[2] != ks[2] || ks[0] != vs[0] || ks[1] != vs[1] || qs[1]%ks[1] != 0 {
		return b.fail(t, "q %v does not fit k %v and v %v (head size, context, or heads not a multiple of kv heads)", qs, ks, vs)
	}
	if p.Window < 0 || p.SoftCap < 0 || p.Scale == 0 || p.VSize < 0 {
		return b.fail(t, "bad attention parameters %+v", p)
	}
	vsize := vs[2]
	if p.VSize > 0 {
		if b.node(v) != b.node(k) || p.VSize > ks[2] {
			return b.fail(t, "values of %d elements inside the keys need v to be k, with rows of at least that many", p.VSize)
		}
		vsize = p.VSize
	}
	if !validRotation(p.RotK, qs[2]) || !validRotation(p.RotV, vsize) || (p.RotK+p.RotV > 0 && !p.Flash) {
		return b.fail(t, "bad attention rotation %d, %d for head sizes %d, %d (it needs flash attention)", p.RotK, p.RotV, qs[2], vsize)
	}
	if p.Flash && (p.Sinks.Valid() || p.VSize > 0) {
		return b.fail(t, "flash attention (a quantized KV cache or --fa) does not support attention sinks or values inside the keys yet")
	}
	if p.Sinks.Valid() {
		if ss := b.shapeOf(p.Sinks); b.typeOf(p.Sinks) != F32 || len(ss) != 1 || ss[0] != qs[1] {
			return b.fail(t, "sinks %v %s: want F32 [%d], one per query head", ss, b.typeOf(p.Sinks), qs[1])
		}
	}
	n.Shape, n.Attn = []int{qs[0], qs[1] * vsize}, p
	return t
}

// withSinks appends the attention sinks to an attention's operands, when there are any.
func withSinks(args []Tensor, p AttentionParams) []Tensor {
	if p.Sinks.Valid() {
		return append(args, p.Sinks)
	}
	return args
}
