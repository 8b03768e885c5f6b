//go:build novulkan

package main

import "testing"

// needVulkan skips: a novulkan build has no Vulkan backend.
func needVulkan(t *testing.T) {
	t.Helper()
	t.Skip("built with -tags novulkan: no Vulkan backend")
}
