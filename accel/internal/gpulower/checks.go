package gpulower

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
)

// Checks are the run-time checks of a program's I32 operands, made on the host copies of its inputs before
// every run: the shaders trust their ids and positions.
type Checks struct {
	Ranges []RangeCheck
	// Attn validate each attention's (and short convolution's) positions, sequences and pages
	// (accel.AttnLayout.Check).
	Attn []AttnCheck
}

// RangeCheck is a check of an I32 operand (ids, positions): every value must be in [0, Limit).
type RangeCheck struct {
	Node  int
	What  string
	Vals  []int32
	Limit int32
}

// AttnCheck is the check of an attention's I32 operands (host copies; Seq and Pages nil unless paged).
type AttnCheck struct {
	Node            int
	Lay             accel.AttnLayout
	Pos, Seq, Pages []int32
}

// Verify runs the checks against the inputs' current values, returning an error naming the node and the value
// that fails. It allocates nothing unless one does.
func (c *Checks) Verify(g *accel.Graph) error {
	for i := range c.Ranges {
		r := &c.Ranges[i]
		for j, v := range r.Vals {
			if v < 0 || v >= r.Limit {
				return fmt.Errorf("node %s: %s %d is %d, outside [0, %d)", g.Nodes[r.Node].Label(r.Node), r.What, j, v, r.Limit)
			}
		}
	}
	for i := range c.Attn {
		a := &c.Attn[i]
		if err := a.Lay.Check(a.Pos, a.Seq, a.Pages); err != nil {
			return fmt.Errorf("node %s: %w", g.Nodes[a.Node].Label(a.Node), err)
		}
	}
	return nil
}

// ids binds the I32 operand k of node id and registers the check that its values lie in [0, limit) before
// every run. I32 tensors are inputs or views of them; their values are known to the host.
func (l *Lowerer[B]) ids(id, k int, what string, limit int) Binding[B] {
	b, vals := l.shadow(id, k, what)
	if vals != nil {
		l.checks.Ranges = append(l.checks.Ranges, RangeCheck{Node: id, What: what, Vals: vals, Limit: int32(limit)})
	}
	return b
}

// idOperand binds the I32 operand k of node id. Ids the host sets are checked before every run (values in [0,
// limit)); ids the graph computes (TopK) are in range by construction.
func (l *Lowerer[B]) idOperand(id, k int, what string, limit int) Binding[B] {
	aid := l.g.Nodes[id].Args[k].ID()
	if l.g.Nodes[l.c.Plan.Loc[aid].Root.ID()].Op == accel.OpInput {
		return l.ids(id, k, what, limit)
	}
	return l.operand(aid)
}

// shadow returns the binding of I32 operand k of node id, which must be (a view of) an input, and the host
// copy of its values that the checks before each run read (nil, with the error set, if it is not an input).
func (l *Lowerer[B]) shadow(id, k int, what string) (Binding[B], []int32) {
	nd := &l.g.Nodes[id]
	aid := nd.Args[k].ID()
	b := l.operand(aid)
	loc := l.c.Plan.Loc[aid]
	root := loc.Root.ID()
	if l.g.Nodes[root].Op != accel.OpInput {
		l.refuse(fmt.Errorf("%s operand is not an input", what))
		return b, nil
	}
	first := (loc.Offset - l.c.Plan.Loc[root].Offset) / 4
	return b, l.c.Shadows[root][first : first+int64(l.g.Nodes[aid].Elements())]
}
