package gpulower

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/shaders/layout"
)

// The mixture-of-experts ops (accel/moe.go): shaders/topk.comp, shaders/moe.comp and the matvec_id variants of
// the mat-vec shaders, which compute what the CPU backend computes, bit for bit.

// maxExperts is topk.comp's MAXM: the most values a row can have.
const maxExperts = 1024

// topK lowers topk.comp: a workgroup per row.
func (l *Lowerer[B]) topK(id int) {
	nd := &l.g.Nodes[id]
	xid := nd.Args[0].ID()
	rows, m := l.g.Nodes[xid].Shape[0], l.g.Nodes[xid].Shape[1]
	if m > maxExperts {
		l.refuse(fmt.Errorf("top-k over %d values exceeds the %d the shader holds", m, maxExperts))
		return
	}
	x, y := l.operand(xid), l.operand(id)
	pc := push(nil).u(uint32(rows), uint32(m), uint32(nd.I[0]), x.Elem, y.Elem)
	l.dispatch("topk", 1, nil, Flat(rows), pc, []Binding[B]{x}, []Binding[B]{y})
}

// moeRows lowers moe.comp's pick, div_sum, add_id, weighted_sum and concat.
func (l *Lowerer[B]) moeRows(id int) {
	g := l.g
	nd := &g.Nodes[id]
	arg := func(k int) int { return nd.Args[k].ID() }
	x := l.operand(arg(0))
	b, ids := x, x
	var name string
	var n, m, k, limit int
	var least float32
	switch nd.Op {
	case accel.OpPick:
		name, n, m, k = "pick", nd.Elements(), g.Nodes[arg(0)].Shape[1], nd.Shape[1]
		limit = m
		ids = l.idOperand(id, 1, "index", limit)
	case accel.OpDivSum:
		m = nd.Shape[len(nd.Shape)-1]
		name, n, least = "div_sum", nd.Elements()/m, nd.F
	case accel.OpAddID:
		bs := g.Nodes[arg(1)].Shape
		name, n, m, limit = "add_id", nd.Elements(), bs[1], bs[0]
		b = l.operand(arg(1))
		ids = l.idOperand(id, 2, "expert", limit)
	case accel.OpWeightedSum:
		xs := g.Nodes[arg(0)].Shape
		name, n, m, k = "weighted_sum", nd.Elements(), xs[2], xs[1]
		b = l.operand(arg(1))
	case accel.OpConcat:
		as, bs := g.Nodes[arg(0)].Shape, g.Nodes[arg(1)].Shape
		name, n, m, k = "concat", nd.Elements(), as[len(as)-1], bs[len(bs)-1]
		b = l.operand(arg(1))
	}
	y := l.operand(id)
	pc := push(nil).u(uint32(n), uint32(m), uint32(k), uint32(limit), x.Elem, b.Elem, ids.Elem, y.Elem).f(least)
	l.dispatch(name, WGElementwise, nil, Groups(n, WGElementwise), pc, []Binding[B]{x, b, ids}, []Binding[B]{y})
}

// matMulID lowers mat_mul_id: the activations converted to the weight's activation type (once per input and
// type), then for each part of the weight a matvec_id dispatch over every (row, slot) pair (workgroup z), whose
// workgroups read their pair's expert if the part holds it. Without ids (a matrix per slot) the products take
// the order MatMul takes for the same shape: tinyBLAS's for F32 and F16 where the shape takes it.
func (l *Lowerer[B]) matMulID(id int) {
	nd := &l.g.Nodes[id]
	wid, xid := nd.Args[0].ID(), nd.Args[1].ID()
	wn := &l.g.Nodes[wid]
	w := l.c.Places[wid].W
	lay := w.Lay
	experts, out, cols := wn.Shape[0], wn.Shape[1], wn.Shape[2]
	n, slots := nd.Shape[0], nd.Shape[1]
	bcast, xrows := uint32(0), n*slots
	if len(l.g.Nodes[xid].Shape) == 2 {
		bcast, xrows = 1, n
	}
	identity := uint32(1)
	ids := l.operand(xid) // bound but unused without ids
	if len(nd.Args) == 3 {
		identity = 0
		ids = l.idOperand(id, 2, "expert", experts)
	}
	y := l.operand(id)
	act := l.activations(lay, xid, xrows, cols)
	pairs := n * slots
	if pairs > maxDispatchX {
		l.refuse(fmt.Errorf("%d (row, slot) pairs exceed the %d workgroups of a dispatch's z", pairs, maxDispatchX))
		return
	}
	// The forms are MatMul's (layout.Form): the CPU's idOrder differs from orderFor only for F32 and F16, which
	// take the tiled order without ids, like MatMul, and ggml_vec_dot's with them.
	t := wn.Type
	form := layout.Form(t, out)
	tiled := identity == 1 && (t == quant.F32 || t == quant.F16) && cols%16 == 0 && out%4 == 0
	eUnits := uint32(lay.Index(int64(out * cols))) // one expert's matrix in the unit of w_off; parts hold whole experts
	for _, pt := range w.Parts {
		e0, e1 := pt.First/int64(out*cols), (pt.First+pt.N)/int64(out*cols)
		wb := l.weightPart(w, pt)
		idp := push(nil).u(uint32(slots), bcast, identity, ids.Elem, uint32(e0), uint32(e1), eUnits)
		var spec []uint32
		tpr, ncols := 64, cols
		switch {
		case lay.DevElems > 1:
			spec, ncols = []uint32{form}, cols/32
			tpr = rowThreads(lay, cols)
		case lay.WType == layout.WBF16:
			tpr = 32 // ggml_vec_dot_bf16's two sets of 16 lanes (matvec_f.comp), as MatMul
		case tiled:
			tpr = 16 // tinyBLAS's lanes (matvec_f.comp)
		}
		per := wgRow / tpr
		pc := push(nil).u(uint32(out), uint32(ncols), 1, wb.Elem, act.Elem, y.Elem, uint32(out), uint32(tpr))
		groups := Flat((out + per - 1) / per)
		groups[2] = uint32(pairs)
		l.dispatch("matvec_id_"+lay.Name, wgRow, spec, groups, append(pc, idp...), []Binding[B]{wb, act}, []Binding[B]{y}, ids)
	}
}
