package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/forma-llm/forma/accel/cpu"
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
	writeVulkanDevices(w)
	return nil
}

// writeVulkanDevices prints the Vulkan devices (backend_vulkan.go); a build without that backend says so.
var writeVulkanDevices = func(w io.Writer) {
	fmt.Fprintln(w, "vulkan: unavailable: not in this build (-tags novulkan)")
}
