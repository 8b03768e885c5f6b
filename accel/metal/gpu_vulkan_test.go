//go:build !darwin

package metal

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/forma-llm/forma/accel/vulkan"
	"github.com/forma-llm/forma/shaders"
)

// Off macOS the backend's tests run on vkGPU: the gpu interface implemented on a Vulkan device (lavapipe here),
// with the same SPIR-V the MSL was made from. Everything the backend does above the interface — weights in
// place or copied, no-copy views, lowering, bindings through each kernel's table, push constants — meets the
// reference here; only the Metal calls below it and SPIRV-Cross's translation wait for a Mac.

// testGPU opens a validated Vulkan device for t, closed (and any validation message failing t) at cleanup;
// it skips without Vulkan.
func testGPU(t testing.TB) gpu {
	t.Helper()
	d, err := vulkan.Open(vulkan.Options{Validation: true})
	if errors.Is(err, vulkan.ErrNoValidationLayer) {
		t.Logf("running without validation: %v", err)
		d, err = vulkan.Open(vulkan.Options{})
	}
	if errors.Is(err, vulkan.ErrNoLoader) || errors.Is(err, vulkan.ErrNoDevice) {
		t.Skipf("no Metal (%v), and no Vulkan device to run the backend on instead: %v", ErrNeedsMacOS, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	g := &vkGPU{d: d, maxBuffer: 1 << 30, pipes: map[vkPipeKey]*vkPipeline{}}
	t.Cleanup(func() {
		if err := g.close(); err != nil {
			t.Errorf("closing the device: %v", err)
		}
		for _, m := range d.Messages() {
			t.Errorf("validation: %v", m)
		}
	})
	return g
}

type vkGPU struct {
	d         *vulkan.Device
	maxBuffer int64
	mu        sync.Mutex
	pipes     map[vkPipeKey]*vkPipeline
	wrapped   int // buffers made by wrap
}

type vkPipeKey struct {
	name string
	spec [numSpec]uint32
}

type vkPipeline struct {
	k    shaders.Kernel
	spec [numSpec]uint32
	pipe *vulkan.Pipeline
}

func (p *vkPipeline) kernel() *shaders.Kernel { return &p.k }

type vkBuffer struct{ b *vulkan.Buffer }

func (b vkBuffer) contents() []byte { return b.b.Mapped() }
func (b vkBuffer) release()         { b.b.Close() }

func (g *vkGPU) info() Info {
	return Info{Name: "Vulkan " + g.d.Info().Name, UnifiedMemory: true, MaxBuffer: g.maxBuffer, WorkingSet: 1 << 30,
		OS: "test", Simdgroup: true, ThreadsPerSIMD: int(g.d.Info().SubgroupSize)}
}

// newBuffer makes host-visible coherent memory the shaders read and write, as Metal's shared storage.
func (g *vkGPU) newBuffer(name string, size int64) (buffer, error) {
	b, err := g.d.NewBuffer(name, size, vulkan.Readback)
	if err != nil {
		return nil, err
	}
	clear(b.Mapped())
	return vkBuffer{b}, nil
}

// wrap cannot alias host memory on Vulkan: it copies, which is what the no-copy view would show the GPU.
func (g *vkGPU) wrap(name string, mem []byte) (buffer, error) {
	b, err := g.newBuffer(name, int64(len(mem)))
	if err != nil {
		return nil, err
	}
	copy(b.contents(), mem)
	g.mu.Lock()
	g.wrapped++
	g.mu.Unlock()
	return b, nil
}

func (g *vkGPU) pipeline(k shaders.Kernel, spec [numSpec]uint32) (pipeline, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	key := vkPipeKey{k.Name, spec}
	if p := g.pipes[key]; p != nil {
		return p, nil
	}
	code, err := shaders.SPIRV(k.Name)
	if err != nil {
		return nil, err
	}
	pipe, err := g.d.Pipeline(vulkan.PipelineDesc{Name: k.Name, SPIRV: code, Buffers: len(k.Buffers), PushSize: k.PushExtent, Spec: spec[:]})
	if err != nil {
		return nil, err
	}
	p := &vkPipeline{k: k, spec: spec, pipe: pipe}
	g.pipes[key] = p
	dispatched.Lock()
	dispatched.names[k.Name] = true
	dispatched.Unlock()
	return p, nil
}

// run records the steps with a barrier after each, as a serial compute encoder orders them.
func (g *vkGPU) run(steps []step) error {
	c, err := g.d.NewCommands(vulkan.CommandsOptions{Name: "metal steps"})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Begin(); err != nil {
		return err
	}
	limit := int64(g.d.Info().MaxStorageBufferRange)
	for i, s := range steps {
		p := s.pipe.(*vkPipeline)
		if len(s.bufs) != len(p.k.Buffers) || len(s.push) != p.k.PushSize || s.wg != p.spec[0] {
			c.End()
			return fmt.Errorf("step %d (%s): %d buffers, %d push bytes, threadgroup %d", i, p.k.Name, len(s.bufs), len(s.push), s.wg)
		}
		ranges := make([]vulkan.BufferRange, len(s.bufs))
		for j, b := range s.bufs {
			vb := b.buf.(vkBuffer).b
			ranges[j] = vb.Range(b.off, min(vb.Size()-b.off, limit))
		}
		c.Dispatch(p.pipe, s.groups, s.push[:p.k.PushExtent], ranges...)
		c.Barrier()
	}
	if err := c.End(); err != nil {
		return err
	}
	return c.Run()
}

func (g *vkGPU) close() error {
	return g.d.Close()
}

// dispatched records the kernels the package's tests made pipelines of, on every device.
var dispatched struct {
	sync.Mutex
	names map[string]bool
}

// TestMain checks, after a full run of the package's tests, that they dispatched every MSL kernel (but add_f32,
// which only the Vulkan runtime's own tests use). Each dispatch checks the backend's buffers and push constants
// against the kernel's table (program.addStep), so every table has met the code that binds it.
func TestMain(m *testing.M) {
	dispatched.names = map[string]bool{}
	code := m.Run()
	if f := flag.Lookup("test.run"); code != 0 || testing.Short() || (f != nil && f.Value.String() != "") || len(dispatched.names) == 0 {
		os.Exit(code) // a partial run, or no Vulkan device
	}
	var missing []string
	for _, name := range shaders.Names() {
		if !dispatched.names[name] && name != "add_f32" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: the tests never dispatched kernels %v\n", missing)
		os.Exit(1)
	}
	os.Exit(code)
}
