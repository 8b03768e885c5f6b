package metal

import (
	"fmt"
	"sort"
	"sync"
	"unsafe"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/shaders/layout"
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

	arena  buffer
	steps  []step
	places []place     // per node
	ins    []inputSlot // per node; n == 0 for nodes that are not live inputs
	checks []rangeCheck
	// attnChecks validate each attention's positions, sequences and pages (accel.AttnLayout.Check).
	attnChecks []attnCheck
	kvs        []*kvBuffer
	ws         map[wsKey]*interval
	wsBase     int64

	debug      func(n *accel.Node, values []float32)
	stepAfter  map[int]int  // per computed node: the number of steps recorded up to and including it
	debugAfter []debugPoint // steps after which named nodes are reported, in order
	debugBuf   []float32

	mu     sync.Mutex
	closed bool
}

// place is where a node's values live: a byte offset into a buffer, or (weights and their views) an element
// offset into a weight.
type place struct {
	buf buffer
	off int64
	w   *weight
	e0  int64
}

// inputSlot is a live input: its element count and, for I32 inputs, a host copy for the range checks.
type inputSlot struct {
	n      int
	shadow []int32
}

// attnCheck is the run-time check of an attention's I32 operands (host copies; seq and pages nil unless paged).
type attnCheck struct {
	node            int
	lay             accel.AttnLayout
	pos, seq, pages []int32
}

// rangeCheck is a run-time check of an I32 operand (ids, positions): every value must be in [0, limit).
type rangeCheck struct {
	node  int
	what  string
	vals  []int32
	limit int32
}

// debugPoint: after steps[:step] have run, report node id.
type debugPoint struct {
	step, id int
}

// wsKey identifies converted activations: the same input converted to the same type is shared by matrix
// products (q, k and v projections of one normed input).
type wsKey struct {
	x   int
	act quant.Type
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
	p := &program{b: b, g: g, plan: plan, places: make([]place, n), ins: make([]inputSlot, n), ws: map[wsKey]*interval{},
		debug: opt.Debug}
	if err := p.checkLeaves(); err != nil {
		return nil, err
	}
	if err := p.layoutInputs(); err != nil {
		return nil, err
	}
	wsBytes := p.planWorkspace()
	p.wsBase = alignUp(plan.Scratch, bindAlign)
	size := max(4, p.wsBase+wsBytes)
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
		s := inputSlot{n: nd.Elements()}
		if nd.Type == quant.I32 {
			s.shadow = make([]int32, s.n)
		}
		p.ins[i] = s
	}
	return nil
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
		lay := layout.Lookup(w.Type)
		if lay == nil || lay.Act == quant.F32 {
			continue
		}
		x := nd.Args[1].ID()
		key := wsKey{x, lay.Act}
		if iv := p.ws[key]; iv != nil {
			iv.last = s
			continue
		}
		xn := p.g.Nodes[x]
		cols := xn.Shape[len(xn.Shape)-1]
		iv := &interval{first: s, last: s, size: actBytes(lay.Act, xn.Elements()/cols, cols)}
		p.ws[key] = iv
		all = append(all, iv)
	}
	return packIntervals(all, bindAlign)
}

// actBytes is the workspace size of n activation rows of cols elements converted to act.
func actBytes(act quant.Type, n, cols int) int64 {
	if act == quant.F16 || act == quant.BF16 {
		return int64(n) * int64(cols) * 4
	}
	return int64(n) * int64(cols/32) * 40
}

// resolvePlaces finds every live node's memory.
func (p *program) resolvePlaces() {
	for i := range p.g.Nodes {
		loc := p.plan.Loc[i]
		switch loc.Kind {
		case accel.LocScratch:
			p.places[i] = place{buf: p.arena, off: loc.Offset}
		case accel.LocBuffer:
			p.places[i] = place{buf: p.g.Nodes[loc.Root.ID()].Buffer.(*kvBuffer).buf, off: loc.Offset}
		case accel.LocWeight:
			w := p.g.Nodes[loc.Root.ID()].Weight.(*weight)
			t := w.desc.Type
			p.places[i] = place{w: w, e0: loc.Offset / int64(t.BlockBytes()) * int64(t.BlockElems())}
		}
	}
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
		if s, ok := p.stepAfter[p.producer(i)]; ok {
			p.debugAfter = append(p.debugAfter, debugPoint{step: s, id: i})
			most = max(most, nd.Elements())
		}
	}
	sort.SliceStable(p.debugAfter, func(i, j int) bool { return p.debugAfter[i].step < p.debugAfter[j].step })
	p.debugBuf = make([]float32, most)
}

// producer returns the computed node whose step writes node i's memory (i itself, or the root of a view).
func (p *program) producer(i int) int {
	for p.g.Nodes[i].Op.IsView() {
		i = p.g.Nodes[i].Args[0].ID()
	}
	return i
}

// input returns the slot of input t after checking its type and length.
func (p *program) input(t accel.Tensor, typ accel.DType, n int) (*inputSlot, []byte, error) {
	if p.isClosed() {
		return nil, nil, accel.ErrClosed
	}
	if !t.Valid() || t.ID() >= len(p.g.Nodes) {
		return nil, nil, fmt.Errorf("metal: tensor %d is not in the program's graph", t.ID())
	}
	nd := &p.g.Nodes[t.ID()]
	if nd.Op != accel.OpInput {
		return nil, nil, fmt.Errorf("metal: node %s is not an input", nd.Label(t.ID()))
	}
	if nd.Type != typ {
		return nil, nil, fmt.Errorf("metal: input %s is %s, not %s", nd.Label(t.ID()), nd.Type, typ)
	}
	if n != nd.Elements() {
		return nil, nil, fmt.Errorf("metal: input %s takes %d values, got %d", nd.Label(t.ID()), nd.Elements(), n)
	}
	s := &p.ins[t.ID()]
	if s.n == 0 {
		return s, nil, nil // no output depends on the input
	}
	pl := p.places[t.ID()]
	return s, pl.buf.contents()[pl.off : pl.off+int64(4*n)], nil
}

// SetInt32 sets an I32 input (written straight into the shared arena).
func (p *program) SetInt32(t accel.Tensor, data []int32) error {
	s, mem, err := p.input(t, quant.I32, len(data))
	if err != nil || mem == nil {
		return err
	}
	copy(s.shadow, data)
	copy(unsafe.Slice((*int32)(unsafe.Pointer(&mem[0])), len(data)), data)
	return nil
}

// SetFloat32 sets an F32 input.
func (p *program) SetFloat32(t accel.Tensor, data []float32) error {
	_, mem, err := p.input(t, quant.F32, len(data))
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
	for i := range p.checks {
		c := &p.checks[i]
		for j, v := range c.vals {
			if v < 0 || v >= c.limit {
				return fmt.Errorf("metal: node %s: %s %d is %d, outside [0, %d)", p.g.Nodes[c.node].Label(c.node), c.what, j, v, c.limit)
			}
		}
	}
	for i := range p.attnChecks {
		c := &p.attnChecks[i]
		if err := c.lay.Check(c.pos, c.seq, c.pages); err != nil {
			return fmt.Errorf("metal: node %s: %w", p.g.Nodes[c.node].Label(c.node), err)
		}
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
	buf, off := pl.buf, pl.off
	if pl.w != nil {
		part, ok := pl.w.partOf(pl.e0, int64(len(dst)))
		if !ok || pl.w.desc.Type != quant.F32 {
			return fmt.Errorf("metal: node %s: only F32 weights held in one buffer can be read", nd.Label(id))
		}
		buf, off = part.buf, part.off+4*(pl.e0-part.first)
	}
	if buf == nil || len(dst) == 0 {
		return nil
	}
	m := buf.contents()[off:]
	switch nd.Type {
	case quant.F16:
		for i, h := range unsafe.Slice((*uint16)(unsafe.Pointer(&m[0])), len(dst)) {
			dst[i] = quant.F16ToF32(h)
		}
	case quant.I32:
		for i, v := range unsafe.Slice((*int32)(unsafe.Pointer(&m[0])), len(dst)) {
			dst[i] = float32(v)
		}
	default:
		copy(dst, unsafe.Slice((*float32)(unsafe.Pointer(&m[0])), len(dst)))
	}
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
