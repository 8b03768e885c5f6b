package vk

import (
	"errors"
	"testing"
	"unsafe"
)

// newInstance creates a bare Vulkan 1.1 instance or skips the test when there is no loader.
func newInstance(t *testing.T) (*Library, Instance, *InstanceCommands) {
	t.Helper()
	lib, err := Load()
	if errors.Is(err, ErrNoLoader) {
		t.Skipf("no Vulkan: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	app := &ApplicationInfo{SType: StructureTypeApplicationInfo, PApplicationName: CString("vk test"), ApiVersion: APIVersion1_1}
	info := &InstanceCreateInfo{SType: StructureTypeInstanceCreateInfo, PApplicationInfo: app}
	var inst Instance
	if r := lib.CreateInstance(info, nil, &inst); r != Success {
		t.Skipf("vkCreateInstance: %v (no usable Vulkan driver)", r)
	}
	ic := lib.LoadInstance(inst)
	t.Cleanup(func() { ic.DestroyInstance(inst, nil) })
	return lib, inst, ic
}

func TestInstanceAndDevices(t *testing.T) {
	_, inst, ic := newInstance(t)
	if m := ic.Missing(); len(m) > 0 {
		t.Logf("instance commands not provided: %v", m)
	}
	var n uint32
	if r := ic.EnumeratePhysicalDevices(inst, &n, nil); r != Success {
		t.Fatalf("vkEnumeratePhysicalDevices: %v", r)
	}
	if n == 0 {
		t.Skip("no Vulkan physical device")
	}
	devs := make([]PhysicalDevice, n)
	if r := ic.EnumeratePhysicalDevices(inst, &n, &devs[0]); r.Err() != nil {
		t.Fatalf("vkEnumeratePhysicalDevices: %v", r)
	}
	for _, pd := range devs[:n] {
		sub := &PhysicalDeviceSubgroupProperties{SType: StructureTypePhysicalDeviceSubgroupProperties}
		p2 := &PhysicalDeviceProperties2{SType: StructureTypePhysicalDeviceProperties2, PNext: unsafe.Pointer(sub)}
		ic.GetPhysicalDeviceProperties2(pd, p2)
		name := GoString(p2.Properties.DeviceName[:])
		if name == "" || p2.Properties.ApiVersion < APIVersion1_1 {
			t.Errorf("device %q reports API %#x", name, p2.Properties.ApiVersion)
		}
		if sub.SubgroupSize == 0 || sub.SubgroupSize&(sub.SubgroupSize-1) != 0 {
			t.Errorf("%s: subgroup size %d is not a power of two", name, sub.SubgroupSize)
		}
		t.Logf("%s (%v), Vulkan %d.%d, subgroup %d", name, p2.Properties.DeviceType,
			APIVersionMajor(p2.Properties.ApiVersion), APIVersionMinor(p2.Properties.ApiVersion), sub.SubgroupSize)
	}
}

func TestResultError(t *testing.T) {
	if Success.Err() != nil || Incomplete.Err() != nil {
		t.Error("success codes must not be errors")
	}
	err := ErrorOutOfDeviceMemory.Err()
	if !errors.Is(err, ErrorOutOfDeviceMemory) || err.Error() != "VK_ERROR_OUT_OF_DEVICE_MEMORY" {
		t.Errorf("got %v", err)
	}
	if got := Result(-12345).String(); got != "VkResult(-12345)" {
		t.Errorf("unknown result prints %q", got)
	}
}
