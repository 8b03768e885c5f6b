package shaders

import (
	"embed"
	"fmt"
	"sync"

	"github.com/forma-llm/forma/shaders/internal/msl"
)

// The Metal Shading Language translations of the SPIR-V (msl/*.metal) and their binding tables
// (msl/manifest.txt), made by `go generate` with the pinned SPIRV-Cross.
//
//go:embed msl/*.metal msl/manifest.txt
var mslFS embed.FS

// Kernel is the Metal host's table of one MSL kernel: its entry point, the buffer index of each SPIR-V binding,
// the push constants' index and size, and its function constants.
type Kernel = msl.Kernel

// KernelConst is a function constant of a kernel.
type KernelConst = msl.Const

// WorkgroupMacro is the preprocessor macro a kernel with Kernel.WorkgroupMacro reads its workgroup size from.
const WorkgroupMacro = msl.WorkgroupMacroName

var kernels = sync.OnceValues(func() (map[string]Kernel, error) {
	data, err := mslFS.ReadFile("msl/" + msl.ManifestName)
	if err != nil {
		return nil, err
	}
	m, err := msl.ParseManifest(data)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Kernel, len(m.Entries))
	for _, e := range m.Entries {
		out[e.Name] = e.Kernel
	}
	return out, nil
})

// MSL returns the Metal source of a shader and its binding table.
func MSL(name string) ([]byte, Kernel, error) {
	ks, err := kernels()
	if err != nil {
		return nil, Kernel{}, fmt.Errorf("shaders: %w", err)
	}
	k, ok := ks[name]
	if !ok {
		return nil, Kernel{}, fmt.Errorf("shaders: no Metal kernel %q", name)
	}
	src, err := mslFS.ReadFile("msl/" + name + ".metal")
	if err != nil {
		return nil, Kernel{}, fmt.Errorf("shaders: %w", err)
	}
	return src, k, nil
}

// MSLKernel returns a shader's binding table.
func MSLKernel(name string) (Kernel, error) {
	ks, err := kernels()
	if err != nil {
		return Kernel{}, fmt.Errorf("shaders: %w", err)
	}
	k, ok := ks[name]
	if !ok {
		return Kernel{}, fmt.Errorf("shaders: no Metal kernel %q", name)
	}
	return k, nil
}
