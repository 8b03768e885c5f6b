//go:build darwin || linux || freebsd || netbsd

package vk

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/ebitengine/purego"
)

func libraryNames() []string {
	exe, _ := os.Executable()
	return searchNames(runtime.GOOS, exe, os.Getenv("VULKAN_SDK"))
}

// searchNames lists the libraries Load tries, in order. On macOS dlopen searches neither Homebrew's prefixes,
// the Vulkan SDK nor the executable's folder (where an app bundle keeps MoltenVK), so those are tried by
// absolute path: the loader first (it finds MoltenVK through its ICD manifest), then MoltenVK alone, which is
// itself a Vulkan driver with the entry points Load needs.
func searchNames(goos, exe, sdk string) []string {
	if goos != "darwin" {
		return []string{"libvulkan.so.1", "libvulkan.so"}
	}
	var dirs []string
	if exe != "" {
		dirs = append(dirs, filepath.Dir(exe), filepath.Join(filepath.Dir(exe), "..", "Frameworks"))
	}
	if sdk != "" { // the LunarG SDK's setup-env.sh sets VULKAN_SDK to its macOS folder
		dirs = append(dirs, filepath.Join(sdk, "lib"))
	}
	dirs = append(dirs, "/usr/local/lib", "/opt/homebrew/lib")
	var names []string
	for _, lib := range []string{"libvulkan.1.dylib", "libMoltenVK.dylib"} {
		names = append(names, lib)
		for _, d := range dirs {
			names = append(names, filepath.Join(d, lib))
		}
	}
	return names
}

func openLibrary(name string) (uintptr, error) {
	return purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

func symbol(h uintptr, name string) (uintptr, error) {
	return purego.Dlsym(h, name)
}
