package vulkan

import (
	"fmt"
	"unsafe"

	"github.com/forma-llm/forma/accel/vulkan/vk"
)

// MemoryKind says what a buffer is for, which decides the memory it lives in.
type MemoryKind int

const (
	// DeviceLocal is the device's working memory: weights, activations, KV cache. On unified-memory devices it
	// is also mapped, so Write and Read copy directly; elsewhere they go through a staging buffer.
	DeviceLocal MemoryKind = iota
	// Upload is host-visible, coherent memory the host writes and the device reads (staging).
	Upload
	// Readback is host-visible, coherent memory, cached where the device offers it, that the device writes and
	// the host reads.
	Readback
)

func (k MemoryKind) String() string {
	switch k {
	case Upload:
		return "upload"
	case Readback:
		return "readback"
	}
	return "device-local"
}

// Buffer is a storage buffer with its own memory. Close frees it; Device.Close frees those still open.
type Buffer struct {
	dev    *Device
	name   string
	handle vk.Buffer
	memory vk.DeviceMemory
	size   int64
	kind   MemoryKind
	mapped []byte // the memory, when the host can see it
	closed bool   // guarded by dev.mu
}

const bufferUsage = vk.BufferUsageStorageBufferBit | vk.BufferUsageTransferSrcBit | vk.BufferUsageTransferDstBit

// NewBuffer allocates a buffer of size bytes. Its contents are undefined until written (see Commands.Fill). name
// labels it in errors and validation messages.
func (d *Device) NewBuffer(name string, size int64, kind MemoryKind) (*Buffer, error) {
	if size <= 0 {
		return nil, fmt.Errorf("vulkan: buffer %q: size %d", name, size)
	}
	if m := d.phys.info.MaxMemoryAllocationSize; m > 0 && uint64(size) > m {
		return nil, fmt.Errorf("vulkan: buffer %q: %d bytes exceed the device's largest allocation (%d)", name, size, m)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return nil, err
	}
	b := &Buffer{dev: d, name: name, size: size, kind: kind}
	if err := b.create(); err != nil {
		b.destroy()
		return nil, err
	}
	d.buffers[b] = struct{}{}
	return b, nil
}

func (b *Buffer) create() error {
	d := b.dev
	info := &vk.BufferCreateInfo{SType: vk.StructureTypeBufferCreateInfo, Size: vk.DeviceSize(b.size),
		Usage: bufferUsage, SharingMode: vk.SharingModeExclusive}
	if r := d.cmds.CreateBuffer(d.handle, info, nil, &b.handle); r != vk.Success {
		return fmt.Errorf("vulkan: buffer %q (%d bytes): vkCreateBuffer: %w", b.name, b.size, r)
	}
	d.setName(vk.ObjectTypeBuffer, uint64(b.handle), b.name)
	var req vk.MemoryRequirements
	d.cmds.GetBufferMemoryRequirements(d.handle, b.handle, &req)
	typ, err := d.memoryType(req.MemoryTypeBits, b.kind)
	if err != nil {
		return fmt.Errorf("vulkan: buffer %q: %w", b.name, err)
	}
	alloc := &vk.MemoryAllocateInfo{SType: vk.StructureTypeMemoryAllocateInfo, AllocationSize: req.Size, MemoryTypeIndex: uint32(typ)}
	if r := d.cmds.AllocateMemory(d.handle, alloc, nil, &b.memory); r != vk.Success {
		return fmt.Errorf("vulkan: buffer %q: allocating %d bytes of %s memory: %w", b.name, req.Size, b.kind, r)
	}
	d.setName(vk.ObjectTypeDeviceMemory, uint64(b.memory), b.name)
	if r := d.cmds.BindBufferMemory(d.handle, b.handle, b.memory, 0); r != vk.Success {
		return fmt.Errorf("vulkan: buffer %q: vkBindBufferMemory: %w", b.name, r)
	}
	if d.phys.mem.MemoryTypes[typ].PropertyFlags&vk.MemoryPropertyHostVisibleBit != 0 && !(d.noMap && b.kind == DeviceLocal) {
		var p unsafe.Pointer
		if r := d.cmds.MapMemory(d.handle, b.memory, 0, vk.WholeSize, 0, &p); r != vk.Success {
			return fmt.Errorf("vulkan: buffer %q: vkMapMemory: %w", b.name, r)
		}
		b.mapped = unsafe.Slice((*byte)(p), b.size) // memory the driver owns, valid until the buffer is freed
	}
	return nil
}

// memoryType picks the memory type for a kind among those allowed by bits (VkMemoryRequirements).
func (d *Device) memoryType(bits uint32, kind MemoryKind) (int, error) {
	const (
		local    = vk.MemoryPropertyDeviceLocalBit
		visible  = vk.MemoryPropertyHostVisibleBit | vk.MemoryPropertyHostCoherentBit
		cached   = vk.MemoryPropertyHostCachedBit
		anything = vk.MemoryPropertyFlags(0)
	)
	type pref struct{ want, avoid vk.MemoryPropertyFlags }
	var prefs []pref
	switch kind {
	case DeviceLocal:
		if d.unified >= 0 && bits&(1<<d.unified) != 0 {
			return d.unified, nil
		}
		prefs = []pref{{local, visible}, {local, 0}, {anything, 0}}
	case Upload:
		prefs = []pref{{visible, local}, {visible, 0}}
	case Readback:
		prefs = []pref{{visible | cached, 0}, {visible, 0}}
	}
	mem := &d.phys.mem
	for _, p := range prefs {
		for i := uint32(0); i < mem.MemoryTypeCount; i++ {
			f := mem.MemoryTypes[i].PropertyFlags
			if bits&(1<<i) != 0 && f&p.want == p.want && f&p.avoid == 0 {
				return int(i), nil
			}
		}
	}
	return -1, fmt.Errorf("no memory type for %s buffers", kind)
}

// Name, Size and Kind return what the buffer was made with.
func (b *Buffer) Name() string { return b.name }

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int64 { return b.size }

// Kind is the buffer's memory kind.
func (b *Buffer) Kind() MemoryKind { return b.kind }

// Mapped returns the buffer's memory when the host can access it directly (Upload and Readback buffers, and
// DeviceLocal ones on unified-memory devices), else nil. Host writes must finish before a submission that reads
// them, and host reads must wait for the submission that wrote them.
func (b *Buffer) Mapped() []byte { return b.mapped }

// Close frees the buffer. The device must no longer use it (wait for submissions that do). Closing twice, or
// after Device.Close, does nothing.
func (b *Buffer) Close() error {
	d := b.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if b.closed || d.closed {
		return nil
	}
	delete(d.buffers, b)
	b.destroy()
	return nil
}

func (b *Buffer) destroy() {
	d := b.dev
	b.closed = true
	b.mapped = nil
	if b.handle != 0 {
		d.cmds.DestroyBuffer(d.handle, b.handle, nil)
		b.handle = 0
	}
	if b.memory != 0 {
		d.cmds.FreeMemory(d.handle, b.memory, nil) // also unmaps
		b.memory = 0
	}
}

// check reports whether [off, off+n) lies in the buffer.
func (b *Buffer) check(off, n int64) error {
	if b == nil {
		return fmt.Errorf("vulkan: nil buffer")
	}
	if b.closed {
		return fmt.Errorf("vulkan: buffer %q is closed", b.name)
	}
	if off < 0 || n < 0 || off > b.size || n > b.size-off {
		return fmt.Errorf("vulkan: buffer %q (%d bytes): range [%d, %d) out of bounds", b.name, b.size, off, off+n)
	}
	return nil
}
