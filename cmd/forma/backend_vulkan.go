//go:build !novulkan

// The Vulkan backend is left out of builds tagged novulkan: purego, which loads the Vulkan library, makes the
// binary ask for the system's dynamic loader, and a static binary (the container image) must not.

package main

import (
	"fmt"
	"os"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/vulkan"
)

// The Vulkan backend: --backend vulkan opens the device FORMA_VULKAN_DEVICE names, or the best one (a discrete
// GPU first). --backend auto passes over a device that is itself the CPU (lavapipe, SwiftShader) unless
// FORMA_VULKAN_DEVICE asks for it: the CPU backend is faster there.
func init() {
	backendOpeners["vulkan"] = func(int) (accel.Backend, error) { return vulkan.NewBackend(vulkan.Options{}) }
	autoOpeners["vulkan"] = openVulkanAuto
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
