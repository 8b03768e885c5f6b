package vulkan

import (
	"cmp"
	"fmt"

	"github.com/forma-llm/forma/accel/vulkan/vk"
)

// defaultStagingSize is the size of each staging buffer; larger transfers go through it in chunks.
const defaultStagingSize = 16 << 20

// transfer moves data between the host and device-local buffers the host cannot map, through staging buffers.
type transfer struct {
	dev   *Device
	pool  vk.CommandPool
	cb    vk.CommandBuffer
	fence vk.Fence
	up    *Buffer // Upload
	down  *Buffer // Readback
	size  int64   // of each staging buffer
}

// Write copies src into dst at byte offset off.
func (d *Device) Write(dst *Buffer, off int64, src []byte) error {
	return d.WriteFunc(dst, off, int64(len(src)), func(chunk []byte, pos int64) error {
		copy(chunk, src[pos:])
		return nil
	})
}

// WriteFunc fills n bytes of dst at byte offset off by calling fill with successive chunks of memory the device
// can read, and pos, the chunk's position within the n bytes. It lets a caller convert data (a weight's blocks)
// straight into device or staging memory, with no copy on the Go heap. fill's error stops the write.
func (d *Device) WriteFunc(dst *Buffer, off, n int64, fill func(chunk []byte, pos int64) error) error {
	if err := dst.check(off, n); err != nil {
		return err
	}
	if dst.mapped != nil {
		return fill(dst.mapped[off:off+n], 0)
	}
	return d.withTransfer(func(x *transfer) error {
		for pos := int64(0); pos < n; pos += x.size {
			size := min(x.size, n-pos)
			if err := fill(x.up.mapped[:size], pos); err != nil {
				return err
			}
			err := x.run(func(cb vk.CommandBuffer) {
				d.cmds.CmdCopyBuffer(cb, x.up.handle, dst.handle, 1, &vk.BufferCopy{DstOffset: vk.DeviceSize(off + pos), Size: vk.DeviceSize(size)})
				// Later submissions on the queue read or overwrite what the copy wrote.
				memoryBarrier(d.cmds, cb, vk.PipelineStageTransferBit, vk.AccessTransferWriteBit, stagesAll, accessAll)
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// Read copies len(dst) bytes of src at byte offset off into dst. Earlier submissions that write src must have
// finished (Commands.Wait).
func (d *Device) Read(src *Buffer, off int64, dst []byte) error {
	n := int64(len(dst))
	if err := src.check(off, n); err != nil {
		return err
	}
	if src.mapped != nil {
		copy(dst, src.mapped[off:off+n])
		return nil
	}
	return d.withTransfer(func(x *transfer) error {
		for pos := int64(0); pos < n; pos += x.size {
			size := min(x.size, n-pos)
			err := x.run(func(cb vk.CommandBuffer) {
				memoryBarrier(d.cmds, cb, stagesAll, accessWrites, vk.PipelineStageTransferBit, vk.AccessTransferReadBit)
				d.cmds.CmdCopyBuffer(cb, src.handle, x.down.handle, 1, &vk.BufferCopy{SrcOffset: vk.DeviceSize(off + pos), Size: vk.DeviceSize(size)})
				memoryBarrier(d.cmds, cb, vk.PipelineStageTransferBit, vk.AccessTransferWriteBit, vk.PipelineStageHostBit, vk.AccessHostReadBit)
			})
			if err != nil {
				return err
			}
			copy(dst[pos:], x.down.mapped[:size])
		}
		return nil
	})
}

// withTransfer runs f with the device's transfer state, made on first use; transfers are serialised.
func (d *Device) withTransfer(f func(*transfer) error) error {
	d.xferMu.Lock()
	defer d.xferMu.Unlock()
	if d.xfer == nil {
		x, err := d.newTransfer()
		if err != nil {
			return err
		}
		d.xfer = x
	}
	return f(d.xfer)
}

func (d *Device) newTransfer() (*transfer, error) {
	x := &transfer{dev: d, size: cmp.Or(d.stagingSize, defaultStagingSize)}
	var err error
	if x.up, err = d.NewBuffer("staging upload", x.size, Upload); err != nil {
		return nil, err
	}
	if x.down, err = d.NewBuffer("staging readback", x.size, Readback); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return nil, err
	}
	if x.pool, x.cb, err = d.newCommandBuffer("transfer"); err != nil {
		x.destroy()
		return nil, err
	}
	if x.fence, err = d.newFence(); err != nil {
		x.destroy()
		return nil, err
	}
	return x, nil
}

// run records one command buffer with record, submits it and waits for it.
func (x *transfer) run(record func(vk.CommandBuffer)) error {
	d := x.dev
	begin := &vk.CommandBufferBeginInfo{SType: vk.StructureTypeCommandBufferBeginInfo, Flags: vk.CommandBufferUsageOneTimeSubmitBit}
	if r := d.cmds.BeginCommandBuffer(x.cb, begin); r != vk.Success {
		return fmt.Errorf("vulkan: vkBeginCommandBuffer: %w", r)
	}
	record(x.cb)
	if r := d.cmds.EndCommandBuffer(x.cb); r != vk.Success {
		return fmt.Errorf("vulkan: vkEndCommandBuffer: %w", r)
	}
	if r := d.cmds.ResetFences(d.handle, 1, &x.fence); r != vk.Success {
		return fmt.Errorf("vulkan: vkResetFences: %w", r)
	}
	info := &vk.SubmitInfo{SType: vk.StructureTypeSubmitInfo, CommandBufferCount: 1, PCommandBuffers: &x.cb}
	if err := d.submit(x.fence, info); err != nil {
		return err
	}
	return d.waitFence(x.fence)
}

func (x *transfer) destroy() {
	d := x.dev
	if x.fence != 0 {
		d.cmds.DestroyFence(d.handle, x.fence, nil)
	}
	if x.pool != 0 {
		d.cmds.DestroyCommandPool(d.handle, x.pool, nil) // frees its command buffer
	}
	// The staging buffers are ordinary buffers of the device and are freed with them.
}

// Pipeline stages and accesses for the coarse barriers compute work needs.
const (
	stagesAll    = vk.PipelineStageComputeShaderBit | vk.PipelineStageTransferBit
	accessWrites = vk.AccessShaderWriteBit | vk.AccessTransferWriteBit
	accessAll    = vk.AccessShaderReadBit | vk.AccessShaderWriteBit | vk.AccessTransferReadBit | vk.AccessTransferWriteBit
)

// memoryBarrier records a global memory barrier.
func memoryBarrier(c *vk.DeviceCommands, cb vk.CommandBuffer, srcStage vk.PipelineStageFlags, srcAccess vk.AccessFlags,
	dstStage vk.PipelineStageFlags, dstAccess vk.AccessFlags) {
	b := &vk.MemoryBarrier{SType: vk.StructureTypeMemoryBarrier, SrcAccessMask: srcAccess, DstAccessMask: dstAccess}
	c.CmdPipelineBarrier(cb, srcStage, dstStage, 0, 1, b, 0, nil, 0, nil)
}

// newCommandBuffer creates a command pool for the device's queue family (resettable buffers) and one primary
// command buffer from it.
func (d *Device) newCommandBuffer(name string) (vk.CommandPool, vk.CommandBuffer, error) {
	var pool vk.CommandPool
	info := &vk.CommandPoolCreateInfo{SType: vk.StructureTypeCommandPoolCreateInfo,
		Flags: vk.CommandPoolCreateResetCommandBufferBit, QueueFamilyIndex: d.phys.queueFamily}
	if r := d.cmds.CreateCommandPool(d.handle, info, nil, &pool); r != vk.Success {
		return 0, 0, fmt.Errorf("vulkan: vkCreateCommandPool: %w", r)
	}
	var cb vk.CommandBuffer
	alloc := &vk.CommandBufferAllocateInfo{SType: vk.StructureTypeCommandBufferAllocateInfo, CommandPool: pool,
		Level: vk.CommandBufferLevelPrimary, CommandBufferCount: 1}
	if r := d.cmds.AllocateCommandBuffers(d.handle, alloc, &cb); r != vk.Success {
		d.cmds.DestroyCommandPool(d.handle, pool, nil)
		return 0, 0, fmt.Errorf("vulkan: vkAllocateCommandBuffers: %w", r)
	}
	d.setName(vk.ObjectTypeCommandBuffer, uint64(cb), name)
	return pool, cb, nil
}

func (d *Device) newFence() (vk.Fence, error) {
	var f vk.Fence
	info := &vk.FenceCreateInfo{SType: vk.StructureTypeFenceCreateInfo}
	if r := d.cmds.CreateFence(d.handle, info, nil, &f); r != vk.Success {
		return 0, fmt.Errorf("vulkan: vkCreateFence: %w", r)
	}
	return f, nil
}
