package vulkan

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/shaders"
)

// Workgroup sizes of the shaders (specialization constant 0). matmul_q, matmul_f and attention assume theirs.
const (
	wgElementwise = 64
	wgRow         = 128 // one workgroup per row or per (query, head)
	wgTile        = 128
	matvecMaxRows = 8   // activation rows up to which a product is a mat-vec (shaders' MAXCOLS)
	maxHeadSize   = 640 // attention.comp's MAX_HEAD
	maxDispatchX  = 65535
)

// recorder records a program's command buffer, inserting barriers where hazards require them.
type recorder struct {
	p    *program
	c    *Commands
	haz  hazards
	step int
	err  error
}

// record records every step of the plan, then the copies of the outputs into the readback buffer.
func (p *program) record() error {
	c, err := p.b.dev.NewCommands(CommandsOptions{Name: "program"})
	if err != nil {
		return err
	}
	p.cmds = c
	if err := c.Begin(); err != nil {
		return err
	}
	r := &recorder{p: p, c: c}
	debugAfter := map[int][]outputSlot{}
	for _, s := range p.debugNodes {
		debugAfter[p.producer(s.id)] = append(debugAfter[p.producer(s.id)], s)
	}
	for s, t := range p.plan.Order {
		r.step = s
		if err := r.node(t.ID()); err != nil {
			nd := &p.g.Nodes[t.ID()]
			c.End()
			return fmt.Errorf("node %s: %w", nd.Label(t.ID()), err)
		}
		for _, d := range debugAfter[t.ID()] {
			r.copyOut(d)
		}
	}
	for i := range p.outs {
		if p.outs[i].n > 0 {
			r.copyOut(p.outs[i])
		}
	}
	if r.err != nil {
		c.End()
		return r.err
	}
	return c.End()
}

// producer returns the computed node whose step writes node i's memory (i itself, or the root of a view).
func (p *program) producer(i int) int {
	for p.g.Nodes[i].Op.IsView() {
		i = p.g.Nodes[i].Args[0].ID()
	}
	return i
}

// copyOut copies a node's values into its slot of the readback buffer.
func (r *recorder) copyOut(s outputSlot) {
	if r.err != nil {
		return
	}
	size := int64(s.n * elemSize(s.typ))
	pl := r.p.places[s.id]
	src, off := pl.buf, pl.off
	if pl.w != nil {
		part, ok := pl.w.partOf(pl.e0, int64(s.n))
		if !ok || pl.w.desc.Type != accel.F32 {
			r.err = fmt.Errorf("node %s: only F32 weights in one buffer can be read back", r.p.g.Nodes[s.id].Label(s.id))
			return
		}
		src, off = part.buf, 4*(pl.e0-part.first)
	}
	reads := []region{{src, off, off + size}}
	writes := []region{{r.p.readback, s.off, s.off + size}}
	r.sync(reads, writes)
	r.c.Copy(r.p.readback, s.off, src, off, size)
}

// sync records a barrier when a command with these accesses depends on earlier ones, and notes the accesses.
func (r *recorder) sync(reads, writes []region) {
	if r.haz.conflicts(reads, writes) {
		r.c.Barrier()
		r.haz.reset()
	}
	r.haz.add(reads, writes)
}

// binding is one storage buffer of a dispatch: the range bound and the element offset of the data in it (the
// range starts at the largest aligned offset at or before the data).
type binding struct {
	rng  BufferRange
	elem uint32
	reg  region
}

// bind makes a binding for bytes [off, off+size) of buf holding elements of elemBytes bytes.
func (r *recorder) bind(buf *Buffer, off, size int64, elemBytes int64) binding {
	a := r.p.b.align
	lo := off &^ (a - 1)
	hi := min(buf.Size(), alignUp(off+size, 4))
	if hi-lo > r.p.b.maxBind && r.err == nil {
		r.err = fmt.Errorf("a tensor of %d bytes exceeds the device's binding range of %d", size, r.p.b.maxBind)
	}
	return binding{rng: buf.Range(lo, hi-lo), elem: uint32((off - lo) / elemBytes), reg: region{buf, off, off + size}}
}

// operand binds node id's values (F32, I32, or a cache of F16/F32): scratch, inputs, a buffer, or an F32 weight
// held in one buffer.
func (r *recorder) operand(id int) binding {
	nd := &r.p.g.Nodes[id]
	pl := r.p.places[id]
	es := int64(elemSize(nd.Type))
	size := int64(nd.Elements()) * es
	if pl.w == nil {
		return r.bind(pl.buf, pl.off, size, es)
	}
	part, ok := pl.w.partOf(pl.e0, int64(nd.Elements()))
	if (!ok || pl.w.desc.Type != accel.F32) && r.err == nil {
		r.err = fmt.Errorf("weight %q is used as an F32 operand but is %s or split over buffers", pl.w.desc.Name, pl.w.desc.Type)
	}
	b := r.bind(part.buf, 4*(pl.e0-part.first), size, 4)
	b.reg = region{} // weights are never written after upload
	return b
}

// partOf returns the part holding elements [e0, e0+n) of w.
func (w *weight) partOf(e0, n int64) (weightPart, bool) {
	for _, p := range w.parts {
		if e0 >= p.first && e0+n <= p.first+p.n {
			return p, true
		}
	}
	if len(w.parts) > 0 {
		return w.parts[0], false
	}
	return weightPart{}, false
}

// dispatch records a dispatch of shader name after a barrier if needed. The shader's bindings are reads, then
// writes, then more reads (late: operands a shader added after its outputs).
func (r *recorder) dispatch(name string, wg uint32, spec []uint32, groups [3]uint32, push []byte, reads []binding, writes []binding,
	late ...binding) {
	if r.err != nil {
		return
	}
	code, err := shaders.SPIRV(name)
	if err != nil {
		r.err = err
		return
	}
	bufs := make([]BufferRange, 0, len(reads)+len(writes))
	var rr, wr []region
	for _, b := range reads {
		bufs = append(bufs, b.rng)
		if b.reg.buf != nil {
			rr = append(rr, b.reg)
		}
	}
	for _, b := range writes {
		bufs = append(bufs, b.rng)
		wr = append(wr, b.reg)
	}
	for _, b := range late {
		bufs = append(bufs, b.rng)
		if b.reg.buf != nil {
			rr = append(rr, b.reg)
		}
	}
	pipe, err := r.p.b.dev.Pipeline(PipelineDesc{Name: name, SPIRV: code, Buffers: len(bufs), PushSize: len(push),
		Spec: r.p.b.spec(wg, spec...)})
	if err != nil {
		r.err = err
		return
	}
	r.sync(rr, wr)
	r.c.Dispatch(pipe, groups, push, bufs...)
}

// specNativeFMA is the specialization constant numeric.glsl's NATIVE_FMA reads.
const specNativeFMA = 7

// spec returns the specialization constants of a pipeline: 0 the workgroup size, 1… the shader's own, and
// NATIVE_FMA.
func (b *Backend) spec(wg uint32, own ...uint32) []uint32 {
	s := make([]uint32, specNativeFMA+1)
	s[0] = wg
	copy(s[1:], own)
	if b.nativeFMA {
		s[specNativeFMA] = 1
	}
	return s
}

// flat returns the workgroup counts for n workgroups, 2D beyond the guaranteed limit of one dimension.
func flat(n int) [3]uint32 {
	n = max(n, 1)
	if n <= maxDispatchX {
		return [3]uint32{uint32(n), 1, 1}
	}
	return [3]uint32{maxDispatchX, uint32((n + maxDispatchX - 1) / maxDispatchX), 1}
}

func groupsFor(n, per int) [3]uint32 { return flat((n + per - 1) / per) }

// push packs push constants: uint32 values and float32 values as their bits.
type push []byte

func (p push) u(vals ...uint32) push {
	for _, v := range vals {
		p = binary.LittleEndian.AppendUint32(p, v)
	}
	return p
}

func (p push) f(vals ...float32) push {
	for _, v := range vals {
		p = binary.LittleEndian.AppendUint32(p, math.Float32bits(v))
	}
	return p
}

// node records the step computing node id.
func (r *recorder) node(id int) error {
	nd := &r.p.g.Nodes[id]
	arg := func(k int) int { return nd.Args[k].ID() }
	switch nd.Op {
	case accel.OpMatMul:
		r.matMul(id)
	case accel.OpGetRows:
		r.getRows(id)
	case accel.OpAdd, accel.OpMul:
		name := "add"
		if nd.Op == accel.OpMul {
			name = "mul"
		}
		r.elementwise(name, id, arg(0), arg(1), 0, 0)
	case accel.OpScale:
		r.elementwise("scale", id, arg(0), -1, nd.F, 0)
	case accel.OpSiLU:
		r.elementwise("silu", id, arg(0), -1, 0, 0)
	case accel.OpGELU:
		r.elementwise("gelu", id, arg(0), -1, 0, 0)
	case accel.OpSoftCap:
		r.elementwise("softcap", id, arg(0), -1, nd.F, 1/nd.F)
	case accel.OpSwiGLU:
		r.elementwise("swiglu", id, arg(0), arg(1), 0, 0)
	case accel.OpGeGLU:
		r.elementwise("geglu", id, arg(0), arg(1), 0, 0)
	case accel.OpRMSNorm, accel.OpLayerNorm, accel.OpSoftmax:
		r.norm(id)
	case accel.OpSlice:
		xs := r.p.g.Nodes[arg(0)].Shape
		last := nd.Shape[len(nd.Shape)-1]
		rows := nd.Elements() / last
		r.gather(id, arg(0), []int{rows, last}, []int{xs[len(xs)-1], 1}, nd.I[0])
	case accel.OpPermute:
		xs := r.p.g.Nodes[arg(0)].Shape
		in := make([]int, len(xs))
		for k, st := len(xs)-1, 1; k >= 0; k-- {
			in[k], st = st, st*xs[k]
		}
		strides := make([]int, len(xs))
		for k, a := range nd.I {
			strides[k] = in[a]
		}
		r.gather(id, arg(0), nd.Shape, strides, 0)
	case accel.OpRoPE:
		r.rope(id)
	case accel.OpKVStore:
		r.kvStore(id)
	case accel.OpAttention:
		r.attention(id)
	case accel.OpSigmoid:
		r.elementwise("sigmoid", id, arg(0), -1, 0, 0)
	case accel.OpSwiGLUOAI:
		r.elementwise("swiglu_oai", id, arg(0), arg(1), nd.F, nd.F2)
	case accel.OpTopK:
		r.topK(id)
	case accel.OpPick, accel.OpDivSum, accel.OpAddID, accel.OpWeightedSum, accel.OpConcat:
		r.moeRows(id)
	case accel.OpMatMulID:
		r.matMulID(id)
	case accel.OpTempScale:
		r.elementwise("temp_scale", id, arg(0), arg(1), nd.F, float32(nd.I[0]))
	case accel.OpShortConv:
		r.shortConv(id)
	default:
		return fmt.Errorf("op %s is not supported by the Vulkan backend", nd.Op)
	}
	return r.err
}
