package vulkan

import (
	"testing"

	"github.com/forma-llm/forma/internal/gputest"
)

// TestSameBitsAsCPU pins the property the package doc states: every op gives the CPU backend's float32 results
// bit for bit (gputest.SameBitsAsCPU). It is what makes the Vulkan backend pass and fail exactly the golden
// cases the CPU does.
func TestSameBitsAsCPU(t *testing.T) {
	vb := newTestBackend(t, sharedDevice(t))
	defer vb.Close()
	gputest.SameBitsAsCPU(t, vb, "Vulkan")
}
