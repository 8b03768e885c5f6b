package metal

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/shaders"
)

// Workgroup sizes of the shaders (function constant 0, or the SPIRV_CROSS_CONSTANT_ID_0 macro). matmul_q,
// matmul_f and attention assume theirs.
const (
	wgElementwise = 64
	wgRow         = 128 // one workgroup per row or per (query, head)
	wgTile        = 128
	matvecMaxRows = 8   // activation rows up to which a product is a mat-vec (shaders' MAXCOLS)
	maxHeadSize   = 640 // attention.comp's MAX_HEAD
	maxDispatchX  = 65535
)

// lowerings records each op: adding an op is an entry here (and its kernel in shaders/). Views (Reshape, Rows)
// compute nothing.
var lowerings = map[accel.Op]func(r *recorder, id int){
	accel.OpMatMul:    (*recorder).matMul,
	accel.OpGetRows:   (*recorder).getRows,
	accel.OpAdd:       binaryOp("add"),
	accel.OpMul:       binaryOp("mul"),
	accel.OpScale:     unaryOp("scale", func(f float32) (float32, float32) { return f, 0 }),
	accel.OpSiLU:      unaryOp("silu", nil),
	accel.OpGELU:      unaryOp("gelu", nil),
	accel.OpSoftCap:   unaryOp("softcap", func(f float32) (float32, float32) { return f, 1 / f }),
	accel.OpSwiGLU:    binaryOp("swiglu"),
	accel.OpGeGLU:     binaryOp("geglu"),
	accel.OpRMSNorm:   norm("rms_norm"),
	accel.OpLayerNorm: norm("layer_norm"),
	accel.OpSoftmax:   norm("softmax"),
	accel.OpSlice:     (*recorder).slice,
	accel.OpPermute:   (*recorder).permute,
	accel.OpRoPE:      (*recorder).rope,
	accel.OpKVStore:   (*recorder).kvStore,
	accel.OpAttention: (*recorder).attention,
	accel.OpSigmoid:   unaryOp("sigmoid", nil),
	accel.OpSwiGLUOAI: func(r *recorder, id int) {
		nd := &r.p.g.Nodes[id]
		r.elementwise("swiglu_oai", id, nd.Args[0].ID(), nd.Args[1].ID(), nd.F, nd.F2)
	},
	accel.OpTopK:        (*recorder).topK,
	accel.OpPick:        (*recorder).moeRows,
	accel.OpDivSum:      (*recorder).moeRows,
	accel.OpAddID:       (*recorder).moeRows,
	accel.OpWeightedSum: (*recorder).moeRows,
	accel.OpConcat:      (*recorder).moeRows,
	accel.OpMatMulID:    (*recorder).matMulID,
	accel.OpTempScale: func(r *recorder, id int) {
		nd := &r.p.g.Nodes[id]
		r.elementwise("temp_scale", id, nd.Args[0].ID(), nd.Args[1].ID(), nd.F, float32(nd.I[0]))
	},
	accel.OpShortConv: (*recorder).shortConv,
}

// recorder records a program's dispatches.
type recorder struct {
	p    *program
	step int // the plan step being recorded
	err  error
}

// record records every step of the plan.
func (p *program) record() error {
	r := &recorder{p: p}
	p.stepAfter = map[int]int{}
	for s, t := range p.plan.Order {
		r.step = s
		id := t.ID()
		nd := &p.g.Nodes[id]
		lower, ok := lowerings[nd.Op]
		if !ok {
			return fmt.Errorf("node %s: op %s is not supported by the Metal backend", nd.Label(id), nd.Op)
		}
		lower(r, id)
		if r.err != nil {
			return fmt.Errorf("node %s: %w", nd.Label(id), r.err)
		}
		p.stepAfter[id] = len(p.steps)
	}
	return nil
}

// binding is one buffer of a dispatch: bound from an aligned offset, with the element offset of the data in it
// (which shaders add from push constants).
type binding struct {
	buf  buffer
	off  int64
	elem uint32
}

// bind makes a binding for bytes from off of buf holding elements of elemBytes bytes.
func (r *recorder) bind(buf buffer, off, elemBytes int64) binding {
	lo := off &^ (bindAlign - 1)
	return binding{buf: buf, off: lo, elem: uint32((off - lo) / elemBytes)}
}

// operand binds node id's values (F32, I32, or a cache of F16/F32): the arena, a buffer, or an F32 weight held
// in one buffer.
func (r *recorder) operand(id int) binding {
	nd := &r.p.g.Nodes[id]
	pl := r.p.places[id]
	es := int64(elemSize(nd.Type))
	if pl.w == nil {
		return r.bind(pl.buf, pl.off, es)
	}
	part, ok := pl.w.partOf(pl.e0, int64(nd.Elements()))
	if (!ok || pl.w.desc.Type != accel.F32) && r.err == nil {
		r.err = fmt.Errorf("weight %q is used as an F32 operand but is %s or split over buffers", pl.w.desc.Name, pl.w.desc.Type)
	}
	return r.bind(part.buf, part.off+4*(pl.e0-part.first), 4)
}

// dispatch records a dispatch of kernel name after checking that the Go side binds what the kernel declares:
// one buffer per SPIR-V binding (reads, then writes, then late reads: operands a shader added after its
// outputs, in binding order) and exactly its push constants.
func (r *recorder) dispatch(name string, wg uint32, own []uint32, groups [3]uint32, push []byte, reads, writes []binding,
	late ...binding) {
	if r.err != nil {
		return
	}
	k, err := shaders.MSLKernel(name)
	if err != nil {
		r.err = err
		return
	}
	bufs := make([]bound, 0, len(reads)+len(writes)+len(late))
	for _, b := range reads {
		bufs = append(bufs, bound{b.buf, b.off})
	}
	for _, b := range writes {
		bufs = append(bufs, bound{b.buf, b.off})
	}
	for _, b := range late {
		bufs = append(bufs, bound{b.buf, b.off})
	}
	if len(bufs) != len(k.Buffers) || len(push) != k.PushExtent {
		r.err = fmt.Errorf("kernel %s takes %d buffers and %d bytes of push constants; the backend binds %d and %d",
			name, len(k.Buffers), k.PushExtent, len(bufs), len(push))
		return
	}
	pipe, err := r.p.b.g.pipeline(k, r.p.b.spec(wg, own...))
	if err != nil {
		r.err = err
		return
	}
	padded := make([]byte, k.PushSize)
	copy(padded, push)
	r.p.steps = append(r.p.steps, step{pipe: pipe, bufs: bufs, push: padded, groups: groups, wg: wg})
}

// spec returns the function constants of a pipeline: 0 the workgroup size, 1… the kernel's own, NATIVE_FMA.
func (b *Backend) spec(wg uint32, own ...uint32) [numSpec]uint32 {
	var s [numSpec]uint32
	s[0] = wg
	copy(s[1:specNativeFMA], own)
	if b.nativeFMA {
		s[specNativeFMA] = 1
	}
	return s
}

// flat returns the threadgroup counts for n threadgroups, 2D beyond 65535 (the shaders flatten the index, as
// Vulkan limits a dimension to that).
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
