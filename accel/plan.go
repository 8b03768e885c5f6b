package accel

import (
	"fmt"
	"sort"
)

// Plan is the execution plan shared by backends: which nodes run, in what order, and where each result lives.
// Intermediates and inputs share one scratch arena, reused by liveness: a node's memory is free for later nodes
// once its last reader has run.
type Plan struct {
	Order   []Tensor // nodes to compute, operands first (no leaves or views)
	Loc     []Loc    // per node (indexed by Tensor.ID)
	Scratch int64    // bytes of the arena
}

// LocKind says which memory a node's result lives in.
type LocKind uint8

const (
	LocNone    LocKind = iota // not needed by any output
	LocScratch                // the program's arena
	LocWeight                 // a weight (Root is the weight node)
	LocBuffer                 // a persistent buffer (Root is the buffer node)
)

// Loc places a node's result: in memory of Kind, Offset bytes into the memory of Root (for scratch, into the
// arena). Views share their operand's memory at an offset.
type Loc struct {
	Kind   LocKind
	Root   Tensor
	Offset int64
}

// elemBytes is the size of one element of a computed (non-leaf) node or input.
func elemBytes(t DType) int64 {
	if t == F16 {
		return 2
	}
	return 4
}

// rowsOffset is the byte offset of an OpRows view into its operand. Weights may be of any type (BF16, quantized
// blocks), so the offset is measured in the storage of nd.Type, not in scratch elements.
func rowsOffset(nd *Node) int64 {
	elems := nd.I[0] * Elements(nd.Shape[1:])
	if nd.Type == F32 || nd.Type == F16 || nd.Type == I32 {
		return int64(elems) * elemBytes(nd.Type)
	}
	n, err := nd.Type.RowBytes(elems) // the builder only admits whole blocks
	if err != nil {
		panic("accel: " + err.Error())
	}
	return int64(n)
}

// NewPlan orders g's nodes and assigns scratch offsets aligned to align bytes (a power of two). Nodes that no
// output depends on are dropped.
func NewPlan(g *Graph, align int64) (*Plan, error) {
	if align <= 0 || align&(align-1) != 0 {
		return nil, fmt.Errorf("accel: alignment %d is not a power of two", align)
	}
	n := len(g.Nodes)
	live := make([]bool, n)
	for i := n - 1; i >= 0; i-- {
		if g.Nodes[i].Output {
			live[i] = true
		}
		if live[i] {
			for _, a := range g.Nodes[i].Args {
				live[a.ID()] = true
			}
		}
	}
	p := &Plan{Loc: make([]Loc, n)}
	// root[i] is the node whose memory node i uses; lastUse[r] the last step reading memory of root r.
	root := make([]int, n)
	lastUse := make([]int, n)
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		root[i] = i
		lastUse[i] = -1
		if !live[i] {
			continue
		}
		switch {
		case nd.Op == OpWeight:
			p.Loc[i] = Loc{Kind: LocWeight, Root: Tensor{int32(i + 1)}}
		case nd.Op == OpBuffer:
			p.Loc[i] = Loc{Kind: LocBuffer, Root: Tensor{int32(i + 1)}}
		case nd.Op.IsView() || nd.Op == OpKVStore:
			src := nd.Args[0].ID()
			root[i] = root[src]
			p.Loc[i] = p.Loc[src]
			if nd.Op == OpRows {
				p.Loc[i].Offset += rowsOffset(nd)
			}
		default:
			p.Loc[i] = Loc{Kind: LocScratch}
		}
		if !nd.Op.IsLeaf() && !nd.Op.IsView() {
			p.Order = append(p.Order, Tensor{int32(i + 1)})
		}
	}
	step := make([]int, n) // execution step of each computed node; inputs are "step -1"
	for i := range step {
		step[i] = -1
	}
	for s, t := range p.Order {
		step[t.ID()] = s
		for _, a := range g.Nodes[t.ID()].Args {
			r := root[a.ID()]
			if s > lastUse[r] {
				lastUse[r] = s
			}
		}
	}
	for i := range g.Nodes {
		if live[i] && g.Nodes[i].Output {
			lastUse[root[i]] = len(p.Order)
		}
	}
	p.assign(g, root, step, lastUse, align)
	return p, nil
}

// assign gives every scratch root an arena offset, reusing freed ranges (best fit).
func (p *Plan) assign(g *Graph, root, step, lastUse []int, align int64) {
	type block struct{ off, size int64 }
	var free []block
	var top int64
	type owner struct {
		end  int
		off  int64
		size int64
	}
	var held []owner
	alloc := func(size int64) int64 {
		size = (size + align - 1) &^ (align - 1)
		best := -1
		for i, b := range free {
			if b.size >= size && (best < 0 || b.size < free[best].size) {
				best = i
			}
		}
		if best < 0 {
			off := top
			top += size
			return off
		}
		off := free[best].off
		free[best].off += size
		free[best].size -= size
		if free[best].size == 0 {
			free = append(free[:best], free[best+1:]...)
		}
		return off
	}
	release := func(now int) {
		kept := held[:0]
		for _, h := range held {
			if h.end < now {
				free = append(free, block{h.off, (h.size + align - 1) &^ (align - 1)})
			} else {
				kept = append(kept, h)
			}
		}
		held = kept
		sort.Slice(free, func(i, j int) bool { return free[i].off < free[j].off })
		merged := free[:0]
		for _, b := range free {
			if len(merged) > 0 && merged[len(merged)-1].off+merged[len(merged)-1].size == b.off {
				merged[len(merged)-1].size += b.size
			} else {
				merged = append(merged, b)
			}
		}
		free = merged
	}
	place := func(i int) {
		nd := &g.Nodes[i]
		size := int64(nd.Elements()) * elemBytes(nd.Type)
		off := alloc(size)
		p.Loc[i] = Loc{Kind: LocScratch, Root: Tensor{int32(i + 1)}, Offset: off}
		held = append(held, owner{end: lastUse[i], off: off, size: size})
	}
	for i := range g.Nodes { // inputs first: they are written before the run starts
		if g.Nodes[i].Op == OpInput && p.Loc[i].Kind == LocScratch {
			place(i)
		}
	}
	for s, t := range p.Order {
		release(s)
		if i := t.ID(); root[i] == i && p.Loc[i].Kind == LocScratch {
			place(i)
		}
	}
	// Views and KV stores take their root's final location.
	for i := range g.Nodes {
		if r := root[i]; r != i && p.Loc[i].Kind != LocNone {
			base := p.Loc[r] // p.Loc[i].Offset still holds the view's offset relative to its root
			p.Loc[i] = Loc{Kind: base.Kind, Root: base.Root, Offset: base.Offset + p.Loc[i].Offset}
		}
	}
	p.Scratch = top
}
