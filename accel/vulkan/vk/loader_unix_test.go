//go:build darwin || linux || freebsd || netbsd

package vk

import (
	"slices"
	"testing"
)

// TestSearchNames checks where Load looks on macOS, which it cannot be run on here: the loader before MoltenVK,
// and each in the executable's folder, the app bundle's Frameworks, the Vulkan SDK and both Homebrew prefixes.
func TestSearchNames(t *testing.T) {
	got := searchNames("darwin", "/Apps/forma.app/Contents/MacOS/forma", "/Users/me/VulkanSDK/1.4/macOS")
	want := []string{
		"libvulkan.1.dylib",
		"/Apps/forma.app/Contents/MacOS/libvulkan.1.dylib",
		"/Apps/forma.app/Contents/Frameworks/libvulkan.1.dylib",
		"/Users/me/VulkanSDK/1.4/macOS/lib/libvulkan.1.dylib",
		"/usr/local/lib/libvulkan.1.dylib",
		"/opt/homebrew/lib/libvulkan.1.dylib",
		"libMoltenVK.dylib",
		"/Apps/forma.app/Contents/MacOS/libMoltenVK.dylib",
		"/Apps/forma.app/Contents/Frameworks/libMoltenVK.dylib",
		"/Users/me/VulkanSDK/1.4/macOS/lib/libMoltenVK.dylib",
		"/usr/local/lib/libMoltenVK.dylib",
		"/opt/homebrew/lib/libMoltenVK.dylib",
	}
	if !slices.Equal(got, want) {
		t.Errorf("darwin search:\n got %q\nwant %q", got, want)
	}
	if got := searchNames("darwin", "", ""); len(got) != 6 || got[0] != "libvulkan.1.dylib" || got[3] != "libMoltenVK.dylib" {
		t.Errorf("darwin without executable or SDK: %q", got)
	}
	if got := searchNames("linux", "/x/forma", "/sdk"); !slices.Equal(got, []string{"libvulkan.so.1", "libvulkan.so"}) {
		t.Errorf("linux search: %q", got)
	}
}
