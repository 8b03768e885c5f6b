package metal

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/shaders/layout"
)

// The mixture-of-experts ops (accel/moe.go), lowered as accel/vulkan/moe.go lowers them: shaders/topk.comp,
// shaders/moe.comp and the matvec_id variants of the mat-vec shaders.

// maxExperts is topk.comp's MAXM: the most values a row can have.
const maxExperts = 1024

// idOperand binds the I32 operand k of node id. Ids the host sets are checked before every run (values in [0,
// limit)); ids the graph computes (TopK) are in range by construction.
func (r *recorder) idOperand(id, k int, what string, limit int) binding {
	aid := r.p.g.Nodes[id].Args[k].ID()
	if r.p.g.Nodes[r.p.plan.Loc[aid].Root.ID()].Op == accel.OpInput {
		return r.ids(id, k, what, limit)
	}
	return r.operand(aid)
}

// topK records topk.comp: a threadgroup per row.
func (r *recorder) topK(id int) {
	nd := &r.p.g.Nodes[id]
	xid := nd.Args[0].ID()
	rows, m := r.p.g.Nodes[xid].Shape[0], r.p.g.Nodes[xid].Shape[1]
	if m > maxExperts {
		if r.err == nil {
			r.err = fmt.Errorf("top-k over %d values exceeds the %d the shader holds", m, maxExperts)
		}
		return
	}
	x, y := r.operand(xid), r.operand(id)
	pc := push(nil).u(uint32(rows), uint32(m), uint32(nd.I[0]), x.elem, y.elem)
	r.dispatch("topk", 1, nil, flat(rows), pc, []binding{x}, []binding{y})
}

// moeRows records moe.comp's pick, div_sum, add_id, weighted_sum and concat.
func (r *recorder) moeRows(id int) {
	g := r.p.g
	nd := &g.Nodes[id]
	arg := func(k int) int { return nd.Args[k].ID() }
	x := r.operand(arg(0))
	b, ids := x, x
	var name string
	var n, m, k, limit int
	var least float32
	switch nd.Op {
	case accel.OpPick:
		name, n, m, k = "pick", nd.Elements(), g.Nodes[arg(0)].Shape[1], nd.Shape[1]
		limit = m
		ids = r.idOperand(id, 1, "index", limit)
	case accel.OpDivSum:
		m = nd.Shape[len(nd.Shape)-1]
		name, n, least = "div_sum", nd.Elements()/m, nd.F
	case accel.OpAddID:
		bs := g.Nodes[arg(1)].Shape
		name, n, m, limit = "add_id", nd.Elements(), bs[1], bs[0]
		b = r.operand(arg(1))
		ids = r.idOperand(id, 2, "expert", limit)
	case accel.OpWeightedSum:
		xs := g.Nodes[arg(0)].Shape
		name, n, m, k = "weighted_sum", nd.Elements(), xs[2], xs[1]
		b = r.operand(arg(1))
	case accel.OpConcat:
		as, bs := g.Nodes[arg(0)].Shape, g.Nodes[arg(1)].Shape
		name, n, m, k = "concat", nd.Elements(), as[len(as)-1], bs[len(bs)-1]
		b = r.operand(arg(1))
	}
	y := r.operand(id)
	pc := push(nil).u(uint32(n), uint32(m), uint32(k), uint32(limit), x.elem, b.elem, ids.elem, y.elem).f(least)
	r.dispatch(name, wgElementwise, nil, groupsFor(n, wgElementwise), pc, []binding{x, b, ids}, []binding{y})
}

// matMulID records mat_mul_id: the activations converted to the weight's activation type (once per input and
// type), then for each part of the weight a matvec_id dispatch over every (row, slot) pair (threadgroup z),
// whose threadgroups read their pair's expert if the part holds it. Without ids (a matrix per slot) the
// products take the order MatMul takes for the same shape: tinyBLAS's for F32 and F16 where the shape takes it.
func (r *recorder) matMulID(id int) {
	p := r.p
	nd := &p.g.Nodes[id]
	wid, xid := nd.Args[0].ID(), nd.Args[1].ID()
	wn := &p.g.Nodes[wid]
	wp := p.places[wid]
	w, lay := wp.w, wp.w.lay
	experts, out, cols := wn.Shape[0], wn.Shape[1], wn.Shape[2]
	n, slots := nd.Shape[0], nd.Shape[1]
	bcast, xrows := uint32(0), n*slots
	if len(p.g.Nodes[xid].Shape) == 2 {
		bcast, xrows = 1, n
	}
	identity := uint32(1)
	ids := r.operand(xid) // bound but unused without ids
	if len(nd.Args) == 3 {
		identity = 0
		ids = r.idOperand(id, 2, "expert", experts)
	}
	y := r.operand(id)
	act := r.operand(xid)
	if lay.Act != quant.F32 {
		iv := p.ws[wsKey{xid, lay.Act}]
		ws := r.bind(p.arena, p.wsBase+iv.off, 4)
		if iv.first == r.step {
			r.quantizeRows(lay.Act, act, ws, xrows, cols)
		}
		act = ws
	}
	pairs := n * slots
	if pairs > maxDispatchX {
		if r.err == nil {
			r.err = fmt.Errorf("%d (row, slot) pairs exceed the %d threadgroups of a dispatch's z", pairs, maxDispatchX)
		}
		return
	}
	t := wn.Type
	form := layout.Form(t, out)
	tiled := identity == 1 && (t == quant.F32 || t == quant.F16) && cols%16 == 0 && out%4 == 0
	eUnits := uint32(w.lay.Index(int64(out * cols))) // one expert's matrix in the unit of w_off
	for _, pt := range w.parts {
		e0, e1 := pt.first/int64(out*cols), (pt.first+pt.n)/int64(out*cols)
		wb := r.bind(pt.buf, pt.off, indexBytes(lay))
		idp := push(nil).u(uint32(slots), bcast, identity, ids.elem, uint32(e0), uint32(e1), eUnits)
		var own []uint32
		tpr := 64
		ncols := cols
		switch {
		case lay.DevElems > 1:
			own, ncols = []uint32{form}, cols/32
			units := cols / lay.DevElems
			if lay.KQuant() {
				units = cols / 256
			}
			tpr = rowThreads(units)
		case lay.WType == layout.WBF16:
			tpr = 32 // ggml_vec_dot_bf16's two sets of 16 lanes (matvec_f.comp), as MatMul
		case tiled:
			tpr = 16 // tinyBLAS's lanes (matvec_f.comp)
		}
		per := wgRow / tpr
		pc := push(nil).u(uint32(out), uint32(ncols), 1, wb.elem, act.elem, y.elem, uint32(out), uint32(tpr))
		groups := flat((out + per - 1) / per)
		groups[2] = uint32(pairs)
		r.dispatch("matvec_id_"+lay.Name, wgRow, own, groups, append(pc, idp...), []binding{wb, act}, []binding{y}, ids)
	}
}
