package vulkan

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/forma-llm/forma/accel/vulkan/vk"
)

// DeviceEnv names the environment variable that selects a device: an index from Devices or a case-insensitive
// substring of its name.
const DeviceEnv = "FORMA_VULKAN_DEVICE"

// Options configure Open.
type Options struct {
	// Validation enables VK_LAYER_KHRONOS_validation with synchronization validation, and records its warnings
	// and errors (see Device.Messages). Open fails with ErrNoValidationLayer when the layer is not installed.
	Validation bool
	// Device selects the device like FORMA_VULKAN_DEVICE, which it overrides. Empty: the variable, or else the
	// best usable device (discrete GPU, integrated GPU, virtual GPU, CPU).
	Device string
	// OnMessage, if set, also receives every recorded message, from any thread; it must not call Vulkan.
	OnMessage func(Message)
	// WaitTimeout bounds every wait for the device; 0 means one minute.
	WaitTimeout time.Duration
}

// Severity is the severity of a debug message.
type Severity int

// Message severities.
const (
	SeverityInfo Severity = iota
	SeverityWarning
	SeverityError
)

func (s Severity) String() string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return "info"
}

func severityOf(s vk.DebugUtilsMessageSeverityFlagBitsEXT) Severity {
	switch {
	case s&vk.DebugUtilsMessageSeverityErrorBitEXT != 0:
		return SeverityError
	case s&vk.DebugUtilsMessageSeverityWarningBitEXT != 0:
		return SeverityWarning
	}
	return SeverityInfo
}

// Message is a warning or error from the validation layer, the loader or the driver.
type Message struct {
	Severity Severity
	ID       string // the validation rule, e.g. "VUID-vkCmdDispatch-None-02699"
	Text     string
}

func (m Message) String() string { return fmt.Sprintf("%s: %s: %s", m.Severity, m.ID, m.Text) }

// Device is an opened Vulkan device with one compute queue. Its methods are safe for concurrent use, except
// that each Commands is used by one goroutine at a time.
type Device struct {
	inst    *instance
	phys    *physical
	handle  vk.Device
	cmds    *vk.DeviceCommands
	queue   vk.Queue
	queueMu sync.Mutex // vkQueueSubmit needs external synchronisation
	log     *messageLog
	timeout time.Duration
	unified int  // memory type for unified buffers; -1 when staging is needed
	canName bool // vkSetDebugUtilsObjectNameEXT is available
	// Test hooks: noMap keeps device-local buffers unmapped so transfers use staging; stagingSize overrides
	// the staging buffer size.
	noMap       bool
	stagingSize int64

	xferMu sync.Mutex // serialises staging transfers; guards xfer
	xfer   *transfer

	mu       sync.Mutex // guards everything below
	closed   bool
	buffers  map[*Buffer]struct{}
	commands map[*Commands]struct{}
	pipes    *pipelineCache
}

// Open opens a Vulkan device. It fails with an error wrapping ErrNoLoader or ErrNoDevice when Vulkan is not
// available, so callers can fall back to the CPU and print why.
func Open(opt Options) (*Device, error) {
	log := &messageLog{also: opt.OnMessage}
	iopt := instanceOptions{validation: opt.Validation}
	if opt.Validation || opt.OnMessage != nil {
		iopt.onMessage = log.handle
	}
	in, err := newInstance(iopt)
	if err != nil {
		return nil, err
	}
	d := &Device{inst: in, log: log, timeout: cmp.Or(opt.WaitTimeout, time.Minute),
		buffers: map[*Buffer]struct{}{}, commands: map[*Commands]struct{}{}}
	if err := d.open(cmp.Or(opt.Device, os.Getenv(DeviceEnv))); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func (d *Device) open(selector string) error {
	pds, err := d.inst.query()
	if err != nil {
		return err
	}
	p, err := selectDevice(pds, selector)
	if err != nil {
		return err
	}
	d.phys = p
	d.unified = unifiedMemoryType(p)
	if err := d.createDevice(); err != nil {
		return err
	}
	d.cmds = d.inst.lib.LoadDevice(d.inst.cmds, d.inst.handle, d.handle)
	if m := d.cmds.Missing(); len(m) > 0 && (len(m) > 1 || m[0] != "vkSetDebugUtilsObjectNameEXT") {
		return fmt.Errorf("vulkan: %s lacks %v", p.info.Name, m)
	}
	d.canName = d.inst.debug && len(d.cmds.Missing()) == 0
	d.cmds.GetDeviceQueue(d.handle, p.queueFamily, 0, &d.queue)
	if d.pipes, err = newPipelineCache(d); err != nil {
		return err
	}
	return nil
}

// selectDevice picks the device a selector names, or the best usable one.
func selectDevice(pds []*physical, selector string) (*physical, error) {
	if len(pds) == 0 {
		return nil, ErrNoDevice
	}
	if selector != "" {
		var match []*physical
		if i, err := strconv.Atoi(selector); err == nil {
			if i < 0 || i >= len(pds) {
				return nil, fmt.Errorf("vulkan: %s=%d: there are %d devices", DeviceEnv, i, len(pds))
			}
			match = pds[i : i+1]
		} else {
			for _, p := range pds {
				if strings.Contains(strings.ToLower(p.info.Name), strings.ToLower(selector)) {
					match = append(match, p)
				}
			}
		}
		if len(match) == 0 {
			return nil, fmt.Errorf("vulkan: no device name contains %q", selector)
		}
		if !match[0].info.Usable {
			return nil, fmt.Errorf("%w: %s %s", ErrNoDevice, match[0].info.Name, match[0].info.Unusable)
		}
		return match[0], nil
	}
	var best *physical
	var why []string
	for _, p := range pds {
		if !p.info.Usable {
			why = append(why, p.info.Name+" "+p.info.Unusable)
			continue
		}
		if best == nil || p.info.Type > best.info.Type {
			best = p
		}
	}
	if best == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoDevice, strings.Join(why, "; "))
	}
	return best, nil
}

// createDevice creates the VkDevice with one compute queue and the optional features forma's shaders use.
func (d *Device) createDevice() error {
	p := d.phys
	f13 := &vk.PhysicalDeviceVulkan13Features{SType: vk.StructureTypePhysicalDeviceVulkan13Features,
		SubgroupSizeControl: p.f13.SubgroupSizeControl, ComputeFullSubgroups: p.f13.ComputeFullSubgroups,
		Maintenance4: p.f13.Maintenance4}
	f12 := &vk.PhysicalDeviceVulkan12Features{SType: vk.StructureTypePhysicalDeviceVulkan12Features,
		ShaderFloat16: p.f12.ShaderFloat16, ShaderInt8: p.f12.ShaderInt8,
		StorageBuffer8BitAccess: p.f12.StorageBuffer8BitAccess, UniformAndStorageBuffer8BitAccess: p.f12.UniformAndStorageBuffer8BitAccess,
		StoragePushConstant8: p.f12.StoragePushConstant8, ShaderSubgroupExtendedTypes: p.f12.ShaderSubgroupExtendedTypes,
		HostQueryReset: p.f12.HostQueryReset, VulkanMemoryModel: p.f12.VulkanMemoryModel,
		// With the memory model on, atomics at device scope (kv_store.comp's) need this too.
		VulkanMemoryModelDeviceScope: p.f12.VulkanMemoryModelDeviceScope}
	if p.props.ApiVersion >= vk.APIVersion1_3 {
		f12.PNext = unsafe.Pointer(f13)
	}
	f11 := &vk.PhysicalDeviceVulkan11Features{SType: vk.StructureTypePhysicalDeviceVulkan11Features, PNext: unsafe.Pointer(f12),
		StorageBuffer16BitAccess: p.f11.StorageBuffer16BitAccess, UniformAndStorageBuffer16BitAccess: p.f11.UniformAndStorageBuffer16BitAccess,
		StoragePushConstant16: p.f11.StoragePushConstant16}
	f2 := &vk.PhysicalDeviceFeatures2{SType: vk.StructureTypePhysicalDeviceFeatures2, PNext: unsafe.Pointer(f11)}
	f2.Features.ShaderInt16 = p.features.ShaderInt16
	f2.Features.ShaderInt64 = p.features.ShaderInt64
	var exts []string
	if p.hasExtension(extPortabilitySubset) { // required when present (MoltenVK)
		exts = append(exts, extPortabilitySubset)
	}
	priority := float32(1)
	info := &vk.DeviceCreateInfo{
		SType: vk.StructureTypeDeviceCreateInfo, PNext: unsafe.Pointer(f2),
		QueueCreateInfoCount: 1,
		PQueueCreateInfos: &vk.DeviceQueueCreateInfo{SType: vk.StructureTypeDeviceQueueCreateInfo,
			QueueFamilyIndex: p.queueFamily, QueueCount: 1, PQueuePriorities: &priority},
		EnabledExtensionCount: uint32(len(exts)), PpEnabledExtensionNames: vk.CStrings(exts),
	}
	if r := d.inst.cmds.CreateDevice(p.handle, info, nil, &d.handle); r != vk.Success {
		return fmt.Errorf("vulkan: vkCreateDevice on %s: %w", p.info.Name, r)
	}
	return nil
}

// Info describes the opened device.
func (d *Device) Info() DeviceInfo { return d.phys.info }

// Messages returns the warnings and errors recorded so far (with Options.Validation or OnMessage), including
// those raised while closing.
func (d *Device) Messages() []Message { return d.log.all() }

// ErrClosedDevice is returned by operations on a closed device or on objects of one.
var ErrClosedDevice = errors.New("vulkan: device closed")

// Close waits for the device to finish, then destroys every object it created, in dependency order: command
// buffers, buffers and their memory, pipelines, the device, the debug messenger and the instance. It is safe to
// call twice.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	cmds := slices.Collect(maps.Keys(d.commands))
	bufs := slices.Collect(maps.Keys(d.buffers))
	d.mu.Unlock()
	var err error
	if d.handle != 0 {
		if r := d.cmds.DeviceWaitIdle(d.handle); r != vk.Success {
			err = fmt.Errorf("vulkan: vkDeviceWaitIdle: %w", r)
		}
		if d.xfer != nil {
			d.xfer.destroy()
		}
		for _, c := range cmds {
			c.destroy()
		}
		for _, b := range bufs {
			b.destroy()
		}
		d.pipes.destroy()
		d.cmds.DestroyDevice(d.handle, nil)
		d.handle = 0
	}
	d.inst.close()
	return err
}

// live reports an error when the device is closed; call with d.mu held.
func (d *Device) live() error {
	if d.closed {
		return ErrClosedDevice
	}
	return nil
}

// setName names a Vulkan object for validation messages and debuggers (when debug utils is on).
func (d *Device) setName(t vk.ObjectType, handle uint64, name string) {
	if !d.canName || name == "" {
		return
	}
	d.cmds.SetDebugUtilsObjectNameEXT(d.handle, &vk.DebugUtilsObjectNameInfoEXT{
		SType: vk.StructureTypeDebugUtilsObjectNameInfoEXT, ObjectType: t, ObjectHandle: handle, PObjectName: vk.CString(name)})
}

// waitFence waits for a fence within the device's timeout.
func (d *Device) waitFence(f vk.Fence) error {
	return d.fenceResult(d.cmds.WaitForFences(d.handle, 1, &f, vk.True, uint64(d.timeout.Nanoseconds())))
}

// fenceResult turns the result of vkWaitForFences into an error.
func (d *Device) fenceResult(r vk.Result) error {
	switch r {
	case vk.Success:
		return nil
	case vk.Timeout:
		return fmt.Errorf("vulkan: %s did not finish within %v", d.phys.info.Name, d.timeout)
	}
	return fmt.Errorf("vulkan: vkWaitForFences: %w", r)
}

func (d *Device) submit(fence vk.Fence, info *vk.SubmitInfo) error {
	d.queueMu.Lock()
	r := d.cmds.QueueSubmit(d.queue, 1, info, fence)
	d.queueMu.Unlock()
	if r != vk.Success {
		return fmt.Errorf("vulkan: vkQueueSubmit: %w", r)
	}
	return nil
}
