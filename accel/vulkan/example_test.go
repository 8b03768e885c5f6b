package vulkan_test

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"

	"github.com/forma-llm/forma/accel/vulkan"
	"github.com/forma-llm/forma/shaders"
)

// Adding two vectors on the GPU: open a device, upload, record a dispatch once, run it, read back.
func Example() {
	dev, err := vulkan.Open(vulkan.Options{})
	if err != nil {
		fmt.Println("no Vulkan, using the CPU:", err) // e.g. vk: no Vulkan loader (libvulkan.so.1: …)
		return
	}
	defer dev.Close()

	const n = 1000
	in := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(float32(i)))
	}
	a, _ := dev.NewBuffer("a", 4*n, vulkan.DeviceLocal)
	d, _ := dev.NewBuffer("d", 4*n, vulkan.DeviceLocal)
	if err := dev.Write(a, 0, in); err != nil {
		log.Fatal(err)
	}

	spv, _ := shaders.SPIRV("add_f32")
	const wg = 64
	add, err := dev.Pipeline(vulkan.PipelineDesc{Name: "add_f32", SPIRV: spv, Buffers: 3, PushSize: 16, Spec: []uint32{wg}})
	if err != nil {
		log.Fatal(err)
	}
	cmds, _ := dev.NewCommands(vulkan.CommandsOptions{Name: "double"})
	cmds.Begin()
	cmds.Dispatch(add, [3]uint32{(n + wg - 1) / wg, 1, 1}, vulkan.PushUint32(n, 0, 0, 0), a.All(), a.All(), d.All())
	if err := cmds.End(); err != nil {
		log.Fatal(err)
	}
	if err := cmds.Run(); err != nil { // submit and wait; a recorded Commands can be run again
		log.Fatal(err)
	}
	out := make([]byte, 4*n)
	if err := dev.Read(d, 0, out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(math.Float32frombits(binary.LittleEndian.Uint32(out[4*21:])))
}
