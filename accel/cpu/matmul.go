package cpu

import (
	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// matKernel is how the CPU multiplies by one weight type, as ggml's type traits: the activation type rows are
// converted to (vec_dot_type) and the converter. The dot products themselves depend on the weight's shape (see
// orderFor) and come from gguf/quant: quant.Dot, SIMD kernels that return the bits of the scalar references
// (quant.RefDot), and quant.GemmFor, batched kernels with the same bits.
type matKernel struct {
	act      quant.Type
	quantize func(src []float32, dst []byte)
}

func (k matKernel) ok() bool { return k.quantize != nil }

// matKernels is indexed by weight type; read-only after initialisation.
var matKernels = func() (ks [quant.MXFP4 + 1]matKernel) {
	for _, t := range weightTypes {
		act := quant.ActivationType(t)
		ks[t] = matKernel{act: act, quantize: quant.ActivationQuantizer(act)}
	}
	return ks
}()

// The order of each product is chosen by the weight's type and shape alone, never by the number of activation
// rows, so that a row's result does not depend on the batch it is computed in (batch invariance): the same
// bits alone, in a prompt of any length, or beside other sequences' rows. Where the reference build uses
// other kernels for batches than for single rows, forma takes the batch kernels' order for every row (see
// docs/architecture.md, "Batch invariance", for the measurements behind that choice):
//   - llamafile's tinyBLAS for F32 and F16 weights (the reference's batch kernel when the row length is a
//     multiple of tinyBLAS's 16-float vectors and the weight's row count a multiple of its 4-row tiles;
//     single rows take ggml_vec_dot there);
//   - the repacked orders for Q4_0, IQ4_NL, Q4_K and Q2_K weights whose row count is a multiple of 8, which
//     the reference stores interleaved 8 rows at a time (q4_0_8x8 and iq4_nl_8x8: one order for batches and
//     single rows; q4_K_8x8 and q2_K_8x8: the order of the batch kernel, per pair of groups or per half
//     super-block, where single rows and a batch's last n mod 4 rows fuse once per super-block);
//   - the x86 vec_dot order for every other type and shape, which for the 32-element types is also
//     tinyBLAS's batch order (IQ4_NL's single rows alternate two sets of lanes there; forma takes tinyBLAS's).
//     BF16 is the exception to the batch rule: its tinyBLAS batches (VDPBF16PS, one set of lanes) and its
//     single rows (ggml_vec_dot_bf16, two sets) differ, and forma takes the single rows' order, whose
//     greedy generations match the reference's (the activations' rounding to bf16 amplifies the last-bit
//     differences of the other choice into flipped near-ties).
const (
	tiledK    = 16
	tiledM    = 4
	repackedM = 8
)

// orderFor returns the order of a product with weight rows of type t, in elements each, out rows.
func orderFor(t quant.Type, in, out int) quant.Order {
	switch {
	case quant.RefDot(t, quant.OrderTiled) != nil && in%tiledK == 0 && out%tiledM == 0: // F32, F16
		return quant.OrderTiled
	case quant.RefDot(t, quant.OrderRepacked) != nil && out%repackedM == 0: // Q4_0, Q4_K, Q2_K, IQ4_NL
		return quant.OrderRepacked
	}
	return quant.OrderVecDot
}

// matGrain is the least number of multiply-adds worth a worker.
const matGrain = 1 << 16

// matMulStep computes y = x·Wᵀ: first every activation row is converted to the kernel's activation type (in the
// workspace), then each worker takes weight rows (an equal range, or for at most chunkCols activation rows
// chunks as it goes, see run) and dots each with every activation row — or, with a batched kernel
// (quant.Gemm), multiplies its groups of quant.GemmRows weight rows with all activation rows at once: from the
// weight's stored copy where the kernel has a stored layout (stored.go), else packing each group into scratch
// of its own in the workspace.
type matMulStep struct {
	wID, xID, yID int
	w             []byte
	x, y          []float32
	k             matKernel
	dots          quant.RowsDotFn
	n, in, out    int
	wRow, aRow    int // bytes of a weight row and of a converted activation row
	act           []byte
	quantize      quantizePhase
	gemm          *quant.Gemm // nil: dot products
	stored        []byte      // the weight in gemm's stored layout (stored.go), or nil
	packBytes     int         // scratch of one worker for gemm on the original layout
	pack          []byte      // the workers' scratch, packBytes each
	chunks        chunks      // the units (rows, or groups of them) of a product of few activation rows
	sharedAct     bool        // act holds x converted already, by the step before (shareActivations)
}

// shareActivations marks the products whose step follows one that converted the same activations to the same
// layout (q, k and v of one input, a feed-forward's gate and up): every step's workspace starts at the same
// place, and nothing runs between the two, so the converted rows are still there.
func shareActivations(steps []step) {
	for i := 1; i < len(steps); i++ {
		a, okA := steps[i-1].(*matMulStep)
		b, okB := steps[i].(*matMulStep)
		if okA && okB && a.xID == b.xID && a.n == b.n && a.in == b.in && a.aRow == b.aRow && a.gemm == b.gemm &&
			(a.gemm != nil || a.k.act == b.k.act) {
			b.sharedAct = true
		}
	}
}

// chunkCols is the most activation rows for which the shares take a product's weight rows in chunks (see
// chunks) rather than in equal ranges: the memory-bound products of decoding and small batches. Larger batches
// are bound by the multiplies, which split evenly, and keep the weight rows of a share together.
const chunkCols = 4

// quantizePhase is the first phase of a matMulStep, a task of its own.
type quantizePhase struct{ s *matMulStep }

func newMatMul(g *accel.Graph, id int) (*matMulStep, error) {
	nd := &g.Nodes[id]
	w := &g.Nodes[nd.Args[0].ID()]
	s := &matMulStep{wID: nd.Args[0].ID(), xID: nd.Args[1].ID(), yID: id, k: matKernels[w.Type],
		n: nd.Shape[0], in: w.Shape[1], out: w.Shape[0]}
	s.wRow = storageBytes(w.Type, s.in)
	s.aRow = storageBytes(s.k.act, s.in)
	o := orderFor(w.Type, s.in, s.out)
	s.dots = quant.DotRows(w.Type, o)
	if gm := quant.GemmFor(w.Type, o); gm != nil {
		s.gemm = gm
		var err error
		if s.aRow, s.stored, s.packBytes, err = gemmSetup(g, s.wID, gm, s.in); err != nil {
			return nil, err
		}
	}
	s.quantize.s = s
	return s, nil
}

func (s *matMulStep) check() error { return nil }
func (s *matMulStep) workspace(shares int) int {
	return alignUp(s.n*s.aRow) + shares*s.packBytes
}
func (s *matMulStep) bind(p *program, ws []byte) {
	s.w, s.x, s.y = p.mem[s.wID], f32s(p.mem[s.xID]), f32s(p.mem[s.yID])
	s.act = ws[:s.n*s.aRow]
	s.pack = ws[alignUp(s.n*s.aRow):s.workspace(p.b.threads)]
}

func (s *matMulStep) exec(p *pool) {
	if !s.sharedAct {
		p.run(&s.quantize, p.shares(s.n*s.in, elemGrain))
	}
	s.chunks.reset()
	p.run(s, min(s.out, p.shares(s.n*s.in*s.out, matGrain)))
}

// run converts the activation rows: share w of the n·in/block blocks, cut at row ends.
func (q *quantizePhase) run(w, nw int) {
	s := q.s
	be, bb := s.k.act.BlockElems(), s.k.act.BlockBytes()
	if s.gemm != nil {
		be = s.gemm.Weight().BlockElems()
		bb = s.gemm.ActivationRowBytes(be)
	}
	perRow := s.in / be
	lo, hi := split(s.n*perRow, w, nw)
	for u := lo; u < hi; {
		r, b0 := u/perRow, u%perRow
		b1 := min(perRow, b0+hi-u)
		src, dst := s.x[r*s.in+b0*be:r*s.in+b1*be], s.act[r*s.aRow+b0*bb:r*s.aRow+b1*bb]
		if s.gemm != nil {
			s.gemm.QuantizeActivation(src, dst)
		} else {
			s.k.quantize(src, dst)
		}
		u += b1 - b0
	}
}

// run multiplies share w's weight rows with every converted activation row, in units of whole groups of
// quant.GemmRows rows with a batched kernel, else of single rows: an equal range of the units, or for at most
// chunkCols activation rows chunks of them until none is left.
func (s *matMulStep) run(w, nw int) {
	unit := 1
	if s.gemm != nil {
		unit = quant.GemmRows
	}
	units := (s.out + unit - 1) / unit
	if s.n > chunkCols || nw == 1 {
		ulo, uhi := split(units, w, nw)
		s.rows(w, ulo, uhi)
		return
	}
	for least := max(1, chunkRows/unit); ; {
		ulo, uhi := s.chunks.take(units, nw, least)
		if ulo == uhi {
			return
		}
		s.rows(w, ulo, uhi)
	}
}

// chunkRows is the fewest weight rows a chunk takes.
const chunkRows = 64

// rows multiplies the weight rows of units [ulo, uhi) (of quant.GemmRows rows with a batched kernel, else
// single rows) by every activation row, in share w.
func (s *matMulStep) rows(w, ulo, uhi int) {
	if s.gemm != nil {
		lo, hi := ulo*quant.GemmRows, min(s.out, uhi*quant.GemmRows)
		if lo < hi && useStored(s.gemm, s.stored, s.n) {
			s.gemm.MulPacked(s.in, s.stored[s.gemm.PackedBytes(s.in, lo):], hi-lo, s.act, s.aRow, s.n, s.y[lo:], s.out)
		} else if lo < hi {
			s.gemm.Mul(s.in, s.w[lo*s.wRow:hi*s.wRow], s.wRow, hi-lo, s.act, s.aRow, s.n, s.y[lo:], s.out,
				s.pack[w*s.packBytes:(w+1)*s.packBytes])
		}
		return
	}
	// a few weight rows at a time against every activation row, while they are in cache
	for o := ulo; o < uhi; o += dotRows {
		e := min(uhi, o+dotRows)
		s.dots(s.in, s.w[o*s.wRow:e*s.wRow], s.wRow, e-o, s.act, s.aRow, s.n, s.y[o:], s.out)
	}
}

// useStored reports whether a product of cols activation rows through gm takes the weight's stored copy:
// there is one and it serves products of that many (quant.Gemm.StoredCols).
func useStored(gm *quant.Gemm, stored []byte, cols int) bool {
	return stored != nil && (gm.StoredCols() == 0 || cols <= gm.StoredCols())
}

// dotRows is the weight rows a product without a batched kernel passes to its dot product at once (quant.DotRows:
// the F16 kernel takes four rows and four activation rows together and converts the activations' tails once
// per call).
const dotRows = 32

// gemmSetup returns what a product by weight node wID through the batched kernel gm (rows of in elements)
// needs: the bytes of a converted activation row, the weight's stored copy (nil: packed per pass) and the
// scratch of each worker for that packing (also with a stored copy that serves only products of few
// activation rows).
func gemmSetup(g *accel.Graph, wID int, gm *quant.Gemm, in int) (aRow int, stored []byte, packBytes int, err error) {
	if stored, err = storedWeight(g, wID, gm); err != nil {
		return 0, nil, 0, err
	}
	if stored == nil || gm.StoredCols() > 0 {
		packBytes = alignUp(gm.ScratchBytes(in))
	}
	return gm.ActivationRowBytes(in), stored, packBytes, nil
}
