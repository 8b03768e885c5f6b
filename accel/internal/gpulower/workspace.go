package gpulower

import (
	"sort"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/shaders/layout"
)

// Workspace places the activations matrix products convert to their weights' activation types (Q8_0, Q8_1,
// Q8_K, F16, BF16): one region per input and type, shared by the products reading it (the q, k and v
// projections of one normed input), live from the first such product to the last, packed by lifetime.
type Workspace struct {
	Size int64 // bytes, a multiple of the alignment
	ivs  map[wsKey]*interval
}

// wsKey identifies converted activations: an input and the type it is converted to.
type wsKey struct {
	x   int
	act quant.Type
}

// PlanWorkspace sizes the converted activations of every matrix product of plan and packs them by lifetime,
// at offsets that are multiples of align.
func PlanWorkspace(g *accel.Graph, plan *accel.Plan, align int64) *Workspace {
	ws := &Workspace{ivs: map[wsKey]*interval{}}
	var all []*interval
	for s, t := range plan.Order {
		nd := g.Node(t)
		if nd.Op != accel.OpMatMul && nd.Op != accel.OpMatMulID {
			continue
		}
		lay := layout.Lookup(g.Node(nd.Args[0]).Type)
		if lay == nil || lay.Act == quant.F32 {
			continue
		}
		x := nd.Args[1].ID()
		key := wsKey{x, lay.Act}
		if iv := ws.ivs[key]; iv != nil {
			iv.last = s
			continue
		}
		xn := g.Nodes[x]
		cols := xn.Shape[len(xn.Shape)-1]
		iv := &interval{first: s, last: s, size: actBytes(lay.Act, xn.Elements()/cols, cols)}
		ws.ivs[key] = iv
		all = append(all, iv)
	}
	ws.Size = packIntervals(all, align)
	return ws
}

// actBytes is the workspace size of n activation rows of cols elements converted to act.
func actBytes(act quant.Type, n, cols int) int64 {
	if act == quant.F16 || act == quant.BF16 {
		return int64(n) * int64(cols) * 4
	}
	return int64(n) * int64(cols/32) * 40
}

// interval is a request for workspace: size bytes from step first to step last (inclusive).
type interval struct {
	first, last int
	size        int64
	off         int64 // assigned
}

func alignUp(n, a int64) int64 { return (n + a - 1) &^ (a - 1) }

// packIntervals gives every interval an offset so that intervals live at the same time do not overlap,
// reusing the space of finished ones (first fit in offset order), and returns the total size. Offsets are
// multiples of align.
func packIntervals(iv []*interval, align int64) int64 {
	order := append([]*interval(nil), iv...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].first < order[j].first })
	var live []*interval
	var top int64
	for _, it := range order {
		kept := live[:0]
		for _, l := range live {
			if l.last >= it.first {
				kept = append(kept, l)
			}
		}
		live = kept
		sort.Slice(live, func(i, j int) bool { return live[i].off < live[j].off })
		size := alignUp(it.size, align)
		off := int64(0)
		for _, l := range live {
			if off+size <= l.off {
				break
			}
			off = max(off, l.off+alignUp(l.size, align))
		}
		it.off = off
		top = max(top, off+size)
		live = append(live, it)
	}
	return top
}
