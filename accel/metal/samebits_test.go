package metal

import (
	"testing"

	"github.com/forma-llm/forma/internal/gputest"
)

// TestSameBitsAsCPU checks that every op gives the CPU backend's float32 results bit for bit
// (gputest.SameBitsAsCPU), as accel/vulkan's test of the same name does for the same shaders on Vulkan.
func TestSameBitsAsCPU(t *testing.T) {
	gputest.SameBitsAsCPU(t, newTestBackend(t, testGPU(t), Options{}), "Metal")
}
