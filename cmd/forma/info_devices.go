//go:build !novulkan

package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/accel/vulkan"
)

// forma info --devices lists the compute devices forma can use. It extends the "info" command (the model
// summary, when that is registered: this file's name sorts after info.go so its init runs later) rather than
// adding a command of its own.
func init() {
	prev, hasInfo := commands["info"]
	summary := "list compute devices (--devices)"
	if hasInfo {
		summary = prev.summary + "; --devices lists compute devices"
	}
	register(command{name: "info", summary: summary, run: func(args []string, stdout, stderr io.Writer) error {
		if slices.Contains(args, "--devices") || slices.Contains(args, "-devices") {
			return runDevices(args, stdout, stderr)
		}
		if !hasInfo {
			fmt.Fprintln(stderr, "usage: forma info --devices")
			return errUsage
		}
		return prev.run(args, stdout, stderr)
	}})
}

func runDevices(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("info", "--devices", stderr)
	fs.Bool("devices", true, "list the compute devices: CPU, Metal and Vulkan, with memory and features")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fs.Usage()
		return errUsage
	}
	return writeDevices(stdout)
}

// writeDevices prints the CPU, every Metal device and every Vulkan device, or why there are none.
func writeDevices(w io.Writer) error {
	fmt.Fprintf(w, "cpu: %d threads by default\n", cpu.DefaultThreads())
	writeMetalDevices(w)
	devs, err := vulkan.Devices()
	if err != nil {
		fmt.Fprintf(w, "vulkan: unavailable: %v\n", err)
		return nil
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
	return nil
}

func mib(n uint64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
