package metal

import (
	"fmt"

	"github.com/forma-llm/forma/accel/internal/gpulower"
	"github.com/forma-llm/forma/shaders"
)

// record lowers every step of the plan (gpulower: the same kernels, push constants and grids as accel/vulkan)
// into the program's steps.
func (p *program) record() error {
	low := gpulower.New(p.lowering())
	p.stepAfter = map[int]int{}
	for s, t := range p.plan.Order {
		id := t.ID()
		ds, err := low.Step(s)
		for i := 0; err == nil && i < len(ds); i++ {
			err = p.addStep(&ds[i])
		}
		if err != nil {
			return fmt.Errorf("node %s: %w", p.g.Nodes[id].Label(id), err)
		}
		p.stepAfter[id] = len(p.steps)
	}
	p.checks = low.Checks()
	return nil
}

// addStep appends d to the program's steps after checking that it binds what the kernel declares: one buffer
// per SPIR-V binding and exactly its push constants.
func (p *program) addStep(d *gpulower.Dispatch[buffer]) error {
	k, err := shaders.MSLKernel(d.Kernel)
	if err != nil {
		return err
	}
	if len(d.Bindings) != len(k.Buffers) || len(d.Push) != k.PushExtent {
		return fmt.Errorf("kernel %s takes %d buffers and %d bytes of push constants; the backend binds %d and %d",
			d.Kernel, len(k.Buffers), k.PushExtent, len(d.Bindings), len(d.Push))
	}
	pipe, err := p.b.g.pipeline(k, d.Constants(p.b.nativeFMA))
	if err != nil {
		return err
	}
	bufs := make([]bound, len(d.Bindings))
	for i, b := range d.Bindings {
		bufs[i] = bound{b.Buf, b.Lo}
	}
	padded := make([]byte, k.PushSize)
	copy(padded, d.Push)
	p.steps = append(p.steps, step{pipe: pipe, bufs: bufs, push: padded, groups: d.Groups, wg: d.WG})
	return nil
}
