package vulkan

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/forma-llm/forma/accel/vulkan/vk"
)

// DeviceType is the kind of a Vulkan physical device.
type DeviceType int

// Device types, in the order Open prefers them (best last).
const (
	TypeOther DeviceType = iota
	TypeCPU
	TypeVirtualGPU
	TypeIntegratedGPU
	TypeDiscreteGPU
)

func (t DeviceType) String() string {
	switch t {
	case TypeCPU:
		return "CPU"
	case TypeVirtualGPU:
		return "virtual GPU"
	case TypeIntegratedGPU:
		return "integrated GPU"
	case TypeDiscreteGPU:
		return "discrete GPU"
	}
	return "other"
}

func deviceType(t vk.PhysicalDeviceType) DeviceType {
	switch t {
	case vk.PhysicalDeviceTypeCpu:
		return TypeCPU
	case vk.PhysicalDeviceTypeVirtualGpu:
		return TypeVirtualGPU
	case vk.PhysicalDeviceTypeIntegratedGpu:
		return TypeIntegratedGPU
	case vk.PhysicalDeviceTypeDiscreteGpu:
		return TypeDiscreteGPU
	}
	return TypeOther
}

// MemoryHeap is one memory heap of a device.
type MemoryHeap struct {
	Size        uint64
	DeviceLocal bool
}

// DeviceInfo describes a physical device (see Devices).
type DeviceInfo struct {
	Index      int // position in Devices and for FORMA_VULKAN_DEVICE
	Name       string
	Type       DeviceType
	APIVersion string // e.g. "1.3.230"
	Driver     string // driver name and version info
	VendorID   uint32
	DeviceID   uint32
	Heaps      []MemoryHeap
	// UnifiedMemory: device-local memory on the main heap is also host-visible, so buffers are mapped directly
	// and uploads need no staging copy (integrated GPUs, Apple silicon, CPU devices).
	UnifiedMemory bool

	SubgroupSize            uint32
	SubgroupArithmetic      bool // subgroupAdd and friends in compute shaders
	MaxStorageBufferRange   uint32
	MaxPushConstantsSize    uint32
	MaxWorkgroupInvocations uint32
	MaxWorkgroupCount       [3]uint32
	MaxMemoryAllocationSize uint64  // 0 when unknown (Vulkan 1.1 devices)
	TimestampPeriod         float32 // nanoseconds per timestamp tick; 0 when compute queues have no timestamps

	ShaderFloat16      bool
	ShaderInt8         bool
	ShaderInt16        bool
	StorageBuffer16Bit bool
	StorageBuffer8Bit  bool

	// Usable reports whether Open can use the device (Vulkan 1.2 and a compute queue); Unusable says why not.
	Usable   bool
	Unusable string
}

// minDeviceAPI is the Vulkan version Open needs from a device (Vulkan 1.1/1.2 feature and property structs).
var minDeviceAPI = vk.APIVersion1_2

// physical is everything Open needs to know about a physical device.
type physical struct {
	handle      vk.PhysicalDevice
	info        DeviceInfo
	props       vk.PhysicalDeviceProperties
	mem         vk.PhysicalDeviceMemoryProperties
	queueFamily uint32
	timestamps  uint32 // timestamp valid bits of the queue family
	features    vk.PhysicalDeviceFeatures
	f11         vk.PhysicalDeviceVulkan11Features
	f12         vk.PhysicalDeviceVulkan12Features
	f13         vk.PhysicalDeviceVulkan13Features
	extensions  []string
}

// Devices lists the Vulkan devices in the loader's order. It returns an error wrapping ErrNoLoader when Vulkan
// is not installed.
func Devices() ([]DeviceInfo, error) {
	in, err := newInstance(instanceOptions{})
	if err != nil {
		return nil, err
	}
	defer in.close()
	pds, err := in.query()
	if err != nil {
		return nil, err
	}
	infos := make([]DeviceInfo, len(pds))
	for i := range pds {
		infos[i] = pds[i].info
	}
	return infos, nil
}

func (in *instance) query() ([]*physical, error) {
	handles, err := in.physicalDevices()
	if err != nil {
		return nil, err
	}
	out := make([]*physical, len(handles))
	for i, h := range handles {
		if out[i], err = in.queryDevice(h, i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (in *instance) queryDevice(h vk.PhysicalDevice, index int) (*physical, error) {
	ic := in.cmds
	p := &physical{handle: h}
	ic.GetPhysicalDeviceProperties(h, &p.props)
	api := p.props.ApiVersion
	info := &p.info
	*info = DeviceInfo{
		Index: index, Name: vk.GoString(p.props.DeviceName[:]), Type: deviceType(p.props.DeviceType),
		APIVersion: versionString(api), VendorID: p.props.VendorID, DeviceID: p.props.DeviceID,
		MaxStorageBufferRange:   p.props.Limits.MaxStorageBufferRange,
		MaxPushConstantsSize:    p.props.Limits.MaxPushConstantsSize,
		MaxWorkgroupInvocations: p.props.Limits.MaxComputeWorkGroupInvocations,
		MaxWorkgroupCount:       p.props.Limits.MaxComputeWorkGroupCount,
	}

	// Properties through pNext: subgroups (1.1), driver and allocation limits (1.2).
	sub := &vk.PhysicalDeviceSubgroupProperties{SType: vk.StructureTypePhysicalDeviceSubgroupProperties}
	props2 := &vk.PhysicalDeviceProperties2{SType: vk.StructureTypePhysicalDeviceProperties2, PNext: unsafe.Pointer(sub)}
	var p11 *vk.PhysicalDeviceVulkan11Properties
	var p12 *vk.PhysicalDeviceVulkan12Properties
	if api >= vk.APIVersion1_2 {
		p12 = &vk.PhysicalDeviceVulkan12Properties{SType: vk.StructureTypePhysicalDeviceVulkan12Properties}
		p11 = &vk.PhysicalDeviceVulkan11Properties{SType: vk.StructureTypePhysicalDeviceVulkan11Properties, PNext: unsafe.Pointer(p12)}
		sub.PNext = unsafe.Pointer(p11)
	}
	ic.GetPhysicalDeviceProperties2(h, props2)
	info.SubgroupSize = sub.SubgroupSize
	info.SubgroupArithmetic = sub.SupportedStages&vk.ShaderStageComputeBit != 0 &&
		sub.SupportedOperations&vk.SubgroupFeatureArithmeticBit != 0
	if p12 != nil {
		info.Driver = vk.GoString(p12.DriverName[:])
		if di := vk.GoString(p12.DriverInfo[:]); di != "" {
			info.Driver += " " + di
		}
		info.MaxMemoryAllocationSize = uint64(p11.MaxMemoryAllocationSize)
	}

	// Features through pNext.
	f2 := &vk.PhysicalDeviceFeatures2{SType: vk.StructureTypePhysicalDeviceFeatures2}
	s16 := &vk.PhysicalDevice16BitStorageFeatures{SType: vk.StructureTypePhysicalDevice16BitStorageFeatures}
	p.f11.SType = vk.StructureTypePhysicalDeviceVulkan11Features
	p.f12.SType = vk.StructureTypePhysicalDeviceVulkan12Features
	p.f13.SType = vk.StructureTypePhysicalDeviceVulkan13Features
	switch {
	case api >= vk.APIVersion1_3:
		p.f11.PNext, p.f12.PNext = unsafe.Pointer(&p.f12), unsafe.Pointer(&p.f13)
		f2.PNext = unsafe.Pointer(&p.f11)
	case api >= vk.APIVersion1_2:
		p.f11.PNext = unsafe.Pointer(&p.f12)
		f2.PNext = unsafe.Pointer(&p.f11)
	default:
		f2.PNext = unsafe.Pointer(s16)
	}
	ic.GetPhysicalDeviceFeatures2(h, f2)
	p.f11.PNext, p.f12.PNext, p.f13.PNext = nil, nil, nil
	p.features = f2.Features
	info.ShaderInt16 = p.features.ShaderInt16 != 0
	info.StorageBuffer16Bit = p.f11.StorageBuffer16BitAccess != 0 || s16.StorageBuffer16BitAccess != 0
	info.ShaderFloat16 = p.f12.ShaderFloat16 != 0
	info.ShaderInt8 = p.f12.ShaderInt8 != 0
	info.StorageBuffer8Bit = p.f12.StorageBuffer8BitAccess != 0

	ic.GetPhysicalDeviceMemoryProperties(h, &p.mem)
	for i := uint32(0); i < p.mem.MemoryHeapCount; i++ {
		heap := p.mem.MemoryHeaps[i]
		info.Heaps = append(info.Heaps, MemoryHeap{Size: uint64(heap.Size), DeviceLocal: heap.Flags&vk.MemoryHeapDeviceLocalBit != 0})
	}
	info.UnifiedMemory = unifiedMemoryType(p) >= 0

	queues, err := enumerate(func(n *uint32, q *vk.QueueFamilyProperties) vk.Result {
		ic.GetPhysicalDeviceQueueFamilyProperties(h, n, q)
		return vk.Success
	}, "vkGetPhysicalDeviceQueueFamilyProperties")
	if err != nil {
		return nil, err
	}
	family := computeQueue(queues)
	if family >= 0 {
		p.queueFamily = uint32(family)
		p.timestamps = queues[family].TimestampValidBits
		if p.timestamps > 0 {
			info.TimestampPeriod = p.props.Limits.TimestampPeriod
		}
	}
	exts, err := enumerate(func(n *uint32, e *vk.ExtensionProperties) vk.Result {
		return ic.EnumerateDeviceExtensionProperties(h, nil, n, e)
	}, "vkEnumerateDeviceExtensionProperties")
	if err != nil {
		return nil, err
	}
	p.extensions = extensionNames(exts)

	switch {
	case api < minDeviceAPI:
		info.Unusable = fmt.Sprintf("supports Vulkan %s; forma needs %s", info.APIVersion, versionString(minDeviceAPI))
	case family < 0:
		info.Unusable = "has no compute queue"
	default:
		info.Usable = true
	}
	return p, nil
}

// computeQueue picks the queue family for compute: one that also does graphics (the main queue, with full
// timestamps and priority) if there is one, else any with compute. -1 when there is none.
func computeQueue(qs []vk.QueueFamilyProperties) int {
	best := -1
	for i, q := range qs {
		if q.QueueFlags&vk.QueueComputeBit == 0 || q.QueueCount == 0 {
			continue
		}
		if q.QueueFlags&vk.QueueGraphicsBit != 0 {
			return i
		}
		if best < 0 {
			best = i
		}
	}
	return best
}

// unifiedMemoryType returns a memory type that is device-local, host-visible and host-coherent on the device's
// largest device-local heap, on devices that share memory with the host (not the small BAR window of a
// discrete GPU); -1 when there is none.
func unifiedMemoryType(p *physical) int {
	t := p.info.Type
	if t != TypeIntegratedGPU && t != TypeCPU && t != TypeVirtualGPU {
		return -1
	}
	largest, size := -1, vk.DeviceSize(0)
	for i := uint32(0); i < p.mem.MemoryHeapCount; i++ {
		h := p.mem.MemoryHeaps[i]
		if h.Flags&vk.MemoryHeapDeviceLocalBit != 0 && h.Size > size {
			largest, size = int(i), h.Size
		}
	}
	want := vk.MemoryPropertyDeviceLocalBit | vk.MemoryPropertyHostVisibleBit | vk.MemoryPropertyHostCoherentBit
	for i := uint32(0); i < p.mem.MemoryTypeCount; i++ {
		mt := p.mem.MemoryTypes[i]
		if mt.PropertyFlags&want == want && int(mt.HeapIndex) == largest {
			return int(i)
		}
	}
	return -1
}

func (p *physical) hasExtension(name string) bool { return slices.Contains(p.extensions, name) }
