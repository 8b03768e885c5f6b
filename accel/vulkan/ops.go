package vulkan

import (
	"fmt"
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
	shlayout "github.com/forma-llm/forma/shaders/layout"
)

// segment is the part of a weight view one dispatch reads: view rows [r0, r0+rows) at index wOff of buf.
type segment struct {
	buf      *Buffer
	wOff     int64
	r0, rows int64
}

// segments splits the rows (of cols elements) of a weight view starting at element e0 over the weight's parts.
func (r *recorder) segments(w *weight, e0, rows, cols int64) []segment {
	var out []segment
	for _, p := range w.parts {
		lo, hi := max(e0, p.first), min(e0+rows*cols, p.first+p.n)
		if lo >= hi {
			continue
		}
		if (lo-e0)%cols != 0 || (hi-e0)%cols != 0 {
			if r.err == nil {
				r.err = fmt.Errorf("a view of weight %q with rows of %d crosses the boundary of its split parts", w.desc.Name, cols)
			}
			return nil
		}
		out = append(out, segment{buf: p.buf, wOff: w.lay.index(lo - p.first), r0: (lo - e0) / cols, rows: (hi - lo) / cols})
	}
	return out
}

// matMul records y = x·Wᵀ: the conversion of x to the weight's activation type (once per input and type),
// then one mat-vec or tiled product per part of the weight.
func (r *recorder) matMul(id int) {
	p := r.p
	nd := &p.g.Nodes[id]
	wp := p.places[nd.Args[0].ID()]
	w, lay := wp.w, wp.w.lay
	xid := nd.Args[1].ID()
	n, out := nd.Shape[0], nd.Shape[1]
	cols := p.g.Nodes[nd.Args[0].ID()].Shape[1]
	y := r.operand(id)
	act := r.operand(xid)
	if lay.act != quant.F32 {
		iv := p.ws[wsKey{xid, lay.act}]
		size := actBytes(lay.act, n, cols)
		ws := r.bind(p.scratch, p.wsBase+iv.off, size, 4)
		if iv.first == r.step {
			r.quantizeRows(lay.act, act, ws, n, cols)
		}
		act = ws
	}
	wt := p.g.Nodes[nd.Args[0].ID()].Type
	for _, sg := range r.segments(w, wp.e0, int64(out), int64(cols)) {
		wb := binding{rng: sg.buf.All()}
		switch {
		case lay.devElems > 1:
			r.matMulQ(lay, wt, wb, sg, act, y, n, cols, out)
		case lay.wtype != wtBF16 && cols%16 == 0 && out%4 == 0 && n > matvecMaxRows:
			// llamafile's tinyBLAS, the reference build's order for batches (taken for every number of rows,
			// with the mat-vec below for few): 16 lanes per output.
			pc := push(nil).u(uint32(sg.rows), uint32(cols), uint32(n), uint32(sg.wOff), act.elem, y.elem+uint32(sg.r0), uint32(out))
			groups := [3]uint32{uint32((sg.rows + 31) / 32), uint32((n + 7) / 8), 1}
			r.dispatch("matmul_"+lay.name, wgTile, nil, groups, pc, []binding{wb, act}, []binding{y})
		default:
			// Row by row, up to 8 activation rows per dispatch: tinyBLAS's 16 lanes where the shape takes
			// that order, else ggml_vec_dot's.
			tpr := 64
			if lay.wtype == wtBF16 {
				tpr = 32 // ggml_vec_dot_bf16's two sets of 16 lanes, for every shape (as the CPU backend)
			} else if cols%16 == 0 && out%4 == 0 {
				tpr = 16
			}
			per := wgRow / tpr
			for r0 := 0; r0 < n; r0 += matvecMaxRows {
				nr := min(matvecMaxRows, n-r0)
				pc := push(nil).u(uint32(sg.rows), uint32(cols), uint32(nr), uint32(sg.wOff), act.elem+uint32(r0*cols),
					y.elem+uint32(r0*out)+uint32(sg.r0), uint32(out), uint32(tpr))
				r.dispatch("matvec_"+lay.name, wgRow, nil, flat((int(sg.rows)+per-1)/per), pc, []binding{wb, act}, []binding{y})
			}
		}
	}
}

// quantizeRows records the conversion of n activation rows of cols elements to act (quantize.comp).
func (r *recorder) quantizeRows(act quant.Type, src, dst binding, n, cols int) {
	shader, units := shlayout.Quantize(act, n, cols)
	pc := push(nil).u(uint32(n), uint32(cols), src.elem, dst.elem)
	r.dispatch(shader, wgElementwise, nil, groupsFor(units, wgElementwise), pc, []binding{src}, []binding{dst})
}

// matMulQ records a quantized product over one weight part: a mat-vec for up to 8 activation rows, else tiles.
func (r *recorder) matMulQ(lay *layout, wt quant.Type, wb binding, sg segment, act, y binding, n, cols, out int) {
	kquant := lay.devElems == 256 && lay.name != "q8s"
	units := cols / lay.devElems
	if kquant {
		units = cols / 256
	}
	spec := []uint32{shlayout.Form(wt, out)}
	pc := push(nil).u(uint32(sg.rows), uint32(cols/32), uint32(n), uint32(sg.wOff), act.elem, y.elem+uint32(sg.r0), uint32(out))
	if n <= matvecMaxRows {
		tpr := rowThreads(units)
		per := wgRow / tpr
		r.dispatch("matvec_"+lay.name, wgRow, spec, flat((int(sg.rows)+per-1)/per), pc.u(uint32(tpr)), []binding{wb, act}, []binding{y})
		return
	}
	tm, tn := 32, 16 // matmul_q.comp's tiles
	if kquant {
		tm, tn = 16, 32
	}
	groups := [3]uint32{uint32((int(sg.rows) + tm - 1) / tm), uint32((n + tn - 1) / tn), 1}
	r.dispatch("matmul_"+lay.name, wgTile, spec, groups, pc, []binding{wb, act}, []binding{y})
}

// rowThreads is how many invocations of a mat-vec workgroup share one weight row of units blocks (or elements):
// enough for the row, a power of two from 8 (matvec_q's least) to the workgroup.
func rowThreads(units int) int {
	t := 8
	for t < units && t < wgRow {
		t *= 2
	}
	return t
}

// getRows records the row lookup, one dispatch per part of the table.
func (r *recorder) getRows(id int) {
	p := r.p
	nd := &p.g.Nodes[id]
	tid := nd.Args[0].ID()
	wp := p.places[tid]
	rows, cols := p.g.Nodes[tid].Shape[0], p.g.Nodes[tid].Shape[1]
	ids := r.ids(id, 1, "id", rows)
	y := r.operand(id)
	n := nd.Shape[0]
	if wp.w == nil { // an F32 intermediate (the rows whose logits a pass computes)
		t := r.operand(tid)
		pc := push(nil).u(uint32(n), uint32(cols), 0, uint32(rows), ids.elem, t.elem, y.elem)
		r.dispatch("get_rows_f32", wgElementwise, nil, groupsFor(n*cols, wgElementwise), pc, []binding{t, ids}, []binding{y})
		return
	}
	per := 32
	if wp.w.lay.devElems == 1 {
		per = 1
	}
	for _, s := range r.segments(wp.w, wp.e0, int64(rows), int64(cols)) {
		pc := push(nil).u(uint32(n), uint32(cols), uint32(s.r0), uint32(s.rows), ids.elem, uint32(s.wOff), y.elem)
		r.dispatch("get_rows_"+wp.w.lay.name, wgElementwise, nil, groupsFor(n*cols/per, wgElementwise), pc,
			[]binding{{rng: s.buf.All()}, ids}, []binding{y})
	}
}

// ids binds the I32 operand k of node id and registers the check that its values lie in [0, limit) before
// every run. I32 tensors are inputs or views of them; their values are known to the host.
func (r *recorder) ids(id, k int, what string, limit int) binding {
	b, vals := r.shadow(id, k, what)
	if vals != nil {
		r.p.checks = append(r.p.checks, rangeCheck{node: id, what: what, vals: vals, limit: int32(limit)})
	}
	return b
}

// shadow returns the binding of I32 operand k of node id, which must be (a view of) an input, and the host
// copy of its values that the checks before each run read (nil, with r.err set, if it is not an input).
func (r *recorder) shadow(id, k int, what string) (binding, []int32) {
	p := r.p
	nd := &p.g.Nodes[id]
	aid := nd.Args[k].ID()
	b := r.operand(aid)
	loc := p.plan.Loc[aid]
	root := loc.Root.ID()
	if p.g.Nodes[root].Op != accel.OpInput {
		if r.err == nil {
			r.err = fmt.Errorf("%s operand is not an input", what)
		}
		return b, nil
	}
	first := (loc.Offset - p.plan.Loc[root].Offset) / 4
	return b, p.ins[root].shadow[first : first+int64(p.g.Nodes[aid].Elements())]
}

// elementwise records one of elementwise.comp's ops: a (and b) to node id.
func (r *recorder) elementwise(name string, id, a, b int, f, inv float32) {
	nd := &r.p.g.Nodes[id]
	ab := r.operand(a)
	bb, nb := ab, 1
	if b >= 0 {
		bb = r.operand(b)
		nb = r.p.g.Nodes[b].Elements()
	}
	if name == "silu" || name == "swiglu" { // nb is the row length: the rows' last elements take ggml's scalar path
		nb = nd.Shape[len(nd.Shape)-1]
	}
	if name == "temp_scale" { // nb is the row length: every element of row r takes position b[r]
		nb = nd.Elements() / nd.Shape[0]
	}
	y := r.operand(id)
	n := nd.Elements()
	pc := push(nil).u(uint32(n), uint32(nb), ab.elem, bb.elem, y.elem).f(f, inv)
	r.dispatch(name, wgElementwise, nil, groupsFor(n, wgElementwise), pc, []binding{ab, bb}, []binding{y})
}

// norm records RMSNorm, LayerNorm or Softmax, one workgroup per row.
func (r *recorder) norm(id int) {
	nd := &r.p.g.Nodes[id]
	name := map[accel.Op]string{accel.OpRMSNorm: "rms_norm", accel.OpLayerNorm: "layer_norm", accel.OpSoftmax: "softmax"}[nd.Op]
	x, y := r.operand(nd.Args[0].ID()), r.operand(id)
	cols := nd.Shape[len(nd.Shape)-1]
	rows := nd.Elements() / cols
	pc := push(nil).u(uint32(rows), uint32(cols), x.elem, y.elem).f(nd.F)
	r.dispatch(name, wgRow, nil, flat(rows), pc, []binding{x}, []binding{y})
}

// gather records copy.comp: output shape (up to 4 dimensions) read from x with the given strides from start.
func (r *recorder) gather(id, xid int, shape, strides []int, start int) {
	var s, st [4]uint32
	for k := range s {
		s[k], st[k] = 1, 0
	}
	for k := range shape {
		s[4-len(shape)+k], st[4-len(shape)+k] = uint32(shape[k]), uint32(strides[k])
	}
	x, y := r.operand(xid), r.operand(id)
	n := r.p.g.Nodes[id].Elements()
	pc := push(nil).u(s[:]...).u(st[:]...).u(uint32(n), x.elem+uint32(start), y.elem)
	r.dispatch("copy", wgElementwise, nil, groupsFor(n, wgElementwise), pc, []binding{x}, []binding{y})
}

// rope records RoPE. θ's scale, YaRN's correction dimensions and magnitude factor are computed here as ggml
// computes them (float32 pow and log), so the shader's angles round as the CPU's.
func (r *recorder) rope(id int) {
	nd := &r.p.g.Nodes[id]
	rp := nd.RoPE
	x, y := r.operand(nd.Args[0].ID()), r.operand(id)
	pos := r.operand(nd.Args[1].ID())
	ff, hasFF := x, uint32(0)
	if len(nd.Args) > 2 {
		ff, hasFF = r.operand(nd.Args[2].ID()), 1
	}
	n, heads, size := nd.Shape[0], nd.Shape[1], nd.Shape[2]
	thetaScale := float32(math.Pow(float64(rp.Base), float64(-2/float32(rp.Dims))))
	corr := yarnCorrDims(rp.Dims, rp.OrigCtx, rp.Base, rp.BetaFast, rp.BetaSlow)
	mscale := rp.AttnFactor
	if rp.ExtFactor != 0 {
		mscale *= 1 + float32(0.1*logf(1/rp.FreqScale))
	}
	neox := uint32(0)
	if rp.Mode == accel.RoPENeoX {
		neox = 1
	}
	pc := push(nil).u(uint32(n), uint32(heads), uint32(size), uint32(rp.Dims), neox, hasFF, x.elem, pos.elem, ff.elem, y.elem).
		f(thetaScale, rp.FreqScale, rp.ExtFactor, mscale, corr[0], corr[1])
	per := max(rp.Dims/2, size-rp.Dims)
	r.dispatch("rope", wgElementwise, nil, groupsFor(n*per, wgElementwise), pc, []binding{x, pos, ff}, []binding{y})
}

// yarnCorrDims is ggml_rope_yarn_corr_dims in float32, as the CPU backend computes it.
func yarnCorrDims(dims, origCtx int, base, betaFast, betaSlow float32) [2]float32 {
	corrDim := func(nRot float32) float32 {
		return float32(float32(dims)*logf(float32(origCtx)/float32(float32(nRot*2)*math.Pi))) / float32(2*logf(base))
	}
	start := float32(math.Floor(float64(corrDim(betaFast))))
	end := float32(math.Ceil(float64(corrDim(betaSlow))))
	return [2]float32{max(0, start), min(float32(dims-1), end)}
}

func logf(x float32) float32 { return float32(math.Log(float64(x))) }

// kvStore records the write of x's rows into the cache at the positions.
func (r *recorder) kvStore(id int) {
	nd := &r.p.g.Nodes[id]
	if nd.Type != quant.F16 && nd.Type != quant.F32 {
		r.refuse(fmt.Errorf("a %s KV cache is not supported by the vulkan backend (f16 or f32; quantized caches run on the CPU)", nd.Type))
		return
	}
	ctx, row := nd.Shape[0], nd.Shape[1]*nd.Shape[2]
	x := r.operand(nd.Args[1].ID())
	pos := r.ids(id, 2, "position", ctx)
	cache := r.operand(id)
	n := r.p.g.Nodes[nd.Args[1].ID()].Shape[0]
	name := "kv_store_f32"
	if nd.Type == quant.F16 {
		name = "kv_store_f16"
	}
	pc := push(nil).u(uint32(n), uint32(row), uint32(ctx), x.elem, pos.elem, cache.elem)
	r.dispatch(name, wgElementwise, nil, flat(n), pc, []binding{x, pos}, []binding{cache})
}

// attention records attention, one workgroup per (query, head).
func (r *recorder) attention(id int) {
	p := r.p
	nd := &p.g.Nodes[id]
	l := accel.AttnLayoutOf(p.g, id)
	kn, vn := &p.g.Nodes[nd.Args[1].ID()], &p.g.Nodes[nd.Args[2].ID()]
	if nd.Attn.Flash {
		r.refuse(fmt.Errorf("flash attention (and with it a %s/%s KV cache) is not supported by the vulkan backend; it runs on the CPU", kn.Type, vn.Type))
		return
	}
	if l.Size > maxHeadSize || l.VSize > maxHeadSize {
		if r.err == nil {
			r.err = fmt.Errorf("head size %d/%d exceeds the %d the attention shader holds", l.Size, l.VSize, maxHeadSize)
		}
		return
	}
	q, k, v := r.operand(nd.Args[0].ID()), r.operand(nd.Args[1].ID()), r.operand(nd.Args[2].ID())
	pos, pv := r.shadow(id, 3, "position")
	seq, pages := pos, pos // unused by the single-sequence form
	var paged uint32
	var sv, tv []int32
	if l.Paged {
		paged = 1
		seq, sv = r.shadow(id, 4, "sequence")
		pages, tv = r.shadow(id, 5, "page table")
	}
	p.attnChecks = append(p.attnChecks, attnCheck{node: id, lay: l, pos: pv, seq: sv, pages: tv})
	y := r.operand(id)
	name := fmt.Sprintf("attention_k%d_v%d", 8*elemSize(kn.Type), 8*elemSize(vn.Type))
	a := nd.Attn
	var capInv float32
	if a.SoftCap > 0 {
		capInv = 1 / a.SoftCap
	}
	sinks, hasSinks := q, uint32(0) // bound to q when there are none
	if l.Sinks {
		sinks, hasSinks = r.operand(nd.Args[len(nd.Args)-1].ID()), 1
	}
	pc := push(nil).u(uint32(l.Queries), uint32(l.Heads), uint32(l.KVHeads), uint32(l.Size), uint32(l.VSize), uint32(l.Rows),
		uint32(a.Window), q.elem, k.elem, v.elem, pos.elem, y.elem, paged, uint32(l.PageSize), uint32(l.MaxPages),
		seq.elem, pages.elem, uint32(l.VStride), hasSinks, sinks.elem).f(a.Scale, a.SoftCap, capInv)
	r.dispatch(name, wgRow, nil, flat(l.Queries*l.Heads), pc, []binding{q, k, v, pos, seq, pages}, []binding{y}, sinks)
}

// refuse records err as the recording's error unless one is already there.
func (r *recorder) refuse(err error) {
	if r.err == nil {
		r.err = err
	}
}

// shortConv records short_conv.comp, one invocation per (token, channel); the positions and pages are checked
// before every run as an attention's are (accel.ConvLayoutOf).
func (r *recorder) shortConv(id int) {
	p := r.p
	nd := &p.g.Nodes[id]
	l := accel.ConvLayoutOf(p.g, id)
	cache, w := r.operand(nd.Args[0].ID()), r.operand(nd.Args[1].ID())
	pos, pv := r.shadow(id, 2, "position")
	seq, pages := pos, pos // unused by the single-sequence form
	var paged uint32
	var sv, tv []int32
	if l.Paged {
		paged = 1
		seq, sv = r.shadow(id, 3, "sequence")
		pages, tv = r.shadow(id, 4, "page table")
	}
	p.attnChecks = append(p.attnChecks, attnCheck{node: id, lay: l, pos: pv, seq: sv, pages: tv})
	y := r.operand(id)
	n := l.Queries * l.Size
	pc := push(nil).u(uint32(l.Queries), uint32(l.Size), uint32(l.Window), uint32(accel.ShortConvUnfused(l.Window)), paged,
		uint32(l.PageSize), uint32(l.MaxPages), cache.elem, w.elem, pos.elem, seq.elem, pages.elem, y.elem)
	r.dispatch("short_conv", wgElementwise, nil, groupsFor(n, wgElementwise), pc, []binding{cache, w, pos, seq, pages}, []binding{y})
}
