package vulkan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/forma-llm/forma/accel/vulkan/vk"
)

// CommandsOptions configure NewCommands.
type CommandsOptions struct {
	Name string // labels the command buffer in messages
	// Timestamps is how many timestamps one recording may write (Commands.Timestamp); 0 for none.
	Timestamps int
}

// Commands is a command buffer that is recorded once and submitted any number of times, with the descriptor
// sets its dispatches bind and a fence to wait on. Recording methods keep the first error and report it from End
// (like bufio.Writer). A Commands is used by one goroutine at a time.
type Commands struct {
	dev   *Device
	name  string
	pool  vk.CommandPool
	cb    vk.CommandBuffer
	fence vk.Fence
	// Prepared calls, so that submitting and waiting allocate nothing.
	resetCall, submitCall, waitCall *vk.Prepared

	descPools []vk.DescriptorPool
	poolIdx   int // current pool
	setsLeft  int // sets left in the current pool
	descLeft  int // storage-buffer descriptors left in the current pool

	queries    vk.QueryPool
	maxQueries uint32
	nQueries   uint32 // timestamps written by the current recording
	stamps     []uint64

	recording, recorded, pending bool
	err                          error
	closed                       bool // guarded by dev.mu
}

// Descriptor pool sizing: each pool holds this many sets of up to descPerSet storage buffers on average.
const (
	setsPerPool = 256
	descPerSet  = 8
)

// NewCommands creates an empty command buffer.
func (d *Device) NewCommands(opt CommandsOptions) (*Commands, error) {
	if opt.Timestamps < 0 {
		return nil, fmt.Errorf("vulkan: commands %q: %d timestamps", opt.Name, opt.Timestamps)
	}
	if opt.Timestamps > 0 && d.phys.timestamps == 0 {
		return nil, fmt.Errorf("vulkan: commands %q: %s has no timestamps on its compute queue", opt.Name, d.phys.info.Name)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.live(); err != nil {
		return nil, err
	}
	c := &Commands{dev: d, name: opt.Name, maxQueries: uint32(opt.Timestamps), stamps: make([]uint64, opt.Timestamps)}
	if err := c.create(); err != nil {
		c.destroy()
		return nil, err
	}
	d.commands[c] = struct{}{}
	return c, nil
}

func (c *Commands) create() error {
	d := c.dev
	var err error
	if c.pool, c.cb, err = d.newCommandBuffer(c.name); err != nil {
		return err
	}
	if c.fence, err = d.newFence(); err != nil {
		return err
	}
	info := &vk.SubmitInfo{SType: vk.StructureTypeSubmitInfo, CommandBufferCount: 1, PCommandBuffers: &c.cb}
	c.resetCall = d.cmds.PrepareResetFences(d.handle, 1, &c.fence)
	c.submitCall = d.cmds.PrepareQueueSubmit(d.queue, 1, info, c.fence)
	c.waitCall = d.cmds.PrepareWaitForFences(d.handle, 1, &c.fence, vk.True, uint64(d.timeout.Nanoseconds()))
	if c.maxQueries > 0 {
		qinfo := &vk.QueryPoolCreateInfo{SType: vk.StructureTypeQueryPoolCreateInfo, QueryType: vk.QueryTypeTimestamp, QueryCount: c.maxQueries}
		if r := d.cmds.CreateQueryPool(d.handle, qinfo, nil, &c.queries); r != vk.Success {
			return fmt.Errorf("vulkan: vkCreateQueryPool: %w", r)
		}
	}
	return nil
}

// errNotRecording is kept by recording calls made outside Begin…End.
var errNotRecording = errors.New("vulkan: command recorded outside Begin and End")

// Begin starts a new recording, discarding the previous one. The previous submission must have been waited for.
func (c *Commands) Begin() error {
	if c.closed {
		return ErrClosedDevice
	}
	if c.pending {
		return fmt.Errorf("vulkan: commands %q: Begin while a submission is running (Wait first)", c.name)
	}
	d := c.dev
	for _, p := range c.descPools {
		if r := d.cmds.ResetDescriptorPool(d.handle, p, 0); r != vk.Success {
			return fmt.Errorf("vulkan: vkResetDescriptorPool: %w", r)
		}
	}
	c.poolIdx, c.setsLeft, c.descLeft = -1, 0, 0
	c.err, c.recorded, c.nQueries = nil, false, 0
	if r := d.cmds.BeginCommandBuffer(c.cb, &vk.CommandBufferBeginInfo{SType: vk.StructureTypeCommandBufferBeginInfo}); r != vk.Success {
		return fmt.Errorf("vulkan: vkBeginCommandBuffer: %w", r)
	}
	c.recording = true
	if c.maxQueries > 0 {
		d.cmds.CmdResetQueryPool(c.cb, c.queries, 0, c.maxQueries)
	}
	return nil
}

func (c *Commands) fail(err error) {
	if c.err == nil {
		c.err = fmt.Errorf("commands %q: %w", c.name, err)
	}
}

// ok reports whether recording may go on.
func (c *Commands) ok() bool {
	if c.closed {
		c.fail(ErrClosedDevice)
		return false
	}
	if !c.recording {
		c.fail(errNotRecording)
		return false
	}
	return c.err == nil
}

// BufferRange is a byte range of a buffer bound to a shader.
type BufferRange struct {
	Buffer       *Buffer
	Offset, Size int64 // Size 0: to the end of the buffer
}

// All is the whole buffer.
func (b *Buffer) All() BufferRange { return BufferRange{Buffer: b} }

// Range is size bytes of the buffer from off.
func (b *Buffer) Range(off, size int64) BufferRange {
	return BufferRange{Buffer: b, Offset: off, Size: size}
}

// Dispatch records a dispatch of p over groups workgroups, binding bufs to bindings 0… and setting the push
// constants to push (len(push) must be the pipeline's PushSize).
func (c *Commands) Dispatch(p *Pipeline, groups [3]uint32, push []byte, bufs ...BufferRange) {
	if !c.ok() {
		return
	}
	d := c.dev
	info := d.phys.info
	if len(bufs) != p.buffers || len(push) != p.pushSize {
		c.fail(fmt.Errorf("%s: %d buffers and %d push bytes, the pipeline takes %d and %d", p.name, len(bufs), len(push), p.buffers, p.pushSize))
		return
	}
	for i, g := range groups {
		if g == 0 || g > info.MaxWorkgroupCount[i] {
			c.fail(fmt.Errorf("%s: workgroup count %v (device limit %v)", p.name, groups, info.MaxWorkgroupCount))
			return
		}
	}
	infos := make([]vk.DescriptorBufferInfo, len(bufs))
	for i, r := range bufs {
		if err := c.checkRange(r); err != nil {
			c.fail(fmt.Errorf("%s binding %d: %w", p.name, i, err))
			return
		}
		size := r.Size
		if size == 0 {
			size = r.Buffer.size - r.Offset
		}
		infos[i] = vk.DescriptorBufferInfo{Buffer: r.Buffer.handle, Offset: vk.DeviceSize(r.Offset), Range: vk.DeviceSize(size)}
	}
	set, err := c.allocSet(p.setLayout, len(bufs))
	if err != nil {
		c.fail(err)
		return
	}
	if len(bufs) > 0 {
		writes := make([]vk.WriteDescriptorSet, len(bufs))
		for i := range writes {
			writes[i] = vk.WriteDescriptorSet{SType: vk.StructureTypeWriteDescriptorSet, DstSet: set, DstBinding: uint32(i),
				DescriptorCount: 1, DescriptorType: vk.DescriptorTypeStorageBuffer, PBufferInfo: &infos[i]}
		}
		d.cmds.UpdateDescriptorSets(d.handle, uint32(len(writes)), &writes[0], 0, nil)
	}
	d.cmds.CmdBindPipeline(c.cb, vk.PipelineBindPointCompute, p.handle)
	d.cmds.CmdBindDescriptorSets(c.cb, vk.PipelineBindPointCompute, p.layout, 0, 1, &set, 0, nil)
	if len(push) > 0 {
		d.cmds.CmdPushConstants(c.cb, p.layout, vk.ShaderStageComputeBit, 0, uint32(len(push)), unsafe.Pointer(&push[0]))
	}
	d.cmds.CmdDispatch(c.cb, groups[0], groups[1], groups[2])
}

func (c *Commands) checkRange(r BufferRange) error {
	b := r.Buffer
	if b == nil || b.closed {
		return errors.New("nil or closed buffer")
	}
	size := r.Size
	if size == 0 {
		size = b.size - r.Offset
	}
	if err := b.check(r.Offset, size); err != nil {
		return err
	}
	limits := c.dev.phys.props.Limits
	if size <= 0 || uint64(size) > uint64(limits.MaxStorageBufferRange) {
		return fmt.Errorf("buffer %q: binding %d bytes (device limit %d)", b.name, size, limits.MaxStorageBufferRange)
	}
	if a := int64(limits.MinStorageBufferOffsetAlignment); a > 0 && r.Offset%a != 0 {
		return fmt.Errorf("buffer %q: offset %d is not a multiple of %d", b.name, r.Offset, a)
	}
	return nil
}

// allocSet takes a descriptor set for n storage buffers from the recording's pools, adding a pool when full.
func (c *Commands) allocSet(layout vk.DescriptorSetLayout, n int) (vk.DescriptorSet, error) {
	d := c.dev
	if c.setsLeft == 0 || c.descLeft < n {
		c.poolIdx++
		if c.poolIdx == len(c.descPools) {
			size := &vk.DescriptorPoolSize{Type: vk.DescriptorTypeStorageBuffer, DescriptorCount: uint32(max(setsPerPool*descPerSet, n))}
			info := &vk.DescriptorPoolCreateInfo{SType: vk.StructureTypeDescriptorPoolCreateInfo, MaxSets: setsPerPool,
				PoolSizeCount: 1, PPoolSizes: size}
			var pool vk.DescriptorPool
			if r := d.cmds.CreateDescriptorPool(d.handle, info, nil, &pool); r != vk.Success {
				return 0, fmt.Errorf("vkCreateDescriptorPool: %w", r)
			}
			c.descPools = append(c.descPools, pool)
		}
		c.setsLeft, c.descLeft = setsPerPool, max(setsPerPool*descPerSet, n)
	}
	var set vk.DescriptorSet
	info := &vk.DescriptorSetAllocateInfo{SType: vk.StructureTypeDescriptorSetAllocateInfo,
		DescriptorPool: c.descPools[c.poolIdx], DescriptorSetCount: 1, PSetLayouts: &layout}
	if r := d.cmds.AllocateDescriptorSets(d.handle, info, &set); r != vk.Success {
		return 0, fmt.Errorf("vkAllocateDescriptorSets: %w", r)
	}
	c.setsLeft--
	c.descLeft -= n
	return set, nil
}

// Barrier makes the writes of earlier commands (dispatches, copies, fills) visible to later ones. With buffers
// it is limited to those buffers; without, it covers all memory.
func (c *Commands) Barrier(bufs ...*Buffer) {
	if !c.ok() {
		return
	}
	d := c.dev
	if len(bufs) == 0 {
		memoryBarrier(d.cmds, c.cb, stagesAll, accessWrites, stagesAll, accessAll)
		return
	}
	bars := make([]vk.BufferMemoryBarrier, len(bufs))
	for i, b := range bufs {
		if b == nil || b.closed {
			c.fail(errors.New("barrier on a nil or closed buffer"))
			return
		}
		bars[i] = vk.BufferMemoryBarrier{SType: vk.StructureTypeBufferMemoryBarrier, SrcAccessMask: accessWrites, DstAccessMask: accessAll,
			SrcQueueFamilyIndex: vk.QueueFamilyIgnored, DstQueueFamilyIndex: vk.QueueFamilyIgnored,
			Buffer: b.handle, Size: vk.WholeSize}
	}
	d.cmds.CmdPipelineBarrier(c.cb, stagesAll, stagesAll, 0, 0, nil, uint32(len(bars)), &bars[0], 0, nil)
}

// Copy records a copy of size bytes from src at srcOff to dst at dstOff.
func (c *Commands) Copy(dst *Buffer, dstOff int64, src *Buffer, srcOff, size int64) {
	if !c.ok() {
		return
	}
	if err := errors.Join(dst.check(dstOff, size), src.check(srcOff, size)); err != nil || size == 0 {
		c.fail(fmt.Errorf("copy of %d bytes: %v", size, err))
		return
	}
	region := &vk.BufferCopy{SrcOffset: vk.DeviceSize(srcOff), DstOffset: vk.DeviceSize(dstOff), Size: vk.DeviceSize(size)}
	c.dev.cmds.CmdCopyBuffer(c.cb, src.handle, dst.handle, 1, region)
}

// Fill records filling size bytes of dst from off with the 32-bit value v; off and size are multiples of 4.
func (c *Commands) Fill(dst *Buffer, off, size int64, v uint32) {
	if !c.ok() {
		return
	}
	if err := dst.check(off, size); err != nil || off%4 != 0 || size%4 != 0 || size == 0 {
		c.fail(fmt.Errorf("fill of %d bytes at %d (multiples of 4 in bounds): %v", size, off, err))
		return
	}
	c.dev.cmds.CmdFillBuffer(c.cb, dst.handle, vk.DeviceSize(off), vk.DeviceSize(size), v)
}

// Timestamp records a timestamp taken when all earlier commands have finished; Timings reads them after Wait.
func (c *Commands) Timestamp() {
	if !c.ok() {
		return
	}
	if c.nQueries == c.maxQueries {
		c.fail(fmt.Errorf("more than the %d timestamps of CommandsOptions.Timestamps", c.maxQueries))
		return
	}
	c.dev.cmds.CmdWriteTimestamp(c.cb, vk.PipelineStageBottomOfPipeBit, c.queries, c.nQueries)
	c.nQueries++
}

// End finishes the recording and returns the first error of any recording call since Begin.
func (c *Commands) End() error {
	if !c.recording {
		return fmt.Errorf("vulkan: commands %q: %w", c.name, errNotRecording)
	}
	c.recording = false
	d := c.dev
	// Make every write visible to the host and to later submissions.
	memoryBarrier(d.cmds, c.cb, stagesAll, accessWrites, stagesAll|vk.PipelineStageHostBit, accessAll|vk.AccessHostReadBit)
	if r := d.cmds.EndCommandBuffer(c.cb); r != vk.Success && c.err == nil {
		c.err = fmt.Errorf("vulkan: vkEndCommandBuffer: %w", r)
	}
	if c.err != nil {
		return fmt.Errorf("vulkan: %w", c.err)
	}
	c.recorded = true
	return nil
}

// Submit starts the recorded commands on the device's queue. Wait before submitting again, re-recording, or
// reading results.
func (c *Commands) Submit() error {
	switch {
	case c.closed:
		return ErrClosedDevice
	case !c.recorded:
		return fmt.Errorf("vulkan: commands %q: Submit without a successful End", c.name)
	case c.pending:
		return fmt.Errorf("vulkan: commands %q: Submit while the previous submission is running", c.name)
	}
	if r := c.resetCall.Call(); r != vk.Success {
		return fmt.Errorf("vulkan: vkResetFences: %w", r)
	}
	d := c.dev
	d.queueMu.Lock()
	r := c.submitCall.Call()
	d.queueMu.Unlock()
	if r != vk.Success {
		return fmt.Errorf("vulkan: vkQueueSubmit: %w", r)
	}
	c.pending = true
	return nil
}

// Wait waits for the last submission to finish (at once when none is running).
func (c *Commands) Wait() error {
	if !c.pending || c.closed {
		return nil
	}
	if err := c.dev.fenceResult(c.waitCall.Call()); err != nil {
		return err
	}
	c.pending = false
	return nil
}

// Run submits the commands and waits for them.
func (c *Commands) Run() error {
	if err := c.Submit(); err != nil {
		return err
	}
	return c.Wait()
}

// Timings returns, for each timestamp of the finished submission, the time since the first one.
func (c *Commands) Timings() ([]time.Duration, error) {
	if c.pending || !c.recorded {
		return nil, fmt.Errorf("vulkan: commands %q: Timings needs a finished submission", c.name)
	}
	n := c.nQueries
	if n == 0 {
		return nil, nil
	}
	d := c.dev
	r := d.cmds.GetQueryPoolResults(d.handle, c.queries, 0, n, uintptr(8*n), unsafe.Pointer(&c.stamps[0]), 8,
		vk.QueryResult64Bit|vk.QueryResultWaitBit)
	if r != vk.Success {
		return nil, fmt.Errorf("vulkan: vkGetQueryPoolResults: %w", r)
	}
	mask := uint64(1)<<d.phys.timestamps - 1 // all ones for 64 valid bits
	out := make([]time.Duration, n)
	for i := range out {
		ticks := (c.stamps[i] - c.stamps[0]) & mask
		out[i] = time.Duration(float64(ticks) * float64(d.phys.props.Limits.TimestampPeriod))
	}
	return out, nil
}

// Close waits for a running submission and frees the command buffer, its descriptor sets and queries.
func (c *Commands) Close() error {
	d := c.dev
	d.mu.Lock()
	gone := c.closed || d.closed
	d.mu.Unlock()
	if gone {
		return nil
	}
	err := c.Wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	if c.closed || d.closed {
		return err
	}
	delete(d.commands, c)
	c.destroy()
	return err
}

func (c *Commands) destroy() {
	d := c.dev
	c.closed = true
	for _, p := range c.descPools {
		d.cmds.DestroyDescriptorPool(d.handle, p, nil)
	}
	c.descPools = nil
	if c.queries != 0 {
		d.cmds.DestroyQueryPool(d.handle, c.queries, nil)
	}
	if c.fence != 0 {
		d.cmds.DestroyFence(d.handle, c.fence, nil)
	}
	if c.pool != 0 {
		d.cmds.DestroyCommandPool(d.handle, c.pool, nil)
	}
}

// PushUint32 packs 32-bit push constants in order.
func PushUint32(vals ...uint32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}
