package vulkan

import (
	"fmt"
	"unsafe"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/internal/gpulower"
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

	places  []gpulower.Place[*Buffer] // per node
	ins     []inputSlot               // per node; n == 0 for nodes that are not live inputs
	shadows [][]int32                 // per node: the host copy of an I32 input, for the checks
	outs    []outputSlot              // per node; n == 0 for nodes that are not outputs
	checks  gpulower.Checks
	kvs     []*kvBuffer
	ws      *gpulower.Workspace
	wsBase  int64

	debug      func(n *accel.Node, values []float32)
	debugNodes []outputSlot
	debugBuf   []float32

	life accel.Lifetime
}

// inputSlot is a live input: its bytes in the input buffer.
type inputSlot struct {
	n   int
	off int64
}

// outputSlot is where an output (or a debugged node) is copied for the host.
type outputSlot struct {
	id  int
	n   int
	typ accel.DType
	off int64
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
	p := &program{b: b, g: g, plan: plan, places: make([]gpulower.Place[*Buffer], n), ins: make([]inputSlot, n),
		shadows: make([][]int32, n), outs: make([]outputSlot, n), debug: opt.Debug}
	if err := p.checkLeaves(); err != nil {
		return nil, err
	}
	inBytes, err := p.layoutInputs()
	if err != nil {
		return nil, err
	}
	p.ws = gpulower.PlanWorkspace(g, plan, b.align)
	p.wsBase = alignUp(plan.Scratch, b.align)
	outBytes := p.layoutOutputs()
	if p.scratch, err = b.dev.NewBuffer("scratch", max(4, p.wsBase+p.ws.Size), DeviceLocal); err != nil {
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
			p.shadows[i] = make([]int32, s.n)
		}
		p.ins[i] = s
		off = alignUp(off+int64(4*s.n), p.b.align)
	}
	return off, nil
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
		off = alignUp(off+int64(nd.Elements()*gpulower.ElemSize(nd.Type)), 4)
	}
	if p.debug != nil {
		most := 0
		for i := range p.g.Nodes {
			nd := &p.g.Nodes[i]
			if nd.Name == "" || nd.Op.IsLeaf() || p.plan.Loc[i].Kind == accel.LocNone || p.plan.Loc[i].Kind == accel.LocWeight {
				continue
			}
			p.debugNodes = append(p.debugNodes, outputSlot{id: i, n: nd.Elements(), typ: nd.Type, off: off})
			off = alignUp(off+int64(nd.Elements()*gpulower.ElemSize(nd.Type)), 4)
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
				p.places[i] = gpulower.Place[*Buffer]{Buf: p.inputs, Off: p.ins[root].off + rel}
			} else {
				p.places[i] = gpulower.Place[*Buffer]{Buf: p.scratch, Off: loc.Offset}
			}
		case accel.LocBuffer:
			p.places[i] = gpulower.Place[*Buffer]{Buf: p.g.Nodes[root].Buffer.(*kvBuffer).buf, Off: loc.Offset}
		case accel.LocWeight:
			w := p.g.Nodes[root].Weight.(*weight)
			t := w.Tensor.Type
			p.places[i] = gpulower.Place[*Buffer]{W: &w.Weight, E0: loc.Offset / int64(t.BlockBytes()) * int64(t.BlockElems())}
		}
	}
}

// lowering describes the program to gpulower: its places, input copies and workspace.
func (p *program) lowering() gpulower.Config[*Buffer] {
	return gpulower.Config[*Buffer]{Name: "vulkan", Graph: p.g, Plan: p.plan, Places: p.places, Shadows: p.shadows, Align: p.b.align,
		Work: p.ws, WorkBuf: p.scratch, WorkBase: p.wsBase}
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
	copy(p.shadows[t.ID()], data)
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
	if err := p.checks.Verify(p.g); err != nil {
		return fmt.Errorf("vulkan: %w", err)
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
	gpulower.ReadValues(dst[:s.n], p.readback.Mapped()[s.off:], s.typ)
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
