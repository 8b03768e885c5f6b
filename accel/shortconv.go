package accel

// ShortConv is the causal depthwise convolution of LFM2's short-convolution blocks (llama.cpp's ggml_ssm_conv
// over the block's state and inputs) with its inputs kept in a cache, one row per cell: cache is the result of
// KVStore ([ctx, heads, size] F32, a row of d = heads·size channels per cell), w the kernel (F32 [d, taps]), pos
// (I32 [n]) each token's position. Token i's channel c is
//
//	y[i][c] = Σ_k cell(pos[i] − taps + 1 + k)[c] · w[c][k],  k = 0…taps−1
//
// with cells before position 0 zero (a sequence's state starts empty), summed as ShortConvUnfused says. Cell c
// is cache row c. The result is F32 [n, d].
func (b *Builder) ShortConv(cache, w, pos Tensor) Tensor {
	t, n, ok := b.op(OpShortConv, cache, w, pos)
	if !ok {
		return t
	}
	return b.checkShortConv(t, n)
}

// PagedShortConv is ShortConv over a cache that several sequences share in pages of pageSize rows, addressed as
// PagedAttention addresses its keys: token i belongs to sequence seq[i] (I32 [n]), whose cell c is cache row
// pages[seq[i]][c/pageSize]·pageSize + c%pageSize (pages: I32 [seqs, maxPages]). Only the pages holding cells
// pos[i]−taps+1…pos[i] are read, so a sequence may have released the older ones (as a sliding window of taps).
func (b *Builder) PagedShortConv(cache, w, pos, seq, pages Tensor, pageSize int) Tensor {
	t, n, ok := b.op(OpShortConv, cache, w, pos, seq, pages)
	if !ok {
		return t
	}
	ss, ps, cs := b.shapeOf(seq), b.shapeOf(pages), b.shapeOf(cache)
	if len(ss) != 1 || b.typeOf(seq) != I32 || len(ps) != 2 || b.typeOf(pages) != I32 {
		return b.fail(t, "sequences %v %s and pages %v %s: want I32 [n] and I32 [seqs, maxPages]", ss, b.typeOf(seq), ps, b.typeOf(pages))
	}
	if pageSize <= 0 || len(cs) < 1 || cs[0]%pageSize != 0 {
		return b.fail(t, "page size %d does not divide the cache's %v rows", pageSize, cs)
	}
	if ps := b.shapeOf(pos); len(ps) == 1 && ps[0] != ss[0] {
		return b.fail(t, "%d positions for %d sequence ids", ps[0], ss[0])
	}
	n.I = []int{pageSize}
	return b.checkShortConv(t, n)
}

// checkShortConv checks the cache, kernel and positions and sets the result's shape.
func (b *Builder) checkShortConv(t Tensor, n *Node) Tensor {
	cache, w, pos := n.Args[0], n.Args[1], n.Args[2]
	cs, ws, ps := b.shapeOf(cache), b.shapeOf(w), b.shapeOf(pos)
	if op := b.node(cache).Op; op != OpBuffer && op != OpKVStore {
		return b.fail(t, "the cache must be a buffer")
	}
	if len(cs) != 3 || b.typeOf(cache) != F32 || len(ws) != 2 || b.typeOf(w) != F32 || ws[0] != cs[1]*cs[2] ||
		ws[1] < 1 || len(ps) != 1 || b.typeOf(pos) != I32 {
		return b.fail(t, "cache %v %s, kernel %v %s, positions %v %s: want F32 [ctx, heads, size], F32 [heads·size, taps], I32 [n]",
			cs, b.typeOf(cache), ws, b.typeOf(w), ps, b.typeOf(pos))
	}
	n.Shape = []int{ps[0], ws[0]}
	return t
}

// ConvLayoutOf returns the cells short convolution node id of g reads, as an attention's layout: each token
// sees the last taps cells of its sequence (Window), through its page table when paged. Its Check validates a
// run's positions, sequences and pages.
func ConvLayoutOf(g *Graph, id int) AttnLayout {
	nd := &g.Nodes[id]
	cs, ws := g.Node(nd.Args[0]).Shape, g.Node(nd.Args[1]).Shape
	l := AttnLayout{Rows: cs[0], PageSize: cs[0], Seqs: 1, MaxPages: 1, Heads: 1, KVHeads: 1, Size: ws[0],
		VSize: ws[0], VStride: ws[0], Queries: nd.Shape[0], Window: ws[1]}
	if len(nd.I) > 0 {
		ps := g.Node(nd.Args[4]).Shape
		l.Paged, l.PageSize, l.Seqs, l.MaxPages = true, nd.I[0], ps[0], ps[1]
	}
	return l
}

// ShortConvUnfused is the number of leading taps whose products ShortConv rounds before adding them (the rest
// are fused multiply-adds onto the running sum), as the reference build (x86-64, AVX-512) compiles
// ggml_compute_forward_ssm_conv_f32's loop: kernels of fewer than 16 taps are one chain of fused multiply-adds;
// longer ones multiply 16 taps at a time, then 8 if that many remain, and add the products one by one in order.
func ShortConvUnfused(taps int) int {
	if taps < 16 {
		return 0
	}
	k := taps / 16 * 16
	if taps-k >= 8 {
		k += 8
	}
	return k
}
