package accel

import "fmt"

// AttnLayout is where an OpAttention node finds its sequences' cells: Rows cache rows in pages of PageSize rows,
// a table of Seqs rows of MaxPages pages. The single-sequence form (Builder.Attention) is one page of all the
// cache's rows, cell c in row c.
// VSize elements of each value row are read, VStride apart (VSize < VStride when the values are the keys'
// leading elements, AttentionParams.VSize).
type AttnLayout struct {
	Paged                bool
	Rows, PageSize       int
	Seqs, MaxPages       int
	Heads, KVHeads       int
	Size, VSize, Queries int
	VStride              int
	Sinks                bool // the node's last operand is the attention sinks
	// Window is the sliding window (0: none). A query at position p reads only cells p-Window+1…p, so a
	// sequence's pages wholly behind every query's window may be released (a negative page in the table).
	Window int
}

// AttnLayoutOf returns the layout of attention node id of g.
func AttnLayoutOf(g *Graph, id int) AttnLayout {
	nd := &g.Nodes[id]
	q, k, v := g.Node(nd.Args[0]), g.Node(nd.Args[1]), g.Node(nd.Args[2])
	l := AttnLayout{Rows: k.Shape[0], PageSize: k.Shape[0], Seqs: 1, MaxPages: 1, Heads: q.Shape[1], KVHeads: k.Shape[1],
		Size: q.Shape[2], VSize: v.Shape[2], VStride: v.Shape[2], Queries: q.Shape[0], Sinks: nd.Attn.Sinks.Valid(),
		Window: nd.Attn.Window}
	if nd.Attn.VSize > 0 {
		l.VSize = nd.Attn.VSize
	}
	if nd.Attn.PageSize > 0 {
		ps := g.Node(nd.Args[5]).Shape
		l.Paged, l.PageSize, l.Seqs, l.MaxPages = true, nd.Attn.PageSize, ps[0], ps[1]
	}
	return l
}

// Cells is the most cells (positions) a sequence can have.
func (l AttnLayout) Cells() int { return l.MaxPages * l.PageSize }

// Check validates the run-time inputs of an attention before anything reads the cache: every position within
// its sequence's cells, and, paged, every sequence a row of the table and every page a query can see inside the
// cache (with a window, only the pages holding cells inside it). seq and pages are nil for the single-sequence
// form. It allocates nothing.
func (l AttnLayout) Check(pos, seq, pages []int32) error {
	cells, nPages := l.Cells(), l.Rows/l.PageSize
	for i, p := range pos {
		if p < 0 || int(p) >= cells {
			return fmt.Errorf("query %d: position %d outside the cache [0, %d)", i, p, cells)
		}
		if !l.Paged {
			continue
		}
		q := seq[i]
		if q < 0 || int(q) >= l.Seqs {
			return fmt.Errorf("query %d: sequence %d outside the page table's %d", i, q, l.Seqs)
		}
		from := 0 // the pages a preceding query of the same sequence checked need no second look
		if l.Window > 0 {
			from = max(0, int(p)-l.Window+1) / l.PageSize
		}
		if i > 0 && q == seq[i-1] && p > pos[i-1] {
			from = max(from, int(pos[i-1])/l.PageSize+1)
		}
		table := pages[int(q)*l.MaxPages:][:l.MaxPages]
		for j := from; j <= int(p)/l.PageSize; j++ {
			if pg := table[j]; pg < 0 || int(pg) >= nPages {
				return fmt.Errorf("sequence %d: page %d is %d, outside the cache's %d pages", q, j, pg, nPages)
			}
		}
	}
	return nil
}
