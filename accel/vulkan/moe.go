package vulkan

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
	shlayout "github.com/forma-llm/forma/shaders/layout"
)

// The mixture-of-experts ops (accel/moe.go): shaders/topk.comp, shaders/moe.comp and the matvec_id variants of
// the mat-vec shaders, which compute what the CPU backend computes, bit for bit.

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

// topK records topk.comp: a workgroup per row.
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
// type), then for each part of the weight a matvec_id dispatch over every (row, slot) pair (workgroup z), whose
// workgroups read their pair's expert if the part holds it. Without ids (a matrix per slot) the products take
// the order MatMul takes for the same shape: tinyBLAS's for F32 and F16 where the shape takes it.
func (r *recorder) matMulID(id int) {
	p := r.p
	nd := &p.g.Nodes[id]
	wid, xid := nd.Args[0].ID(), nd.Args[1].ID()
	wn := &p.g.Nodes[wid]
	wp := p.places[wid]
	w, lay := wp.w, wp.w.lay
	experts, out, cols := wn.Shape[0], wn.Shape[1], wn.Shape[2]
	n, slots := nd.Shape[0], nd.Shape[1]
	xs := p.g.Nodes[xid].Shape
	bcast := uint32(0)
	xrows := n * slots
	if len(xs) == 2 {
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
	if lay.act != quant.F32 {
		iv := p.ws[wsKey{xid, lay.act}]
		ws := r.bind(p.scratch, p.wsBase+iv.off, actBytes(lay.act, xrows, cols), 4)
		if iv.first == r.step {
			r.quantizeRows(lay.act, act, ws, xrows, cols)
		}
		act = ws
	}
	pairs := n * slots
	if pairs > maxDispatchX {
		if r.err == nil {
			r.err = fmt.Errorf("%d (row, slot) pairs exceed the %d workgroups of a dispatch's z", pairs, maxDispatchX)
		}
		return
	}
	// The forms are MatMul's (shlayout.Form): the CPU's idOrder differs from orderFor only for F32 and F16,
	// which take the tiled order without ids, like MatMul, and ggml_vec_dot's with them.
	form := shlayout.Form(wn.Type, out)
	t := wn.Type
	tiled := identity == 1 && (t == quant.F32 || t == quant.F16) && cols%16 == 0 && out%4 == 0
	// One expert's matrix in the unit of w_off; parts hold whole experts (Upload).
	eUnits := uint32(lay.index(int64(out * cols)))
	for _, pt := range w.parts {
		e0, e1 := pt.first/int64(out*cols), (pt.first+pt.n)/int64(out*cols)
		wb := binding{rng: pt.buf.All()}
		idp := push(nil).u(uint32(slots), bcast, identity, ids.elem, uint32(e0), uint32(e1), eUnits)
		if lay.devElems > 1 {
			kquant := lay.devElems == 256 && lay.name != "q8s"
			units := cols / lay.devElems
			if kquant {
				units = cols / 256
			}
			tpr := rowThreads(units)
			per := wgRow / tpr
			pc := push(nil).u(uint32(out), uint32(cols/32), 1, 0, act.elem, y.elem, uint32(out), uint32(tpr))
			groups := flat((out + per - 1) / per)
			groups[2] = uint32(pairs)
			r.dispatch("matvec_id_"+lay.name, wgRow, []uint32{form}, groups, append(pc, idp...), []binding{wb, act}, []binding{y}, ids)
			continue
		}
		tpr := 64
		if lay.wtype == wtBF16 {
			tpr = 32 // ggml_vec_dot_bf16's two sets of 16 lanes (matvec_f.comp), as MatMul
		} else if tiled {
			tpr = 16 // tinyBLAS's lanes (matvec_f.comp)
		}
		per := wgRow / tpr
		pc := push(nil).u(uint32(out), uint32(cols), 1, 0, act.elem, y.elem, uint32(out), uint32(tpr))
		groups := flat((out + per - 1) / per)
		groups[2] = uint32(pairs)
		r.dispatch("matvec_id_"+lay.name, wgRow, nil, groups, append(pc, idp...), []binding{wb, act}, []binding{y}, ids)
	}
}
