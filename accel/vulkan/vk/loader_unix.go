//go:build darwin || linux || freebsd || netbsd

package vk

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/ebitengine/purego"
)

func libraryNames() []string {
	if runtime.GOOS != "darwin" {
		return []string{"libvulkan.so.1", "libvulkan.so"}
	}
	names := []string{"libvulkan.1.dylib"}
	// dlopen does not search Homebrew's prefixes or the executable's folder, where an app bundle keeps MoltenVK.
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe), filepath.Join(filepath.Dir(exe), "..", "Frameworks"))
	}
	dirs = append(dirs, "/usr/local/lib", "/opt/homebrew/lib")
	for _, d := range dirs {
		names = append(names, filepath.Join(d, "libvulkan.1.dylib"))
	}
	names = append(names, "libMoltenVK.dylib")
	for _, d := range dirs {
		names = append(names, filepath.Join(d, "libMoltenVK.dylib"))
	}
	return names
}

func openLibrary(name string) (uintptr, error) {
	return purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

func symbol(h uintptr, name string) (uintptr, error) {
	return purego.Dlsym(h, name)
}
