package metal

import (
	"fmt"
	"sort"
	"sync"
	"unsafe"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/internal/gpulower"
	"github.com/forma-llm/forma/gguf/quant"
)

// program is a compiled graph: one shared arena and the dispatches recorded once, encoded into a command
// buffer per Run.
//
// Memory: inputs and intermediates share one shared-storage arena at the offsets accel.NewPlan gives them,
// followed by the workspace of converted activations (packIntervals). SetInt32 and SetFloat32 write inputs in
// place; Read converts outputs from where they were computed (the plan keeps outputs alive to the end), so
// the logits are the only read-back and need no copy on the GPU.
type program struct {
	b    *Backend
	g    *accel.Graph
	plan *accel.Plan

	arena   buffer
	steps   []step
	places  []gpulower.Place[buffer] // per node
	live    []int                    // per node: the element count of a live input, else 0
	shadows [][]int32                // per node: the host copy of an I32 input, for the checks
	checks  gpulower.Checks
	kvs     []*kvBuffer
	ws      *gpulower.Workspace
	wsBase  int64

	debug      func(n *accel.Node, values []float32)
	stepAfter  map[int]int  // per computed node: the number of steps recorded up to and including it
	debugAfter []debugPoint // steps after which named nodes are reported, in order
	debugBuf   []float32

	mu     sync.Mutex
	closed bool
}

// debugPoint: after steps[:step] have run, report node id.
type debugPoint struct {
	step, id int
}

// bindAlign is the alignment of every buffer offset bound (and of the arena's offsets): Metal needs at most 16
// for the types the shaders read, Vulkan devices at most 256.
const bindAlign = 256

// Compile prepares g to run: plan, memory, and the recorded dispatches.
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
	plan, err := accel.NewPlan(g, bindAlign)
	if err != nil {
		return nil, err
	}
	n := len(g.Nodes)
	p := &program{b: b, g: g, plan: plan, places: make([]gpulower.Place[buffer], n), live: make([]int, n),
		shadows: make([][]int32, n), debug: opt.Debug}
	if err := p.checkLeaves(); err != nil {
		return nil, err
	}
	if err := p.layoutInputs(); err != nil {
		return nil, err
	}
	p.ws = gpulower.PlanWorkspace(g, plan, bindAlign)
	p.wsBase = alignUp(plan.Scratch, bindAlign)
	size := max(4, p.wsBase+p.ws.Size)
	if size > b.info.MaxBuffer {
		return nil, fmt.Errorf("metal: the program needs %d bytes of scratch, more than the device's largest buffer of %d", size, b.info.MaxBuffer)
	}
	if p.arena, err = b.g.newBuffer("arena", size); err != nil {
		return nil, fmt.Errorf("metal: %w", err)
	}
	clear(p.arena.contents()) // outputs read before a run are zero
	p.resolvePlaces()
	if err := p.record(); err != nil {
		p.free()
		return nil, fmt.Errorf("metal: %w", err)
	}
	if p.debug != nil {
		p.planDebug()
	}
	return p, nil
}

// checkLeaves verifies that the graph's weights and buffers belong to this backend and are open.
func (p *program) checkLeaves() error {
	for i := range p.g.Nodes {
		nd := &p.g.Nodes[i]
		switch nd.Op {
		case accel.OpWeight:
			if w, ok := nd.Weight.(*weight); !ok || w.b != p.b {
				return fmt.Errorf("metal: node %s: weight %q was not uploaded to this backend", nd.Label(i), nd.Name)
			}
		case accel.OpBuffer:
			kb, ok := nd.Buffer.(*kvBuffer)
			if !ok || kb.b != p.b {
				return fmt.Errorf("metal: node %s: buffer %q was not made by this backend", nd.Label(i), nd.Name)
			}
			if kb.isClosed() {
				return fmt.Errorf("metal: node %s: buffer %q: %w", nd.Label(i), nd.Name, accel.ErrClosed)
			}
			p.kvs = append(p.kvs, kb)
		}
	}
	return nil
}

func alignUp(n, a int64) int64 { return (n + a - 1) &^ (a - 1) }

// layoutInputs checks every live input's type and makes the host copies of I32 inputs.
func (p *program) layoutInputs() error {
	for i := range p.g.Nodes {
		nd := &p.g.Nodes[i]
		if nd.Op != accel.OpInput || p.plan.Loc[i].Kind == accel.LocNone {
			continue
		}
		if nd.Type != quant.I32 && nd.Type != quant.F32 {
			return fmt.Errorf("metal: input %s: type %s", nd.Label(i), nd.Type)
		}
		p.live[i] = nd.Elements()
		if nd.Type == quant.I32 {
			p.shadows[i] = make([]int32, nd.Elements())
		}
	}
	return nil
}

// resolvePlaces finds every live node's memory.
func (p *program) resolvePlaces() {
	for i := range p.g.Nodes {
		loc := p.plan.Loc[i]
		switch loc.Kind {
		case accel.LocScratch:
			p.places[i] = gpulower.Place[buffer]{Buf: p.arena, Off: loc.Offset}
		case accel.LocBuffer:
			p.places[i] = gpulower.Place[buffer]{Buf: p.g.Nodes[loc.Root.ID()].Buffer.(*kvBuffer).buf, Off: loc.Offset}
		case accel.LocWeight:
			w := p.g.Nodes[loc.Root.ID()].Weight.(*weight)
			t := w.Tensor.Type
			p.places[i] = gpulower.Place[buffer]{W: &w.Weight, E0: loc.Offset / int64(t.BlockBytes()) * int64(t.BlockElems())}
		}
	}
}

// lowering describes the program to gpulower: its places, input copies and workspace.
func (p *program) lowering() gpulower.Config[buffer] {
	return gpulower.Config[buffer]{Name: "metal", Graph: p.g, Plan: p.plan, Places: p.places, Shadows: p.shadows, Align: bindAlign,
		Work: p.ws, WorkBuf: p.arena, WorkBase: p.wsBase}
}

// planDebug lists, for every named computed node, the step after which its values are final.
func (p *program) planDebug() {
	most := 0
	for i := range p.g.Nodes {
		nd := &p.g.Nodes[i]
		kind := p.plan.Loc[i].Kind
		if nd.Name == "" || nd.Op.IsLeaf() || kind == accel.LocNone || kind == accel.LocWeight {
			continue
		}
		if s, ok := p.stepAfter[gpulower.Producer(p.g, i)]; ok {
			p.debugAfter = append(p.debugAfter, debugPoint{step: s, id: i})
			most = max(most, nd.Elements())
		}
	}
	sort.SliceStable(p.debugAfter, func(i, j int) bool { return p.debugAfter[i].step < p.debugAfter[j].step })
	p.debugBuf = make([]float32, most)
}

// input returns the memory of input t after checking its type and length (nil when no output depends on it).
func (p *program) input(t accel.Tensor, typ accel.DType, n int) ([]byte, error) {
	if p.isClosed() {
		return nil, accel.ErrClosed
	}
	if !t.Valid() || t.ID() >= len(p.g.Nodes) {
		return nil, fmt.Errorf("metal: tensor %d is not in the program's graph", t.ID())
	}
	nd := &p.g.Nodes[t.ID()]
	if nd.Op != accel.OpInput {
		return nil, fmt.Errorf("metal: node %s is not an input", nd.Label(t.ID()))
	}
	if nd.Type != typ {
		return nil, fmt.Errorf("metal: input %s is %s, not %s", nd.Label(t.ID()), nd.Type, typ)
	}
	if n != nd.Elements() {
		return nil, fmt.Errorf("metal: input %s takes %d values, got %d", nd.Label(t.ID()), nd.Elements(), n)
	}
	if p.live[t.ID()] == 0 {
		return nil, nil // no output depends on the input
	}
	pl := p.places[t.ID()]
	return pl.Buf.contents()[pl.Off : pl.Off+int64(4*n)], nil
}

// SetInt32 sets an I32 input (written straight into the shared arena).
func (p *program) SetInt32(t accel.Tensor, data []int32) error {
	mem, err := p.input(t, quant.I32, len(data))
	if err != nil || mem == nil {
		return err
	}
	copy(p.shadows[t.ID()], data)
	copy(unsafe.Slice((*int32)(unsafe.Pointer(&mem[0])), len(data)), data)
	return nil
}

// SetFloat32 sets an F32 input.
func (p *program) SetFloat32(t accel.Tensor, data []float32) error {
	mem, err := p.input(t, quant.F32, len(data))
	if err != nil || mem == nil {
		return err
	}
	copy(unsafe.Slice((*float32)(unsafe.Pointer(&mem[0])), len(data)), data)
	return nil
}

// Run checks the ids and positions, then encodes the dispatches into a command buffer, commits it and waits
// for it. It allocates nothing.
func (p *program) Run() error {
	if p.isClosed() {
		return accel.ErrClosed
	}
	for _, kb := range p.kvs {
		if kb.isClosed() {
			return fmt.Errorf("metal: buffer %q: %w", kb.desc.Name, accel.ErrClosed)
		}
	}
	// Every id and position is an input known before anything runs: check them all first, so a bad run changes
	// nothing.
	if err := p.checks.Verify(p.g); err != nil {
		return fmt.Errorf("metal: %w", err)
	}
	if p.debug != nil {
		return p.runDebug()
	}
	if err := p.b.g.run(p.steps); err != nil {
		return fmt.Errorf("metal: %w", err)
	}
	return nil
}

// runDebug runs the steps in pieces, reporting each named node once its step has run (the arena is reused, so
// later steps may overwrite it).
func (p *program) runDebug() error {
	done := 0
	for i := 0; i < len(p.debugAfter); {
		s := p.debugAfter[i].step
		if s > done {
			if err := p.b.g.run(p.steps[done:s]); err != nil {
				return fmt.Errorf("metal: %w", err)
			}
			done = s
		}
		for ; i < len(p.debugAfter) && p.debugAfter[i].step == s; i++ {
			id := p.debugAfter[i].id
			v := p.debugBuf[:p.g.Nodes[id].Elements()]
			p.values(id, v)
			p.debug(&p.g.Nodes[id], v)
		}
	}
	if done < len(p.steps) {
		if err := p.b.g.run(p.steps[done:]); err != nil {
			return fmt.Errorf("metal: %w", err)
		}
	}
	return nil
}

// Read copies an output's values into dst.
func (p *program) Read(t accel.Tensor, dst []float32) error {
	if p.isClosed() {
		return accel.ErrClosed
	}
	if _, err := p.g.Output(t, len(dst)); err != nil {
		return fmt.Errorf("metal: %w", err)
	}
	return p.values(t.ID(), dst)
}

// values converts node id's values, where they were computed, to float32.
func (p *program) values(id int, dst []float32) error {
	nd := &p.g.Nodes[id]
	pl := p.places[id]
	buf, off := pl.Buf, pl.Off
	if pl.W != nil {
		part, ok := pl.W.PartOf(pl.E0, int64(len(dst)))
		if !ok || pl.W.Tensor.Type != quant.F32 {
			return fmt.Errorf("metal: node %s: only F32 weights held in one buffer can be read", nd.Label(id))
		}
		buf, off = part.Buf, part.Off+4*(pl.E0-part.First)
	}
	if buf == nil || len(dst) == 0 {
		return nil
	}
	gpulower.ReadValues(dst, buf.contents()[off:], nd.Type)
	return nil
}

// ScratchBytes is the memory the program holds for inputs, intermediates and workspace.
func (p *program) ScratchBytes() int64 {
	return int64(len(p.arena.contents()))
}

// Close frees the program's memory. It is safe to call twice, but not during Run.
func (p *program) Close() error {
	p.b.mu.Lock()
	delete(p.b.programs, p)
	p.b.mu.Unlock()
	p.free()
	return nil
}

func (p *program) free() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	if p.arena != nil {
		p.arena.release()
	}
	p.steps = nil
}

func (p *program) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}
