package gpulower

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/shaders/layout"
)

// Workgroup sizes of the shaders (specialization constant 0). matmul_q, matmul_f and attention assume theirs.
const (
	WGElementwise = 64
	wgRow         = 128 // one workgroup per row or per (query, head)
	wgTile        = 128
	matvecMaxRows = 8   // activation rows up to which a product is a mat-vec (shaders' MAXCOLS)
	maxHeadSize   = 640 // attention.comp's MAX_HEAD
	maxDispatchX  = 65535
)

// Weight is an uploaded weight as the lowering reads it: its device layout and the parts it is split into by
// rows (one unless it exceeds what one buffer or binding holds).
type Weight[B comparable] struct {
	Tensor accel.TensorDesc
	Lay    *layout.Layout
	Parts  []Part[B]
}

// Part holds elements [First, First+N) of a weight (whole rows), in device layout from byte Off of Buf.
type Part[B comparable] struct {
	Buf      B
	Off      int64
	First, N int64
}

// PartOf returns the part holding elements [e0, e0+n) of w, or its first part and false if none holds them.
func (w *Weight[B]) PartOf(e0, n int64) (Part[B], bool) {
	for _, p := range w.Parts {
		if e0 >= p.First && e0+n <= p.First+p.N {
			return p, true
		}
	}
	if len(w.Parts) > 0 {
		return w.Parts[0], false
	}
	return Part[B]{}, false
}

// Place is where a node's values live: bytes from Off of Buf, or (weights and their views) elements from E0
// of W.
type Place[B comparable] struct {
	Buf B
	Off int64
	W   *Weight[B]
	E0  int64
}

// Binding is one buffer of a dispatch: Buf bound from Lo, the largest aligned offset at or before the data,
// bytes [Off, Off+Size), whose first element lies Elem elements after Lo.
type Binding[B comparable] struct {
	Buf       B
	Lo        int64
	Off, Size int64
	Elem      uint32
	Const     bool // weight memory, never written after upload (no hazard)
	ToEnd     bool // a weight part: bound to the end of its buffer
	Write     bool // the dispatch writes it
}

// Dispatch is one run of a kernel.
type Dispatch[B comparable] struct {
	Kernel   string
	WG       uint32   // workgroup size, specialization constant 0
	Spec     []uint32 // the kernel's own specialization constants, ids 1…
	Groups   [3]uint32
	Push     []byte
	Bindings []Binding[B] // one per SPIR-V binding, in binding order
}

// NumSpec is the number of specialization constant ids the shaders use: 0 the workgroup size, 1… the kernel's
// own (FORM, FN), 7 NATIVE_FMA (numeric.glsl: whether the GPU's fma() rounds once).
const NumSpec = 8

const specNativeFMA = NumSpec - 1

// Constants returns the specialization constants of d's pipeline: its workgroup size, its own, and NATIVE_FMA
// (1 on a device whose fma() is fused).
func (d *Dispatch[B]) Constants(nativeFMA bool) [NumSpec]uint32 {
	var s [NumSpec]uint32
	s[0] = d.WG
	copy(s[1:specNativeFMA], d.Spec)
	if nativeFMA {
		s[specNativeFMA] = 1
	}
	return s
}

// Config is what the lowering needs of a compiled program.
type Config[B comparable] struct {
	Name    string // the backend, for error messages
	Graph   *accel.Graph
	Plan    *accel.Plan
	Places  []Place[B] // per node
	Shadows [][]int32  // per node: the host copy of an I32 input's values, which the checks read
	Align   int64      // the alignment of bound offsets (a power of two)
	// Work holds the converted activations (PlanWorkspace) from byte WorkBase of WorkBuf.
	Work     *Workspace
	WorkBuf  B
	WorkBase int64
}

// Lowerer lowers a program's plan step by step.
type Lowerer[B comparable] struct {
	c      Config[B]
	g      *accel.Graph
	step   int
	err    error
	out    []Dispatch[B]
	checks Checks
}

// New returns the lowering of the program c describes.
func New[B comparable](c Config[B]) *Lowerer[B] {
	return &Lowerer[B]{c: c, g: c.Graph}
}

// Step returns the dispatches computing the node of plan step s, in order. Steps must be lowered in plan
// order (the first product reading converted activations converts them); after an error the lowering is
// spent, and later steps return that error again.
func (l *Lowerer[B]) Step(s int) ([]Dispatch[B], error) {
	l.step, l.out = s, nil
	id := l.c.Plan.Order[s].ID()
	if !l.node(id) {
		return nil, fmt.Errorf("op %s is not supported by the %s backend", l.g.Nodes[id].Op, l.c.Name)
	}
	return l.out, l.err
}

// Checks returns the run-time checks of the steps lowered so far.
func (l *Lowerer[B]) Checks() Checks { return l.checks }

// refuse records err as the lowering's error unless one is already there.
func (l *Lowerer[B]) refuse(err error) {
	if l.err == nil {
		l.err = err
	}
}

// bind makes a binding for bytes [off, off+size) of buf holding elements of elemBytes bytes.
func (l *Lowerer[B]) bind(buf B, off, size, elemBytes int64) Binding[B] {
	lo := off &^ (l.c.Align - 1)
	return Binding[B]{Buf: buf, Lo: lo, Off: off, Size: size, Elem: uint32((off - lo) / elemBytes)}
}

// operand binds node id's values (F32, I32, or a cache of F16/F32): scratch, inputs, a buffer, or an F32
// weight held in one part.
func (l *Lowerer[B]) operand(id int) Binding[B] {
	nd := &l.g.Nodes[id]
	pl := l.c.Places[id]
	es := int64(ElemSize(nd.Type))
	size := int64(nd.Elements()) * es
	if pl.W == nil {
		return l.bind(pl.Buf, pl.Off, size, es)
	}
	part, ok := pl.W.PartOf(pl.E0, int64(nd.Elements()))
	if !ok || pl.W.Tensor.Type != accel.F32 {
		l.refuse(fmt.Errorf("weight %q is used as an F32 operand but is %s or split over buffers", pl.W.Tensor.Name, pl.W.Tensor.Type))
	}
	b := l.bind(part.Buf, part.Off+4*(pl.E0-part.First), size, 4)
	b.Const = true
	return b
}

// dispatch records a dispatch of kernel name. Its bindings are reads, then writes, then late reads (operands a
// shader added after its outputs), in binding order.
func (l *Lowerer[B]) dispatch(name string, wg uint32, spec []uint32, groups [3]uint32, push []byte, reads, writes []Binding[B],
	late ...Binding[B]) {
	if l.err != nil {
		return
	}
	bufs := make([]Binding[B], 0, len(reads)+len(writes)+len(late))
	bufs = append(bufs, reads...)
	for _, b := range writes {
		b.Write = true
		bufs = append(bufs, b)
	}
	bufs = append(bufs, late...)
	l.out = append(l.out, Dispatch[B]{Kernel: name, WG: wg, Spec: spec, Groups: groups, Push: push, Bindings: bufs})
}

// ElemSize is the byte size of an element of a computed tensor, input or buffer (F16 caches, else 4).
func ElemSize(t accel.DType) int {
	if t == accel.F16 {
		return 2
	}
	return 4
}

// Flat returns the workgroup counts for n workgroups, 2D beyond 65535 (Vulkan's guaranteed limit of one
// dimension; the shaders flatten the index).
func Flat(n int) [3]uint32 {
	n = max(n, 1)
	if n <= maxDispatchX {
		return [3]uint32{uint32(n), 1, 1}
	}
	return [3]uint32{maxDispatchX, uint32((n + maxDispatchX - 1) / maxDispatchX), 1}
}

// Groups returns the workgroup counts for n invocations, per to a workgroup.
func Groups(n, per int) [3]uint32 { return Flat((n + per - 1) / per) }

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
