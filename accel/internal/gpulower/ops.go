package gpulower

import (
	"fmt"
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/shaders/layout"
)

// node lowers node id, reporting false for an op no shader computes. Adding an op is a case here (and its
// kernel in shaders/). Views (Reshape, Rows) compute nothing and never reach a step.
func (l *Lowerer[B]) node(id int) bool {
	nd := &l.g.Nodes[id]
	arg := func(k int) int { return nd.Args[k].ID() }
	switch nd.Op {
	case accel.OpMatMul:
		l.matMul(id)
	case accel.OpGetRows:
		l.getRows(id)
	case accel.OpAdd, accel.OpMul, accel.OpSwiGLU, accel.OpGeGLU:
		name := map[accel.Op]string{accel.OpAdd: "add", accel.OpMul: "mul", accel.OpSwiGLU: "swiglu", accel.OpGeGLU: "geglu"}[nd.Op]
		l.elementwise(name, id, arg(0), arg(1), 0, 0)
	case accel.OpSiLU, accel.OpGELU, accel.OpSigmoid:
		name := map[accel.Op]string{accel.OpSiLU: "silu", accel.OpGELU: "gelu", accel.OpSigmoid: "sigmoid"}[nd.Op]
		l.elementwise(name, id, arg(0), -1, 0, 0)
	case accel.OpScale:
		l.elementwise("scale", id, arg(0), -1, nd.F, 0)
	case accel.OpSoftCap:
		l.elementwise("softcap", id, arg(0), -1, nd.F, 1/nd.F)
	case accel.OpSwiGLUOAI:
		l.elementwise("swiglu_oai", id, arg(0), arg(1), nd.F, nd.F2)
	case accel.OpTempScale:
		l.elementwise("temp_scale", id, arg(0), arg(1), nd.F, float32(nd.I[0]))
	case accel.OpRMSNorm, accel.OpLayerNorm, accel.OpSoftmax:
		l.norm(id)
	case accel.OpSlice:
		l.slice(id)
	case accel.OpPermute:
		l.permute(id)
	case accel.OpRoPE:
		l.rope(id)
	case accel.OpKVStore:
		l.kvStore(id)
	case accel.OpAttention:
		l.attention(id)
	case accel.OpShortConv:
		l.shortConv(id)
	case accel.OpTopK:
		l.topK(id)
	case accel.OpPick, accel.OpDivSum, accel.OpAddID, accel.OpWeightedSum, accel.OpConcat:
		l.moeRows(id)
	case accel.OpMatMulID:
		l.matMulID(id)
	default:
		return false
	}
	return true
}

// segment is the part of a weight view one dispatch reads: view rows [r0, r0+rows), bound at w, whose element
// offset (in the shaders' index units) is wOff.
type segment[B comparable] struct {
	w        Binding[B]
	wOff     int64
	r0, rows int64
}

// indexBytes is the size of the unit shaders index a weight layout by: elements of F32, halves of F16 and BF16,
// words of block layouts.
func indexBytes(l *layout.Layout) int64 {
	if l.DevElems == 1 {
		return int64(l.DevBytes)
	}
	return 4
}

// weightPart binds part p of w, to the end of its buffer.
func (l *Lowerer[B]) weightPart(w *Weight[B], p Part[B]) Binding[B] {
	b := l.bind(p.Buf, p.Off, 0, indexBytes(w.Lay))
	b.Const, b.ToEnd = true, true
	return b
}

// segments splits the rows (of cols elements) of a weight view starting at element e0 over the weight's parts.
func (l *Lowerer[B]) segments(w *Weight[B], e0, rows, cols int64) []segment[B] {
	var out []segment[B]
	for _, p := range w.Parts {
		lo, hi := max(e0, p.First), min(e0+rows*cols, p.First+p.N)
		if lo >= hi {
			continue
		}
		if (lo-e0)%cols != 0 || (hi-e0)%cols != 0 {
			l.refuse(fmt.Errorf("a view of weight %q with rows of %d crosses the boundary of its split parts", w.Tensor.Name, cols))
			return nil
		}
		b := l.weightPart(w, p)
		out = append(out, segment[B]{w: b, wOff: int64(b.Elem) + w.Lay.Index(lo-p.First), r0: (lo - e0) / cols, rows: (hi - lo) / cols})
	}
	return out
}

// activations binds the activations x (rows of cols) a product with a weight of layout lay reads: converted to
// the weight's activation type in the workspace, by the first product of the step that reads them.
func (l *Lowerer[B]) activations(lay *layout.Layout, xid, rows, cols int) Binding[B] {
	act := l.operand(xid)
	if lay.Act == quant.F32 {
		return act
	}
	iv := l.c.Work.ivs[wsKey{xid, lay.Act}]
	ws := l.bind(l.c.WorkBuf, l.c.WorkBase+iv.off, actBytes(lay.Act, rows, cols), 4)
	if iv.first == l.step {
		l.quantizeRows(lay.Act, act, ws, rows, cols)
	}
	return ws
}

// matMul lowers y = x·Wᵀ: the conversion of x to the weight's activation type (once per input and type), then
// one mat-vec or tiled product per part of the weight.
func (l *Lowerer[B]) matMul(id int) {
	nd := &l.g.Nodes[id]
	wp := l.c.Places[nd.Args[0].ID()]
	w, lay := wp.W, wp.W.Lay
	n, out := nd.Shape[0], nd.Shape[1]
	cols := l.g.Nodes[nd.Args[0].ID()].Shape[1]
	y := l.operand(id)
	act := l.activations(lay, nd.Args[1].ID(), n, cols)
	wt := l.g.Nodes[nd.Args[0].ID()].Type
	for _, sg := range l.segments(w, wp.E0, int64(out), int64(cols)) {
		switch {
		case lay.DevElems > 1:
			l.matMulQ(lay, wt, sg, act, y, n, cols, out)
		case lay.WType != layout.WBF16 && cols%16 == 0 && out%4 == 0 && n > matvecMaxRows:
			// llamafile's tinyBLAS, the reference build's order for batches (taken for every number of rows,
			// with the mat-vec below for few): 16 lanes per output.
			pc := push(nil).u(uint32(sg.rows), uint32(cols), uint32(n), uint32(sg.wOff), act.Elem, y.Elem+uint32(sg.r0), uint32(out))
			groups := [3]uint32{uint32((sg.rows + 31) / 32), uint32((n + 7) / 8), 1}
			l.dispatch("matmul_"+lay.Name, wgTile, nil, groups, pc, []Binding[B]{sg.w, act}, []Binding[B]{y})
		default:
			// Row by row, up to 8 activation rows per dispatch: tinyBLAS's 16 lanes where the shape takes
			// that order, else ggml_vec_dot's.
			tpr := 64
			if lay.WType == layout.WBF16 {
				tpr = 32 // ggml_vec_dot_bf16's two sets of 16 lanes, for every shape (as the CPU backend)
			} else if cols%16 == 0 && out%4 == 0 {
				tpr = 16
			}
			per := wgRow / tpr
			for r0 := 0; r0 < n; r0 += matvecMaxRows {
				nr := min(matvecMaxRows, n-r0)
				pc := push(nil).u(uint32(sg.rows), uint32(cols), uint32(nr), uint32(sg.wOff), act.Elem+uint32(r0*cols),
					y.Elem+uint32(r0*out)+uint32(sg.r0), uint32(out), uint32(tpr))
				l.dispatch("matvec_"+lay.Name, wgRow, nil, Flat((int(sg.rows)+per-1)/per), pc, []Binding[B]{sg.w, act}, []Binding[B]{y})
			}
		}
	}
}

// quantizeRows lowers the conversion of n activation rows of cols elements to act (quantize.comp).
func (l *Lowerer[B]) quantizeRows(act quant.Type, src, dst Binding[B], n, cols int) {
	shader, units := layout.Quantize(act, n, cols)
	pc := push(nil).u(uint32(n), uint32(cols), src.Elem, dst.Elem)
	l.dispatch(shader, WGElementwise, nil, Groups(units, WGElementwise), pc, []Binding[B]{src}, []Binding[B]{dst})
}

// matMulQ lowers a quantized product over one weight segment: a mat-vec for up to 8 activation rows, else
// tiles.
func (l *Lowerer[B]) matMulQ(lay *layout.Layout, wt quant.Type, sg segment[B], act, y Binding[B], n, cols, out int) {
	spec := []uint32{layout.Form(wt, out)}
	pc := push(nil).u(uint32(sg.rows), uint32(cols/32), uint32(n), uint32(sg.wOff), act.Elem, y.Elem+uint32(sg.r0), uint32(out))
	if n <= matvecMaxRows {
		tpr := rowThreads(lay, cols)
		per := wgRow / tpr
		l.dispatch("matvec_"+lay.Name, wgRow, spec, Flat((int(sg.rows)+per-1)/per), pc.u(uint32(tpr)), []Binding[B]{sg.w, act}, []Binding[B]{y})
		return
	}
	tm, tn := 32, 16 // matmul_q.comp's tiles
	if lay.KQuant() {
		tm, tn = 16, 32
	}
	groups := [3]uint32{uint32((int(sg.rows) + tm - 1) / tm), uint32((n + tn - 1) / tn), 1}
	l.dispatch("matmul_"+lay.Name, wgTile, spec, groups, pc, []Binding[B]{sg.w, act}, []Binding[B]{y})
}

// rowThreads is how many invocations of a quantized mat-vec workgroup share one weight row of cols elements:
// enough for the row's blocks (super-blocks for K-quants), a power of two from 8 (matvec_q's least) to the
// workgroup.
func rowThreads(lay *layout.Layout, cols int) int {
	units := cols / lay.DevElems
	if lay.KQuant() {
		units = cols / quant.QKK
	}
	t := 8
	for t < units && t < wgRow {
		t *= 2
	}
	return t
}

// getRows lowers the row lookup, one dispatch per part of the table.
func (l *Lowerer[B]) getRows(id int) {
	nd := &l.g.Nodes[id]
	tid := nd.Args[0].ID()
	wp := l.c.Places[tid]
	rows, cols := l.g.Nodes[tid].Shape[0], l.g.Nodes[tid].Shape[1]
	ids := l.ids(id, 1, "id", rows)
	y := l.operand(id)
	n := nd.Shape[0]
	if wp.W == nil { // an F32 intermediate (the rows whose logits a pass computes)
		t := l.operand(tid)
		pc := push(nil).u(uint32(n), uint32(cols), 0, uint32(rows), ids.Elem, t.Elem, y.Elem)
		l.dispatch("get_rows_f32", WGElementwise, nil, Groups(n*cols, WGElementwise), pc, []Binding[B]{t, ids}, []Binding[B]{y})
		return
	}
	per := 32
	if wp.W.Lay.DevElems == 1 {
		per = 1
	}
	for _, s := range l.segments(wp.W, wp.E0, int64(rows), int64(cols)) {
		pc := push(nil).u(uint32(n), uint32(cols), uint32(s.r0), uint32(s.rows), ids.Elem, uint32(s.wOff), y.Elem)
		l.dispatch("get_rows_"+wp.W.Lay.Name, WGElementwise, nil, Groups(n*cols/per, WGElementwise), pc,
			[]Binding[B]{s.w, ids}, []Binding[B]{y})
	}
}

// elementwise lowers one of elementwise.comp's ops: a (and b) to node id.
func (l *Lowerer[B]) elementwise(name string, id, a, b int, f, inv float32) {
	nd := &l.g.Nodes[id]
	ab := l.operand(a)
	bb, nb := ab, 1
	if b >= 0 {
		bb = l.operand(b)
		nb = l.g.Nodes[b].Elements()
	}
	if name == "silu" || name == "swiglu" { // nb is the row length: the rows' last elements take ggml's scalar path
		nb = nd.Shape[len(nd.Shape)-1]
	}
	if name == "temp_scale" { // nb is the row length: every element of row r takes position b[r]
		nb = nd.Elements() / nd.Shape[0]
	}
	y := l.operand(id)
	n := nd.Elements()
	pc := push(nil).u(uint32(n), uint32(nb), ab.Elem, bb.Elem, y.Elem).f(f, inv)
	l.dispatch(name, WGElementwise, nil, Groups(n, WGElementwise), pc, []Binding[B]{ab, bb}, []Binding[B]{y})
}

// norm lowers RMSNorm, LayerNorm or Softmax, one workgroup per row.
func (l *Lowerer[B]) norm(id int) {
	nd := &l.g.Nodes[id]
	name := map[accel.Op]string{accel.OpRMSNorm: "rms_norm", accel.OpLayerNorm: "layer_norm", accel.OpSoftmax: "softmax"}[nd.Op]
	x, y := l.operand(nd.Args[0].ID()), l.operand(id)
	cols := nd.Shape[len(nd.Shape)-1]
	rows := nd.Elements() / cols
	pc := push(nil).u(uint32(rows), uint32(cols), x.Elem, y.Elem).f(nd.F)
	l.dispatch(name, wgRow, nil, Flat(rows), pc, []Binding[B]{x}, []Binding[B]{y})
}

// slice lowers the copy of columns [start, start+n) of each row.
func (l *Lowerer[B]) slice(id int) {
	nd := &l.g.Nodes[id]
	xs := l.g.Nodes[nd.Args[0].ID()].Shape
	last := nd.Shape[len(nd.Shape)-1]
	rows := nd.Elements() / last
	l.gather(id, nd.Args[0].ID(), []int{rows, last}, []int{xs[len(xs)-1], 1}, nd.I[0])
}

// permute lowers the copy of x with its axes permuted.
func (l *Lowerer[B]) permute(id int) {
	nd := &l.g.Nodes[id]
	xs := l.g.Nodes[nd.Args[0].ID()].Shape
	in := make([]int, len(xs))
	for k, st := len(xs)-1, 1; k >= 0; k-- {
		in[k], st = st, st*xs[k]
	}
	strides := make([]int, len(xs))
	for k, a := range nd.I {
		strides[k] = in[a]
	}
	l.gather(id, nd.Args[0].ID(), nd.Shape, strides, 0)
}

// gather lowers copy.comp: output shape (up to 4 dimensions) read from x with the given strides from start.
func (l *Lowerer[B]) gather(id, xid int, shape, strides []int, start int) {
	var s, st [4]uint32
	for k := range s {
		s[k], st[k] = 1, 0
	}
	for k := range shape {
		s[4-len(shape)+k], st[4-len(shape)+k] = uint32(shape[k]), uint32(strides[k])
	}
	x, y := l.operand(xid), l.operand(id)
	n := l.g.Nodes[id].Elements()
	pc := push(nil).u(s[:]...).u(st[:]...).u(uint32(n), x.Elem+uint32(start), y.Elem)
	l.dispatch("copy", WGElementwise, nil, Groups(n, WGElementwise), pc, []Binding[B]{x}, []Binding[B]{y})
}

// rope lowers RoPE. θ's scale, YaRN's correction dimensions and magnitude factor are computed here as ggml
// computes them (float32 pow and log), so the shader's angles round as the CPU's.
func (l *Lowerer[B]) rope(id int) {
	nd := &l.g.Nodes[id]
	rp := nd.RoPE
	x, y := l.operand(nd.Args[0].ID()), l.operand(id)
	pos := l.operand(nd.Args[1].ID())
	ff, hasFF := x, uint32(0)
	if len(nd.Args) > 2 {
		ff, hasFF = l.operand(nd.Args[2].ID()), 1
	}
	n, heads, size := nd.Shape[0], nd.Shape[1], nd.Shape[2]
	thetaScale := float32(math.Pow(float64(rp.Base), float64(-2/float32(rp.Dims))))
	corr := yarnCorrDims(rp.Dims, rp.OrigCtx, rp.Base, rp.BetaFast, rp.BetaSlow)
	mscale := rp.AttnFactor
	if rp.ExtFactor != 0 {
		mscale *= 1 + float32(0.1*logf(1/rp.FreqScale))
	}
	neox := uint32(0)
	if rp.Mode == accel.RoPENeoX {
		neox = 1
	}
	pc := push(nil).u(uint32(n), uint32(heads), uint32(size), uint32(rp.Dims), neox, hasFF, x.Elem, pos.Elem, ff.Elem, y.Elem).
		f(thetaScale, rp.FreqScale, rp.ExtFactor, mscale, corr[0], corr[1])
	per := max(rp.Dims/2, size-rp.Dims)
	l.dispatch("rope", WGElementwise, nil, Groups(n*per, WGElementwise), pc, []Binding[B]{x, pos, ff}, []Binding[B]{y})
}

// yarnCorrDims is ggml_rope_yarn_corr_dims in float32, as the CPU backend computes it.
func yarnCorrDims(dims, origCtx int, base, betaFast, betaSlow float32) [2]float32 {
	corrDim := func(nRot float32) float32 {
		return float32(float32(dims)*logf(float32(origCtx)/float32(float32(nRot*2)*math.Pi))) / float32(2*logf(base))
	}
	start := float32(math.Floor(float64(corrDim(betaFast))))
	end := float32(math.Ceil(float64(corrDim(betaSlow))))
	return [2]float32{max(0, start), min(float32(dims-1), end)}
}

func logf(x float32) float32 { return float32(math.Log(float64(x))) }
