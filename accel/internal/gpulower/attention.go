package gpulower

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// The ops that read and write KV caches and other state indexed by positions: their positions, sequences and
// page tables are inputs, checked on the host before every run (Checks).

// kvStore lowers the write of x's rows into the cache at the positions.
func (l *Lowerer[B]) kvStore(id int) {
	nd := &l.g.Nodes[id]
	if nd.Type != quant.F16 && nd.Type != quant.F32 {
		l.refuse(fmt.Errorf("a %s KV cache is not supported by the %s backend (f16 or f32; quantized caches run on the CPU)", nd.Type, l.c.Name))
		return
	}
	ctx, row := nd.Shape[0], nd.Shape[1]*nd.Shape[2]
	x := l.operand(nd.Args[1].ID())
	pos := l.ids(id, 2, "position", ctx)
	cache := l.operand(id)
	n := l.g.Nodes[nd.Args[1].ID()].Shape[0]
	name := "kv_store_f32"
	if nd.Type == quant.F16 {
		name = "kv_store_f16"
	}
	pc := push(nil).u(uint32(n), uint32(row), uint32(ctx), x.Elem, pos.Elem, cache.Elem)
	l.dispatch(name, WGElementwise, nil, Flat(n), pc, []Binding[B]{x, pos}, []Binding[B]{cache})
}

// attention lowers attention, one workgroup per (query, head).
func (l *Lowerer[B]) attention(id int) {
	nd := &l.g.Nodes[id]
	lay := accel.AttnLayoutOf(l.g, id)
	kn, vn := &l.g.Nodes[nd.Args[1].ID()], &l.g.Nodes[nd.Args[2].ID()]
	if nd.Attn.Flash {
		l.refuse(fmt.Errorf("flash attention (and with it a %s/%s KV cache) is not supported by the %s backend; it runs on the CPU", kn.Type, vn.Type, l.c.Name))
		return
	}
	if lay.Size > maxHeadSize || lay.VSize > maxHeadSize {
		l.refuse(fmt.Errorf("head size %d/%d exceeds the %d the attention shader holds", lay.Size, lay.VSize, maxHeadSize))
		return
	}
	q, k, v := l.operand(nd.Args[0].ID()), l.operand(nd.Args[1].ID()), l.operand(nd.Args[2].ID())
	pos, seq, pages, paged := l.positions(id, 3, lay)
	y := l.operand(id)
	name := fmt.Sprintf("attention_k%d_v%d", 8*ElemSize(kn.Type), 8*ElemSize(vn.Type))
	a := nd.Attn
	var capInv float32
	if a.SoftCap > 0 {
		capInv = 1 / a.SoftCap
	}
	sinks, hasSinks := q, uint32(0) // bound to q when there are none
	if lay.Sinks {
		sinks, hasSinks = l.operand(nd.Args[len(nd.Args)-1].ID()), 1
	}
	pc := push(nil).u(uint32(lay.Queries), uint32(lay.Heads), uint32(lay.KVHeads), uint32(lay.Size), uint32(lay.VSize), uint32(lay.Rows),
		uint32(a.Window), q.Elem, k.Elem, v.Elem, pos.Elem, y.Elem, paged, uint32(lay.PageSize), uint32(lay.MaxPages),
		seq.Elem, pages.Elem, uint32(lay.VStride), hasSinks, sinks.Elem).f(a.Scale, a.SoftCap, capInv)
	l.dispatch(name, wgRow, nil, Flat(lay.Queries*lay.Heads), pc, []Binding[B]{q, k, v, pos, seq, pages}, []Binding[B]{y}, sinks)
}

// shortConv lowers short_conv.comp, one invocation per (token, channel); the positions and pages are checked
// before every run as an attention's are (accel.ConvLayoutOf).
func (l *Lowerer[B]) shortConv(id int) {
	nd := &l.g.Nodes[id]
	lay := accel.ConvLayoutOf(l.g, id)
	cache, w := l.operand(nd.Args[0].ID()), l.operand(nd.Args[1].ID())
	pos, seq, pages, paged := l.positions(id, 2, lay)
	y := l.operand(id)
	n := lay.Queries * lay.Size
	pc := push(nil).u(uint32(lay.Queries), uint32(lay.Size), uint32(lay.Window), uint32(accel.ShortConvUnfused(lay.Window)), paged,
		uint32(lay.PageSize), uint32(lay.MaxPages), cache.Elem, w.Elem, pos.Elem, seq.Elem, pages.Elem, y.Elem)
	l.dispatch("short_conv", WGElementwise, nil, Groups(n, WGElementwise), pc, []Binding[B]{cache, w, pos, seq, pages}, []Binding[B]{y})
}

// positions binds the positions (operand k of node id) and, when lay is paged, the sequences and page tables
// after them (else both are bound to the positions, unused), and registers their check before every run.
func (l *Lowerer[B]) positions(id, k int, lay accel.AttnLayout) (pos, seq, pages Binding[B], paged uint32) {
	pos, pv := l.shadow(id, k, "position")
	seq, pages = pos, pos // unused by the single-sequence form
	var sv, tv []int32
	if lay.Paged {
		paged = 1
		seq, sv = l.shadow(id, k+1, "sequence")
		pages, tv = l.shadow(id, k+2, "page table")
	}
	l.checks.Attn = append(l.checks.Attn, AttnCheck{Node: id, Lay: lay, Pos: pv, Seq: sv, Pages: tv})
	return pos, seq, pages, paged
}
