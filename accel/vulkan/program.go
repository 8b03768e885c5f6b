package vulkan

import (
	"fmt"
	"unsafe"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// program is a compiled graph: its memory and one command buffer recorded once.
//
// Memory: intermediates share one device-local arena at the offsets accel.NewPlan gives them, followed by the
// workspace of converted activations (packIntervals); inputs live in a host-visible buffer that SetInt32 and
// SetFloat32 write and shaders read in place; outputs are copied into a host-readable buffer at the end of the
// command buffer, so reading them needs no transfer and allocates nothing.
type program struct {
	b    *Backend
	g    *accel.Graph
	plan *accel.Plan

	scratch, inputs, readback *Buffer
	cmds                      *Commands

	places []place      // per node
	ins    []inputSlot  // per node; n == 0 for nodes that are not live inputs
	outs   []outputSlot // per node; n == 0 for nodes that are not outputs
	checks []rangeCheck
	// attnChecks validate each attention's positions, sequences and pages (accel.AttnLayout.Check).
	attnChecks []attnCheck
	kvs        []*kvBuffer
	ws         map[wsKey]*interval
	wsBase     int64

	debug      func(n *accel.Node, values []float32)
	debugNodes []outputSlot
	debugBuf   []float32

	life accel.Lifetime
}

// place is where a node's values live: a byte offset into a buffer, or (weights and their views) an element
// offset into a weight.
type place struct {
	buf *Buffer
	off int64
	w   *weight
	e0  int64
}

// inputSlot is a live input: its bytes in the input buffer and, for I32 inputs, a host copy for the range
// checks made before each run.
type inputSlot struct {
	n      int
	off    int64
	shadow []int32
}

// outputSlot is where an output (or a debugged node) is copied for the host.
type outputSlot struct {
	id  int
	n   int
	typ accel.DType
	off int64
}

// rangeCheck is a run-time check of an I32 operand (ids, positions): every value must be in [0, limit).
type rangeCheck struct {
	node  int
	what  string
	vals  []int32
	limit int32
}

// attnCheck is the run-time check of an attention's I32 operands (host copies; seq and pages nil unless paged).
type attnCheck struct {
	node            int
	lay             accel.AttnLayout
	pos, seq, pages []int32
}

// wsKey identifies converted activations: the same input converted to the same type is shared by matrix
// products (q, k and v projections of one normed input).
type wsKey struct {
	x   int
	act quant.Type
}

// Compile prepares g to run: plan, memory, and the recorded command buffer.
func (b *Backend) Compile(g *accel.Graph, opt accel.CompileOptions) (accel.Program, error) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		return nil, accel.ErrClosed
	}
	p, err := b.compile(g, opt)
	if err != nil {
		return nil, err
	}
	if err := b.register(func() { b.programs[p] = struct{}{} }); err != nil {
		p.free()
		return nil, err
	}
	return p, nil
}

func (b *Backend) compile(g *accel.Graph, opt accel.CompileOptions) (*program, error) {
	plan, err := accel.NewPlan(g, b.align)
	if err != nil {
		return nil, err
	}
	n := len(g.Nodes)
	p := &program{b: b, g: g, plan: plan, places: make([]place, n), ins: make([]inputSlot, n), outs: make([]outputSlot, n),
		ws: map[wsKey]*interval{}, debug: opt.Debug}
	if err := p.checkLeaves(); err != nil {
		return nil, err
	}
	inBytes, err := p.layoutInputs()
	if err != nil {
		return nil, err
	}
	wsBytes := p.planWorkspace()
	p.wsBase = (plan.Scratch + b.align - 1) &^ (b.align - 1)
	outBytes := p.layoutOutputs()
	if p.scratch, err = b.dev.NewBuffer("scratch", max(4, p.wsBase+wsBytes), DeviceLocal); err != nil {
		return nil, p.fail(err)
	}
	if p.inputs, err = b.dev.NewBuffer("inputs", max(4, inBytes), Upload); err != nil {
		return nil, p.fail(err)
	}
	if p.readback, err = b.dev.NewBuffer("outputs", max(4, outBytes), Readback); err != nil {
		return nil, p.fail(err)
	}
	clear(p.readback.Mapped()) // outputs read before a run are zero, as a new buffer is
	p.resolvePlaces()
	if err := p.record(); err != nil {
		return nil, p.fail(err)
	}
	return p, nil
}

// fail frees what compile made so far and returns err.
func (p *program) fail(err error) error {
	p.free()
	return fmt.Errorf("vulkan: %w", err)
}

// checkLeaves verifies that the graph's weights and buffers belong to this backend and are open.
func (p *program) checkLeaves() error {
	for i := range p.g.Nodes {
		nd := &p.g.Nodes[i]
		switch nd.Op {
		case accel.OpWeight:
			if w, ok := nd.Weight.(*weight); !ok || w.b != p.b {
				return fmt.Errorf("vulkan: node %s: weight %q was not uploaded to this backend", nd.Label(i), nd.Name)
			}
		case accel.OpBuffer:
			kb, ok := nd.Buffer.(*kvBuffer)
			if !ok || kb.b != p.b {
				return fmt.Errorf("vulkan: node %s: buffer %q was not made by this backend", nd.Label(i), nd.Name)
			}
			if kb.isClosed() {
				return fmt.Errorf("vulkan: node %s: buffer %q: %w", nd.Label(i), nd.Name, accel.ErrClosed)
			}
			p.kvs = append(p.kvs, kb)
		}
	}
	return nil
}

func alignUp(n, a int64) int64 { return (n + a - 1) &^ (a - 1) }

// layoutInputs places every live input in the input buffer and returns its size.
func (p *program) layoutInputs() (int64, error) {
	var off int64
	for i := range p.g.Nodes {
		nd := &p.g.Nodes[i]
		if nd.Op != accel.OpInput || p.plan.Loc[i].Kind == accel.LocNone {
			continue
		}
		if nd.Type != quant.I32 && nd.Type != quant.F32 {
			return 0, fmt.Errorf("vulkan: input %s: type %s", nd.Label(i), nd.Type)
		}
		s := inputSlot{n: nd.Elements(), off: off}
		if nd.Type == quant.I32 {
			s.shadow = make([]int32, s.n)
		}
		p.ins[i] = s
		off = alignUp(off+int64(4*s.n), p.b.align)
	}
	return off, nil
}

// planWorkspace sizes the converted activations of every matrix product and packs them by lifetime.
func (p *program) planWorkspace() int64 {
	var all []*interval
	for s, t := range p.plan.Order {
		nd := p.g.Node(t)
		if nd.Op != accel.OpMatMul && nd.Op != accel.OpMatMulID {
			continue
		}
		w := p.g.Node(nd.Args[0])
		lay := layouts[w.Type]
		if lay == nil || lay.act == quant.F32 {
			continue
		}
		x := nd.Args[1].ID()
		key := wsKey{x, lay.act}
		if iv := p.ws[key]; iv != nil {
			iv.last = s
			continue
		}
		xn := p.g.Nodes[x]
		rows, cols := xn.Elements()/xn.Shape[len(xn.Shape)-1], xn.Shape[len(xn.Shape)-1]
		iv := &interval{first: s, last: s, size: actBytes(lay.act, rows, cols)}
		p.ws[key] = iv
		all = append(all, iv)
	}
	return packIntervals(all, p.b.align)
}

// actBytes is the workspace size of n activation rows of cols elements converted to act.
func actBytes(act quant.Type, n, cols int) int64 {
	if act == quant.F16 || act == quant.BF16 {
		return int64(n) * int64(cols) * 4
	}
	return int64(n) * int64(cols/32) * 40
}

// layoutOutputs places outputs (and, with Debug, every named computed node) in the readback buffer.
func (p *program) layoutOutputs() int64 {
	var off int64
	for i := range p.g.Nodes {
		nd := &p.g.Nodes[i]
		if !nd.Output {
			continue
		}
		p.outs[i] = outputSlot{id: i, n: nd.Elements(), typ: nd.Type, off: off}
		off = alignUp(off+int64(nd.Elements()*elemSize(nd.Type)), 4)
	}
	if p.debug != nil {
		most := 0
		for i := range p.g.Nodes {
			nd := &p.g.Nodes[i]
			if nd.Name == "" || nd.Op.IsLeaf() || p.plan.Loc[i].Kind == accel.LocNone || p.plan.Loc[i].Kind == accel.LocWeight {
				continue
			}
			p.debugNodes = append(p.debugNodes, outputSlot{id: i, n: nd.Elements(), typ: nd.Type, off: off})
			off = alignUp(off+int64(nd.Elements()*elemSize(nd.Type)), 4)
			most = max(most, nd.Elements())
		}
		p.debugBuf = make([]float32, most)
	}
	return off
}

// resolvePlaces finds every live node's memory.
func (p *program) resolvePlaces() {
	for i := range p.g.Nodes {
		loc := p.plan.Loc[i]
		if loc.Kind == accel.LocNone {
			continue
		}
		root := loc.Root.ID()
		rel := loc.Offset - p.plan.Loc[root].Offset // the view's offset within its root
		switch loc.Kind {
		case accel.LocScratch:
			if p.g.Nodes[root].Op == accel.OpInput {
				p.places[i] = place{buf: p.inputs, off: p.ins[root].off + rel}
			} else {
				p.places[i] = place{buf: p.scratch, off: loc.Offset}
			}
		case accel.LocBuffer:
			p.places[i] = place{buf: p.g.Nodes[root].Buffer.(*kvBuffer).buf, off: loc.Offset}
		case accel.LocWeight:
			w := p.g.Nodes[root].Weight.(*weight)
			t := w.desc.Type
			p.places[i] = place{w: w, e0: loc.Offset / int64(t.BlockBytes()) * int64(t.BlockElems())}
		}
	}
}

// input returns the slot of input t after checking its type and length.
func (p *program) input(t accel.Tensor, typ accel.DType, n int) (*inputSlot, error) {
	if p.isClosed() {
		return nil, accel.ErrClosed
	}
	if _, err := p.g.Input(t, typ, n); err != nil {
		return nil, fmt.Errorf("vulkan: %w", err)
	}
	return &p.ins[t.ID()], nil
}

// SetInt32 sets an I32 input (written straight into the host-visible input buffer).
func (p *program) SetInt32(t accel.Tensor, data []int32) error {
	s, err := p.input(t, quant.I32, len(data))
	if err != nil || s.n == 0 {
		return err // s.n == 0: no output depends on the input
	}
	copy(s.shadow, data)
	copy(unsafe.Slice((*int32)(unsafe.Pointer(&p.inputs.Mapped()[s.off])), s.n), data)
	return nil
}

// SetFloat32 sets an F32 input.
func (p *program) SetFloat32(t accel.Tensor, data []float32) error {
	s, err := p.input(t, quant.F32, len(data))
	if err != nil || s.n == 0 {
		return err
	}
	copy(unsafe.Slice((*float32)(unsafe.Pointer(&p.inputs.Mapped()[s.off])), s.n), data)
	return nil
}

// Run checks the ids and positions, submits the command buffer and waits for it. It allocates nothing.
func (p *program) Run() error {
	if p.isClosed() {
		return accel.ErrClosed
	}
	for _, kb := range p.kvs {
		if kb.isClosed() {
			return fmt.Errorf("vulkan: buffer %q: %w", kb.desc.Name, accel.ErrClosed)
		}
	}
	// Every id and position is an input known before anything runs: check them all first, so a bad run changes
	// nothing.
	for i := range p.checks {
		c := &p.checks[i]
		for j, v := range c.vals {
			if v < 0 || v >= c.limit {
				return fmt.Errorf("vulkan: node %s: %s %d is %d, outside [0, %d)", p.g.Nodes[c.node].Label(c.node), c.what, j, v, c.limit)
			}
		}
	}
	for i := range p.attnChecks {
		c := &p.attnChecks[i]
		if err := c.lay.Check(c.pos, c.seq, c.pages); err != nil {
			return fmt.Errorf("vulkan: node %s: %w", p.g.Nodes[c.node].Label(c.node), err)
		}
	}
	if err := p.cmds.Run(); err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	if p.debug != nil {
		p.reportDebug()
	}
	return nil
}

// Read copies an output's values into dst.
func (p *program) Read(t accel.Tensor, dst []float32) error {
	if p.isClosed() {
		return accel.ErrClosed
	}
	if _, err := p.g.Output(t, len(dst)); err != nil {
		return fmt.Errorf("vulkan: %w", err)
	}
	p.values(p.outs[t.ID()], dst)
	return nil
}

// values converts a slot of the readback buffer to float32.
func (p *program) values(s outputSlot, dst []float32) {
	m := p.readback.Mapped()[s.off:]
	switch s.typ {
	case quant.F16:
		for i, h := range unsafe.Slice((*uint16)(unsafe.Pointer(&m[0])), s.n) {
			dst[i] = quant.F16ToF32(h)
		}
	case quant.I32:
		for i, v := range unsafe.Slice((*int32)(unsafe.Pointer(&m[0])), s.n) {
			dst[i] = float32(v)
		}
	default:
		copy(dst, unsafe.Slice((*float32)(unsafe.Pointer(&m[0])), s.n))
	}
}

func (p *program) reportDebug() {
	for _, s := range p.debugNodes {
		v := p.debugBuf[:s.n]
		p.values(s, v)
		p.debug(&p.g.Nodes[s.id], v)
	}
}

// ScratchBytes is the device memory the program holds for intermediates, workspace and inputs.
func (p *program) ScratchBytes() int64 {
	return p.scratch.Size() + p.inputs.Size()
}

// Close frees the program's command buffer and memory. It is safe to call twice, but not during Run.
func (p *program) Close() error {
	p.b.mu.Lock()
	delete(p.b.programs, p)
	p.b.mu.Unlock()
	return p.free()
}

func (p *program) free() error {
	if !p.life.End() {
		return nil
	}
	var err error
	if p.cmds != nil {
		err = p.cmds.Close()
	}
	for _, b := range []*Buffer{p.scratch, p.inputs, p.readback} {
		if b != nil {
			b.Close()
		}
	}
	return err
}

func (p *program) isClosed() bool { return p.life.Closed() }
