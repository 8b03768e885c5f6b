package cpu

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// matMulIDStep multiplies rows by the matrices of their chosen experts (accel.Builder.MatMulID), as
// ggml_mul_mat_id: every element is the reference build's single-row dot product (OrderVecDot, or OrderRepacked for the
// types it repacks: idOrder) of one expert
// row with one activation row, converted to the weight's activation type first.
//
// The run first groups the (row, slot) pairs by expert, in pair order. The first phase converts the
// activation of every pair into a buffer ordered by those groups, so an expert's activations are contiguous;
// the second gives each worker a range of (expert, 16 weight rows) units over the experts that were chosen,
// and multiplies each unit's rows with all of its expert's activations (quant.Gemm where the type has one,
// else a dot product per pair), scattering the results to the pairs' rows. An expert nobody chose is never
// read; one chosen by many rows is read once per pass. No element's arithmetic depends on the others, so a
// row's result is the same whatever else the pass holds.
//
// Without ids (a matrix per slot, llama.cpp's ggml_mul_mat with a 3-D weight) the products take the order
// MatMul takes for the same number of rows, and slot e of every row uses matrix e.
type matMulIDStep struct {
	wID, xID, idsID, yID int
	w                    []byte
	x, y                 []float32
	ids                  []int32
	k                    matKernel
	dot                  quant.DotFn
	gemm                 *quant.Gemm
	stored               []byte // the experts in gemm's stored layout (stored.go), or nil
	sBytes               int    // bytes of an expert's stored matrix
	experts, out, in     int
	n, slots             int  // rows and slots per row
	bcast                bool // x is [n, in]: every slot of a row reads the row
	idsInput             bool // the ids are host input (checked before the run), not computed by the graph
	wRow, aRow, eBytes   int  // bytes of a weight row, a converted activation, an expert's matrix

	// Grouping (group): pairs ordered by expert; first[e] is expert e's first place, count[e] its pairs.
	order        []int32 // place → pair (row·slots + slot)
	first, count []int32
	active       []int32 // experts with pairs, ascending
	units        int     // (active expert, group of GemmRows weight rows) units
	placed       int     // pairs placed

	act       []byte    // converted activations, one per place
	tmp       []float32 // per worker: results of one unit before the scatter
	tmpFloats int
	pack      []byte // per worker: gemm scratch
	packBytes int
	quantize  idQuantize
}

// idQuantize is the first phase of a matMulIDStep.
type idQuantize struct{ s *matMulIDStep }

// idChunk is how many weight rows a worker multiplies at a time (whole quant.GemmRows groups).
const idChunk = 4 * quant.GemmRows

func newMatMulID(g *accel.Graph, id int) (*matMulIDStep, error) {
	nd := &g.Nodes[id]
	w := &g.Nodes[nd.Args[0].ID()]
	if !matKernels[w.Type].ok() {
		return nil, fmt.Errorf("no matrix kernel for weight type %s", w.Type)
	}
	xs := g.Nodes[nd.Args[1].ID()].Shape
	s := &matMulIDStep{wID: nd.Args[0].ID(), xID: nd.Args[1].ID(), idsID: -1, yID: id, k: matKernels[w.Type],
		experts: w.Shape[0], out: w.Shape[1], in: w.Shape[2], n: nd.Shape[0], slots: nd.Shape[1], bcast: len(xs) == 2}
	o := idOrder(w.Type, s.out)
	if len(nd.Args) == 3 {
		s.idsID = nd.Args[2].ID()
		r := &g.Nodes[s.idsID]
		for r.Op.IsView() {
			r = &g.Nodes[r.Args[0].ID()]
		}
		s.idsInput = r.Op == accel.OpInput
	} else {
		o = orderFor(w.Type, s.in, s.out)
	}
	s.dot = quant.Dot(w.Type, o)
	s.wRow = storageBytes(w.Type, s.in)
	s.eBytes = s.out * s.wRow
	s.aRow = storageBytes(s.k.act, s.in)
	if gm := quant.GemmFor(w.Type, o); gm != nil {
		s.gemm = gm
		var err error
		if s.aRow, s.stored, s.packBytes, err = gemmSetup(g, s.wID, gm, s.in); err != nil {
			return nil, err
		}
		s.sBytes = gm.PackedBytes(s.in, s.out)
	}
	pairs := s.n * s.slots
	s.tmpFloats = pairs * idChunk
	s.order = make([]int32, pairs)
	s.first, s.count = make([]int32, s.experts), make([]int32, s.experts)
	s.active = make([]int32, 0, s.experts)
	s.quantize.s = s
	return s, nil
}

func (s *matMulIDStep) pairs() int { return s.n * s.slots }

func (s *matMulIDStep) workspace(shares int) int {
	return alignUp(s.pairs()*s.aRow) + shares*(alignUp(4*s.tmpFloats)+s.packBytes)
}

func (s *matMulIDStep) bind(p *program, ws []byte) {
	s.w, s.x, s.y = p.mem[s.wID], f32s(p.mem[s.xID]), f32s(p.mem[s.yID])
	if s.idsID >= 0 {
		s.ids = i32s(p.mem[s.idsID])
	}
	a := alignUp(s.pairs() * s.aRow)
	s.act = ws[:s.pairs()*s.aRow]
	shares := p.b.threads
	s.tmp = f32s(ws[a : a+shares*alignUp(4*s.tmpFloats)])
	s.pack = ws[a+shares*alignUp(4*s.tmpFloats) : s.workspace(shares)]
}

// check validates expert ids that come from the host; those the graph computes (TopK) are in range.
func (s *matMulIDStep) check() error {
	if !s.idsInput {
		return nil
	}
	for p, e := range s.ids {
		if e < 0 || int(e) >= s.experts {
			return fmt.Errorf("row %d slot %d: expert %d outside the %d experts", p/s.slots, p%s.slots, e, s.experts)
		}
	}
	return nil
}

// group orders the pairs by expert and lists the experts chosen. An id out of range (which neither a checked
// input nor TopK gives) is skipped.
func (s *matMulIDStep) group() {
	clear(s.count)
	s.active = s.active[:0]
	for p := 0; p < s.pairs(); p++ {
		if e := s.expertOf(p); e >= 0 && e < s.experts {
			s.count[e]++
		}
	}
	at := int32(0)
	for e, c := range s.count {
		s.first[e] = at
		if c > 0 {
			s.active = append(s.active, int32(e))
		}
		at += c
	}
	s.placed = int(at)
	for p := 0; p < s.pairs(); p++ {
		if e := s.expertOf(p); e >= 0 && e < s.experts {
			s.order[s.first[e]] = int32(p)
			s.first[e]++
		}
	}
	for _, e := range s.active {
		s.first[e] -= s.count[e]
	}
	groups := (s.out + quant.GemmRows - 1) / quant.GemmRows
	s.units = len(s.active) * groups
}

// expertOf returns the expert of pair p.
func (s *matMulIDStep) expertOf(p int) int {
	if s.ids == nil {
		return p % s.slots
	}
	return int(s.ids[p])
}

func (s *matMulIDStep) exec(p *pool) {
	s.group()
	p.run(&s.quantize, p.shares(s.placed*s.in, elemGrain))
	work := 0
	for _, e := range s.active {
		work += int(s.count[e])
	}
	p.run(s, min(s.units, p.shares(work*s.in*s.out, matGrain)))
}

// run converts share w of the places' activations.
func (q *idQuantize) run(w, nw int) {
	s := q.s
	lo, hi := split(s.placed, w, nw)
	for g := lo; g < hi; g++ {
		p := int(s.order[g])
		r := p
		if s.bcast {
			r = p / s.slots
		}
		src, dst := s.x[r*s.in:(r+1)*s.in], s.act[g*s.aRow:(g+1)*s.aRow]
		if s.gemm != nil {
			s.gemm.QuantizeActivation(src, dst)
		} else {
			s.k.quantize(src, dst)
		}
	}
}

// run multiplies units [lo, hi) of share w: consecutive units of one expert at most idChunk rows at a time.
func (s *matMulIDStep) run(w, nw int) {
	groups := (s.out + quant.GemmRows - 1) / quant.GemmRows
	lo, hi := split(s.units, w, nw)
	tmp := s.tmp[w*alignUp(4*s.tmpFloats)/4:][:s.tmpFloats]
	pack := s.pack[w*s.packBytes : (w+1)*s.packBytes]
	for u := lo; u < hi; {
		ai, g0 := u/groups, u%groups
		g1 := min(groups, g0+(hi-u), g0+idChunk/quant.GemmRows)
		e := int(s.active[ai])
		s.multiply(e, g0*quant.GemmRows, min(s.out, g1*quant.GemmRows), tmp, pack)
		u += g1 - g0
	}
}

// multiply computes weight rows [r0, r1) of expert e for every pair that chose it.
func (s *matMulIDStep) multiply(e, r0, r1 int, tmp []float32, pack []byte) {
	first, cnt := int(s.first[e]), int(s.count[e])
	wm := s.w[e*s.eBytes:]
	act := s.act[first*s.aRow:]
	rows := r1 - r0
	if s.gemm != nil {
		if useStored(s.gemm, s.stored, cnt) {
			s.gemm.MulPacked(s.in, s.stored[e*s.sBytes+s.gemm.PackedBytes(s.in, r0):], rows, act, s.aRow, cnt, tmp, rows)
		} else {
			s.gemm.Mul(s.in, wm[r0*s.wRow:r1*s.wRow], s.wRow, rows, act, s.aRow, cnt, tmp, rows, pack)
		}
		for c := 0; c < cnt; c++ {
			p := int(s.order[first+c])
			copy(s.y[p*s.out+r0:p*s.out+r1], tmp[c*rows:(c+1)*rows])
		}
		return
	}
	for o := r0; o < r1; o++ {
		wr := wm[o*s.wRow : (o+1)*s.wRow]
		for c := 0; c < cnt; c++ {
			p := int(s.order[first+c])
			s.y[p*s.out+o] = s.dot(s.in, wr, act[c*s.aRow:(c+1)*s.aRow])
		}
	}
}

// idOrder is the order of mul_mat_id over weights of type t with out rows per expert. The reference build
// takes every (row, expert) pair through a single-row kernel: ggml_vec_dot, or for the experts it repacks (a
// multiple of repackedM rows: Q4_0, IQ4_NL, Q4_K, Q2_K…) the repacked single-row kernel. forma takes MatMul's
// order for quantized experts (orderFor), so an expert's product equals the dense product of the same matrix:
// for Q4_0 and IQ4_NL that is the reference's too; for the K-quants the reference's single-row kernel fuses
// once per super-block instead, a difference of float32 rounding that the golden cases bound. F32 and F16
// experts take ggml_vec_dot's order, as the reference does (MatMul's tiled order is a batch kernel's).
func idOrder(t quant.Type, out int) quant.Order {
	if t == quant.F32 || t == quant.F16 {
		return quant.OrderVecDot
	}
	return orderFor(t, 0, out)
}
