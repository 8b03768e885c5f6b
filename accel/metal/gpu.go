package metal

import (
	"github.com/forma-llm/forma/accel/internal/gpulower"
	"github.com/forma-llm/forma/shaders"
)

// gpu is what the backend needs of a device. On macOS it is Metal (device_darwin.go); the tests on other
// systems run the very same backend on a Vulkan device (gpu_vulkan_test.go), which checks everything above
// this interface against the reference on real shaders.
type gpu interface {
	info() Info
	// newBuffer allocates size bytes of zeroed memory the host and the GPU share (MTLStorageModeShared).
	newBuffer(name string, size int64) (buffer, error)
	// wrap makes a buffer of host memory without copying it (newBufferWithBytesNoCopy). mem is page-aligned,
	// a whole number of pages, outside the Go heap, and outlives the buffer.
	wrap(name string, mem []byte) (buffer, error)
	// pipeline returns kernel k compiled with workgroup size wg and the function constants spec (by constant
	// id: spec[0] is wg, spec[k] for every constant the kernel declares). Pipelines are cached by the device.
	pipeline(k shaders.Kernel, spec [numSpec]uint32) (pipeline, error)
	// run encodes the steps into one command buffer with one serial compute encoder (each dispatch sees every
	// earlier one's writes), commits it and waits for it, returning the command buffer's error. It must not
	// allocate on the Go heap.
	run(steps []step) error
	close() error
}

// buffer is memory the GPU reads and writes, host-visible (shared storage).
type buffer interface {
	contents() []byte // the host's view of the whole buffer
	release()
}

// pipeline is a compiled kernel, owned by its device.
type pipeline interface {
	kernel() *shaders.Kernel
}

// numSpec is the number of function (specialization) constant ids the shaders use (gpulower.NumSpec).
const numSpec = gpulower.NumSpec

// step is one dispatch: a pipeline, a buffer and offset per SPIR-V binding (the pipeline's kernel table maps
// them to Metal buffer indices), the push constants padded to the kernel's MSL push size, and the grid.
type step struct {
	pipe   pipeline
	bufs   []bound
	push   []byte
	groups [3]uint32
	wg     uint32
}

// bound is a buffer bound at a byte offset.
type bound struct {
	buf buffer
	off int64
}
