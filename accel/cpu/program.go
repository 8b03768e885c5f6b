package cpu

import (
	"fmt"
	"unsafe"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// arenaAlign is the alignment of every scratch tensor and workspace region (a cache line).
const arenaAlign = 64

// step is one computed node of a program.
type step interface {
	// check validates data only known at run time (positions, row ids) before the step runs.
	check() error
	// exec runs the step on the pool.
	exec(p *pool)
	// workspace is the bytes of arena workspace the step needs with the given number of shares.
	workspace(shares int) int
	// bind resolves the step's tensors to memory once the arena exists, and hands it its workspace.
	bind(p *program, ws []byte)
}

// program is a compiled graph.
type program struct {
	b     *Backend
	g     *accel.Graph
	plan  *accel.Plan
	arena []byte
	// shared, when the program was compiled with an accel.Scratch, owns arena (the start of its memory).
	shared *sharedArena
	mem    [][]byte // each node's bytes (nil for nodes no output needs)
	steps  []step
	nodes  []int // graph node of each step
	bufs   []*buffer

	debug      func(n *accel.Node, values []float32)
	debugAfter [][]int // named nodes whose values are ready after each step
	debugBuf   []float32

	life accel.Lifetime
}

// compile builds the program: plan, memory, one step per computed node, workers.
func compile(b *Backend, g *accel.Graph, opt accel.CompileOptions) (*program, error) {
	plan, err := accel.NewPlan(g, arenaAlign)
	if err != nil {
		return nil, err
	}
	p := &program{b: b, g: g, plan: plan, mem: make([][]byte, len(g.Nodes)), debug: opt.Debug}
	if err := p.checkLeaves(); err != nil {
		return nil, err
	}
	for i := range g.Nodes {
		if err := p.bindLeaf(i); err != nil {
			return nil, err
		}
	}
	// The arena is allocated once the steps have reported their workspace; then the steps are bound to memory.
	shares := b.threads
	work := 0
	for _, t := range plan.Order {
		s, err := p.newStep(t.ID())
		if err != nil {
			return nil, fmt.Errorf("cpu: node %s: %w", g.Nodes[t.ID()].Label(t.ID()), err)
		}
		p.steps = append(p.steps, s)
		p.nodes = append(p.nodes, t.ID())
		work = max(work, alignUp(s.workspace(shares)))
	}
	shareRoPETables(g, p.steps)
	shareActivations(p.steps)
	need := int(plan.Scratch) + work
	if opt.Scratch != nil {
		err = b.shareArena(p, opt.Scratch, need)
	} else {
		p.arena, err = allocNative(need)
	}
	if err != nil {
		return nil, fmt.Errorf("cpu: scratch for %d nodes: %w", len(g.Nodes), err)
	}
	p.bindMemory()
	if p.debug != nil {
		p.prepareDebug()
	}
	return p, nil
}

// bindMemory gives the scratch nodes their slices of the arena and binds the steps to their memory (again
// when a shared arena has moved).
func (p *program) bindMemory() {
	p.bindScratch()
	for _, s := range p.steps {
		s.bind(p, p.arena[p.plan.Scratch:])
	}
}

func alignUp(n int) int { return (n + arenaAlign - 1) &^ (arenaAlign - 1) }

// checkLeaves verifies that the graph's weights and buffers belong to this backend and are open.
func (p *program) checkLeaves() error {
	for i := range p.g.Nodes {
		nd := &p.g.Nodes[i]
		switch nd.Op {
		case accel.OpWeight:
			w, ok := nd.Weight.(*weight)
			if !ok || w.b != p.b {
				return fmt.Errorf("cpu: node %s: weight %q was not uploaded to this backend", nd.Label(i), nd.Name)
			}
		case accel.OpBuffer:
			bf, ok := nd.Buffer.(*buffer)
			if !ok || bf.b != p.b {
				return fmt.Errorf("cpu: node %s: buffer %q was not made by this backend", nd.Label(i), nd.Name)
			}
			if bf.isClosed() {
				return fmt.Errorf("cpu: node %s: buffer %q: %w", nd.Label(i), nd.Name, accel.ErrClosed)
			}
			p.bufs = append(p.bufs, bf)
		}
	}
	return nil
}

// bindLeaf binds the memory of weights, buffers and their views (scratch is bound after allocation).
func (p *program) bindLeaf(i int) error {
	nd := &p.g.Nodes[i]
	loc := p.plan.Loc[i]
	size := storageBytes(nd.Type, nd.Elements())
	var base []byte
	switch loc.Kind {
	case accel.LocWeight:
		base = p.g.Nodes[loc.Root.ID()].Weight.(*weight).data
	case accel.LocBuffer:
		base = p.g.Nodes[loc.Root.ID()].Buffer.(*buffer).mem
	default:
		return nil
	}
	if loc.Offset < 0 || loc.Offset+int64(size) > int64(len(base)) {
		return fmt.Errorf("cpu: node %s lies outside its memory", nd.Label(i))
	}
	p.mem[i] = base[loc.Offset : loc.Offset+int64(size)]
	return nil
}

// bindScratch gives every scratch node its slice of the arena.
func (p *program) bindScratch() {
	for i := range p.g.Nodes {
		if loc := p.plan.Loc[i]; loc.Kind == accel.LocScratch {
			nd := &p.g.Nodes[i]
			size := int64(storageBytes(nd.Type, nd.Elements()))
			p.mem[i] = p.arena[loc.Offset : loc.Offset+size : loc.Offset+size]
		}
	}
}

// The views below reinterpret native memory; every tensor starts at a multiple of its element size.

func f32s(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

func bytesOf(f []float32) []byte {
	if len(f) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(f))), 4*len(f))
}

func u16s(b []byte) []uint16 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/2)
}

func i32s(b []byte) []int32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4)
}

// input returns the input node t refers to, or an error.
func (p *program) input(t accel.Tensor, typ accel.DType, n int) ([]byte, error) {
	if p.isClosed() {
		return nil, accel.ErrClosed
	}
	if _, err := p.g.Input(t, typ, n); err != nil {
		return nil, fmt.Errorf("cpu: %w", err)
	}
	return p.mem[t.ID()], nil // nil when no output depends on the input: the values are not needed
}

// SetInt32 sets an I32 input.
func (p *program) SetInt32(t accel.Tensor, data []int32) error {
	m, err := p.input(t, quant.I32, len(data))
	if err == nil {
		copy(i32s(m), data)
	}
	return err
}

// SetFloat32 sets an F32 input.
func (p *program) SetFloat32(t accel.Tensor, data []float32) error {
	m, err := p.input(t, quant.F32, len(data))
	if err == nil {
		copy(f32s(m), data)
	}
	return err
}

// Run computes the graph.
func (p *program) Run() error {
	if p.isClosed() {
		return accel.ErrClosed
	}
	for _, bf := range p.bufs {
		if bf.isClosed() {
			return fmt.Errorf("cpu: buffer %q: %w", bf.desc.Name, accel.ErrClosed)
		}
	}
	// Positions and row ids are inputs, known before anything runs: check them all first, so that a bad run
	// changes nothing (no KV rows written).
	for i, s := range p.steps {
		if err := s.check(); err != nil {
			id := p.nodes[i]
			return fmt.Errorf("cpu: node %s: %w", p.g.Nodes[id].Label(id), err)
		}
	}
	if p.debug != nil {
		p.debugNodes(p.debugAfter[len(p.steps)]) // views of inputs, weights and buffers
	}
	pool := p.b.acquirePool()
	defer p.b.releasePool()
	for i, s := range p.steps {
		s.exec(pool)
		if p.debug != nil {
			p.debugNodes(p.debugAfter[i])
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
		return fmt.Errorf("cpu: %w", err)
	}
	return p.values(t.ID(), dst)
}

// values converts node i's data to float32.
func (p *program) values(i int, dst []float32) error {
	nd := &p.g.Nodes[i]
	m := p.mem[i]
	switch nd.Type {
	case quant.F32:
		copy(dst, f32s(m))
	case quant.I32:
		for j, v := range i32s(m) {
			dst[j] = float32(v)
		}
	default:
		return quant.Dequantize(nd.Type, m, dst)
	}
	return nil
}

// ScratchBytes is the size of the arena: intermediates, inputs and workspace.
func (p *program) ScratchBytes() int64 { return int64(len(p.arena)) }

// Close stops the workers and frees the arena. It is safe to call twice, but not during Run.
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
	if p.shared != nil {
		err = p.shared.release(p)
	} else {
		err = freeNative(p.arena)
	}
	p.arena, p.mem = nil, nil
	return err
}

func (p *program) isClosed() bool { return p.life.Closed() }

// prepareDebug finds, for every named computed node or view, the step after which its values are ready.
// Index len(steps) collects views of leaves, reported before the first step.
func (p *program) prepareDebug() {
	stepOf := make([]int, len(p.g.Nodes))
	for i := range stepOf {
		stepOf[i] = len(p.steps)
	}
	for s, id := range p.nodes {
		stepOf[id] = s
	}
	p.debugAfter = make([][]int, len(p.steps)+1)
	most := 0
	for i := range p.g.Nodes {
		nd := &p.g.Nodes[i]
		if nd.Op.IsView() {
			stepOf[i] = stepOf[nd.Args[0].ID()]
		}
		if nd.Name == "" || nd.Op.IsLeaf() || p.mem[i] == nil {
			continue
		}
		p.debugAfter[stepOf[i]] = append(p.debugAfter[stepOf[i]], i)
		most = max(most, nd.Elements())
	}
	p.debugBuf = make([]float32, most)
}

func (p *program) debugNodes(ids []int) {
	for _, i := range ids {
		nd := &p.g.Nodes[i]
		v := p.debugBuf[:nd.Elements()]
		if p.values(i, v) == nil {
			p.debug(nd, v)
		}
	}
}
