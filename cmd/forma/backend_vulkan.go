//go:build !novulkan

// The Vulkan backend is left out of builds tagged novulkan: purego, which loads the Vulkan library, makes the
// binary ask for the system's dynamic loader, and a static binary (the container image) must not.

package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/vulkan"
)

// The Vulkan backend: --backend vulkan opens the device FORMA_VULKAN_DEVICE names, or the best one (a discrete
// GPU first). --backend auto passes over a device that is itself the CPU (lavapipe, SwiftShader) unless
// FORMA_VULKAN_DEVICE asks for it: the CPU backend is faster there.
func init() {
	backendOpeners["vulkan"] = func(int) (accel.Backend, error) { return vulkan.NewBackend(vulkan.Options{}) }
	autoOpeners["vulkan"] = openVulkanAuto
	writeVulkanDevices = vulkanDevices
	selftestDevices["vulkan"] = func() (*selftestDevice, error) {
		d, err := vulkan.Open(vulkan.Options{})
		if err != nil {
			return nil, err
		}
		inf := d.Info()
		desc := fmt.Sprintf("%s (%s), Vulkan %s, %s, subgroup %d", inf.Name, inf.Type, inf.APIVersion, inf.Driver, inf.SubgroupSize)
		return &selftestDevice{desc: desc, close: d.Close,
			newBackend: func() (accel.Backend, error) { return vulkan.NewBackendOn(d) }}, nil
	}
}

func openVulkanAuto(int) (accel.Backend, error) {
	b, err := vulkan.NewBackend(vulkan.Options{})
	if err != nil {
		return nil, err
	}
	if info := b.Device().Info(); info.Type == vulkan.TypeCPU && os.Getenv(vulkan.DeviceEnv) == "" {
		b.Close()
		return nil, fmt.Errorf("its only device, %s, is a software renderer on the CPU", info.Name)
	}
	return b, nil
}

// vulkanDevices prints every Vulkan device, or why there are none (forma info --devices).
func vulkanDevices(w io.Writer) {
	devs, err := vulkan.Devices()
	if err != nil {
		fmt.Fprintf(w, "vulkan: unavailable: %v\n", err)
		return
	}
	if len(devs) == 0 {
		fmt.Fprintln(w, "vulkan: no devices")
	}
	for _, d := range devs {
		fmt.Fprintf(w, "vulkan %d: %s (%s), Vulkan %s, %s\n", d.Index, d.Name, d.Type, d.APIVersion, d.Driver)
		var heaps []string
		for _, h := range d.Heaps {
			kind := "host"
			if h.DeviceLocal {
				kind = "device-local"
			}
			heaps = append(heaps, fmt.Sprintf("%s %s", mib(h.Size), kind))
		}
		mem := strings.Join(heaps, ", ")
		if d.UnifiedMemory {
			mem += "; unified with the host"
		}
		fmt.Fprintf(w, "  memory: %s\n", mem)
		fmt.Fprintf(w, "  limits: binding %s, allocation %s, workgroup %d, push constants %d bytes\n",
			mib(uint64(d.MaxStorageBufferRange)), mib(d.MaxMemoryAllocationSize), d.MaxWorkgroupInvocations, d.MaxPushConstantsSize)
		fmt.Fprintf(w, "  features: subgroup %d (arithmetic %s), float16 %s, int8 %s, int16 %s, 16-bit storage %s, 8-bit storage %s\n",
			d.SubgroupSize, yes(d.SubgroupArithmetic), yes(d.ShaderFloat16), yes(d.ShaderInt8), yes(d.ShaderInt16),
			yes(d.StorageBuffer16Bit), yes(d.StorageBuffer8Bit))
		if !d.Usable {
			fmt.Fprintf(w, "  unusable: %s\n", d.Unusable)
		} else if !d.SubgroupArithmetic {
			fmt.Fprintln(w, "  unusable: no subgroup arithmetic in compute shaders")
		}
	}
}
