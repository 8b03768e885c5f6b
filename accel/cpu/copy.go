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
// split the columns (whole blocks of a quantized cache), so a position given twice is written by one worker
// only (the last write wins). A Q8_0 row is quantized as the reference build's from_float for Q8_0 does (its
// set_rows uses the CPU type traits: the x86 quantize_row_q8_0, QuantizeActivation's), Q4_0 by
// quantize_row_q4_0_ref. With a rotation (accel.Builder.KVStoreRotated) each block of rot elements is
// multiplied by the Hadamard matrix first, in the workspace.
type kvStoreStep struct {
	xID, posID, cID int
	x               []float32
	pos             []int32
	cache           []byte
	typ             quant.Type
	ctx, row        int
	blk, blkBytes   int // elements and bytes of one block of the cache type
	rot             int // Hadamard rotation size, 0 for none
	unit            int // elements a worker takes at a time: a block, or a rotation block
	ws              []float32
}

func newKVStore(g *accel.Graph, id int) *kvStoreStep {
	nd := &g.Nodes[id]
	s := &kvStoreStep{xID: nd.Args[1].ID(), posID: nd.Args[2].ID(), cID: id, typ: nd.Type,
		ctx: nd.Shape[0], row: nd.Shape[1] * nd.Shape[2], blk: nd.Type.BlockElems(), blkBytes: nd.Type.BlockBytes()}
	s.unit = s.blk
	if len(nd.I) == 1 {
		s.rot, s.unit = nd.I[0], max(s.blk, nd.I[0])
	}
	return s
}

func (s *kvStoreStep) workspace(shares int) int {
	if s.rot == 0 {
		return 0
	}
	return 4 * shares * s.unit
}

func (s *kvStoreStep) bind(p *program, ws []byte) {
	s.x, s.pos, s.cache = f32s(p.mem[s.xID]), i32s(p.mem[s.posID]), p.mem[s.cID]
	s.ws = f32s(ws[:s.workspace(p.b.threads)])
}

func (s *kvStoreStep) check() error {
	for i, p := range s.pos {
		if p < 0 || int(p) >= s.ctx {
			return fmt.Errorf("row %d: position %d outside the cache [0, %d)", i, p, s.ctx)
		}
	}
	return nil
}

func (s *kvStoreStep) exec(p *pool) { p.run(s, min(s.row/s.unit, p.shares(len(s.x), elemGrain))) }

func (s *kvStoreStep) run(w, nw int) {
	lo, hi := split(s.row/s.unit, w, nw)
	lo, hi = lo*s.unit, hi*s.unit
	for i, p := range s.pos {
		if s.rot == 0 {
			s.store(s.x[i*s.row+lo:i*s.row+hi], int(p)*s.row+lo)
			continue
		}
		tmp := s.ws[w*s.unit : (w+1)*s.unit]
		for c := lo; c < hi; c += s.unit {
			rotate(s.x[i*s.row+c:i*s.row+c+s.unit], tmp, s.rot)
			s.store(tmp, int(p)*s.row+c)
		}
	}
}

// store converts x to the cache's type at element dst.
func (s *kvStoreStep) store(x []float32, dst int) {
	switch s.typ {
	case quant.F16:
		quant.QuantizeF16(x, s.cache[2*dst:2*(dst+len(x))])
	case quant.F32:
		copy(f32s(s.cache)[dst:dst+len(x)], x)
	case quant.Q8_0:
		quant.QuantizeQ8_0(x, s.cache[dst/s.blk*s.blkBytes:][:len(x)/s.blk*s.blkBytes])
	case quant.Q4_0:
		quant.QuantizeQ4_0(x, s.cache[dst/s.blk*s.blkBytes:][:len(x)/s.blk*s.blkBytes])
	}
}
