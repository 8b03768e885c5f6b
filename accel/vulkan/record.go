package vulkan

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/internal/gpulower"
	"github.com/forma-llm/forma/shaders"
)

// recorder records a program's command buffer, inserting barriers where hazards require them.
type recorder struct {
	p   *program
	c   *Commands
	haz hazards
	err error
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
	low := gpulower.New(p.lowering())
	debugAfter := map[int][]outputSlot{}
	for _, s := range p.debugNodes {
		at := gpulower.Producer(p.g, s.id)
		debugAfter[at] = append(debugAfter[at], s)
	}
	for s, t := range p.plan.Order {
		ds, err := low.Step(s)
		for i := range ds {
			r.dispatch(&ds[i])
		}
		if err == nil {
			err = r.err
		}
		if err != nil {
			c.End()
			return fmt.Errorf("node %s: %w", p.g.Nodes[t.ID()].Label(t.ID()), err)
		}
		for _, d := range debugAfter[t.ID()] {
			r.copyOut(d)
		}
	}
	p.checks = low.Checks()
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

// copyOut copies a node's values into its slot of the readback buffer.
func (r *recorder) copyOut(s outputSlot) {
	if r.err != nil {
		return
	}
	size := int64(s.n * gpulower.ElemSize(s.typ))
	pl := r.p.places[s.id]
	src, off := pl.Buf, pl.Off
	if pl.W != nil {
		part, ok := pl.W.PartOf(pl.E0, int64(s.n))
		if !ok || pl.W.Tensor.Type != accel.F32 {
			r.err = fmt.Errorf("node %s: only F32 weights in one buffer can be read back", r.p.g.Nodes[s.id].Label(s.id))
			return
		}
		src, off = part.Buf, 4*(pl.E0-part.First)
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

// dispatch records d after a barrier if it depends on an earlier command.
func (r *recorder) dispatch(d *gpulower.Dispatch[*Buffer]) {
	if r.err != nil {
		return
	}
	code, err := shaders.SPIRV(d.Kernel)
	if err != nil {
		r.err = err
		return
	}
	bufs := make([]BufferRange, len(d.Bindings))
	var rr, wr []region
	for i, b := range d.Bindings {
		bufs[i] = r.bufferRange(b)
		var reg region
		if !b.Const {
			reg = region{b.Buf, b.Off, b.Off + b.Size}
		}
		if b.Write {
			wr = append(wr, reg)
		} else if !b.Const {
			rr = append(rr, reg)
		}
	}
	if r.err != nil {
		return
	}
	spec := d.Constants(r.p.b.nativeFMA)
	pipe, err := r.p.b.dev.Pipeline(PipelineDesc{Name: d.Kernel, SPIRV: code, Buffers: len(bufs), PushSize: len(d.Push),
		Spec: spec[:]})
	if err != nil {
		r.err = err
		return
	}
	r.sync(rr, wr)
	r.c.Dispatch(pipe, d.Groups, d.Push, bufs...)
}

// bufferRange is the range a binding binds: from its aligned offset to the word after its data (a weight part:
// to the end of the buffer), within the device's binding range.
func (r *recorder) bufferRange(b gpulower.Binding[*Buffer]) BufferRange {
	if b.ToEnd {
		return BufferRange{Buffer: b.Buf, Offset: b.Lo}
	}
	hi := min(b.Buf.Size(), alignUp(b.Off+b.Size, 4))
	if hi-b.Lo > r.p.b.maxBind && r.err == nil {
		r.err = fmt.Errorf("a tensor of %d bytes exceeds the device's binding range of %d", b.Size, r.p.b.maxBind)
	}
	return b.Buf.Range(b.Lo, hi-b.Lo)
}
