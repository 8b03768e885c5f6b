package cpu

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// getRowsStep dequantizes rows of a table (an embedding) selected by ids.
type getRowsStep struct {
	plain
	tID, idsID, yID int
	table           []byte
	typ             accel.DType
	ids             []int32
	y               []float32
	rows, cols, rb  int
}

func newGetRows(g *accel.Graph, id int) *getRowsStep {
	nd := &g.Nodes[id]
	t := &g.Nodes[nd.Args[0].ID()]
	return &getRowsStep{tID: nd.Args[0].ID(), idsID: nd.Args[1].ID(), yID: id, typ: t.Type,
		rows: t.Shape[0], cols: t.Shape[1], rb: storageBytes(t.Type, t.Shape[1])}
}

func (s *getRowsStep) bind(p *program, _ []byte) {
	s.table, s.ids, s.y = p.mem[s.tID], i32s(p.mem[s.idsID]), f32s(p.mem[s.yID])
}

func (s *getRowsStep) check() error {
	for i, r := range s.ids {
		if r < 0 || int(r) >= s.rows {
			return fmt.Errorf("id %d: row %d outside the table's %d rows", i, r, s.rows)
		}
	}
	return nil
}

func (s *getRowsStep) exec(p *pool) { p.run(s, min(len(s.ids), p.shares(len(s.y), elemGrain))) }

func (s *getRowsStep) run(w, nw int) {
	lo, hi := split(len(s.ids), w, nw)
	for i := lo; i < hi; i++ {
		r := int(s.ids[i])
		// Sizes were checked at compile time, so Dequantize cannot fail.
		_ = quant.Dequantize(s.typ, s.table[r*s.rb:(r+1)*s.rb], s.y[i*s.cols:(i+1)*s.cols])
	}
}

// sliceStep copies columns [start, start+count) of every row.
type sliceStep struct {
	plain
	xID, yID           int
	x, y               []float32
	cols, start, count int
}

func (s *sliceStep) bind(p *program, _ []byte) { s.x, s.y = f32s(p.mem[s.xID]), f32s(p.mem[s.yID]) }
func (s *sliceStep) exec(p *pool) {
	rows := len(s.y) / s.count
	p.run(s, min(rows, p.shares(len(s.y), elemGrain)))
}

func (s *sliceStep) run(w, nw int) {
	lo, hi := split(len(s.y)/s.count, w, nw)
	for r := lo; r < hi; r++ {
		copy(s.y[r*s.count:(r+1)*s.count], s.x[r*s.cols+s.start:r*s.cols+s.start+s.count])
	}
}

// permuteStep copies x with its axes reordered, one output row (last dimension) at a time.
type permuteStep struct {
	plain
	xID, yID int
	x, y     []float32
	shape    []int // output shape
	stride   []int // input stride (elements) of each output dimension
}

func newPermute(g *accel.Graph, id int) *permuteStep {
	nd := &g.Nodes[id]
	xs := g.Nodes[nd.Args[0].ID()].Shape
	in := make([]int, len(xs))
	for k, st := len(xs)-1, 1; k >= 0; k-- {
		in[k], st = st, st*xs[k]
	}
	s := &permuteStep{xID: nd.Args[0].ID(), yID: id, shape: nd.Shape, stride: make([]int, len(xs))}
	for k, a := range nd.I {
		s.stride[k] = in[a]
	}
	return s
}

func (s *permuteStep) bind(p *program, _ []byte) { s.x, s.y = f32s(p.mem[s.xID]), f32s(p.mem[s.yID]) }
func (s *permuteStep) exec(p *pool) {
	last := s.shape[len(s.shape)-1]
	p.run(s, min(len(s.y)/last, p.shares(len(s.y), elemGrain)))
}

func (s *permuteStep) run(w, nw int) {
	nd := len(s.shape)
	last, lastStride := s.shape[nd-1], s.stride[nd-1]
	lo, hi := split(len(s.y)/last, w, nw)
	for r := lo; r < hi; r++ {
		base, rest := 0, r
		for k := nd - 2; k >= 0; k-- {
			base += rest % s.shape[k] * s.stride[k]
			rest /= s.shape[k]
		}
		y := s.y[r*last : (r+1)*last]
		for c := range y {
			y[c] = s.x[base+c*lastStride]
		}
	}
}

// kvStoreStep writes rows of x into the cache rows given by positions, converting to the cache type. Workers
// split the columns, so a position given twice is written by one worker only (the last write wins).
type kvStoreStep struct {
	xID, posID, cID int
	x               []float32
	pos             []int32
	cache           []byte
	f16             bool
	ctx, row        int
}

func newKVStore(g *accel.Graph, id int) *kvStoreStep {
	nd := &g.Nodes[id]
	return &kvStoreStep{xID: nd.Args[1].ID(), posID: nd.Args[2].ID(), cID: id, f16: nd.Type == quant.F16,
		ctx: nd.Shape[0], row: nd.Shape[1] * nd.Shape[2]}
}

func (s *kvStoreStep) workspace(_ int) int { return 0 }
func (s *kvStoreStep) bind(p *program, _ []byte) {
	s.x, s.pos, s.cache = f32s(p.mem[s.xID]), i32s(p.mem[s.posID]), p.mem[s.cID]
}

func (s *kvStoreStep) check() error {
	for i, p := range s.pos {
		if p < 0 || int(p) >= s.ctx {
			return fmt.Errorf("row %d: position %d outside the cache [0, %d)", i, p, s.ctx)
		}
	}
	return nil
}

func (s *kvStoreStep) exec(p *pool) { p.run(s, min(s.row, p.shares(len(s.x), elemGrain))) }

func (s *kvStoreStep) run(w, nw int) {
	lo, hi := split(s.row, w, nw)
	for i, p := range s.pos {
		x := s.x[i*s.row+lo : i*s.row+hi]
		dst := int(p)*s.row + lo
		if s.f16 {
			c := u16s(s.cache)[dst : dst+len(x)]
			for j, v := range x {
				c[j] = quant.F32ToF16(v)
			}
		} else {
			copy(f32s(s.cache)[dst:dst+len(x)], x)
		}
	}
}
