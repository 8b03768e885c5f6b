//go:build !novulkan

package main

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel/vulkan"
	"github.com/forma-llm/forma/accel/vulkan/vk"
	"github.com/forma-llm/forma/internal/testdir"
)

// TestVulkanWithoutLoader: with no Vulkan loader, --backend auto falls back to the CPU saying why in one line,
// and --backend vulkan fails with that reason and a non-zero status.
func TestVulkanWithoutLoader(t *testing.T) {
	model := filepath.Join(testdir.Dir(t), "models", "stories260K-F32.gguf")
	noLoader := []string{vk.LibraryEnv + "=/nonexistent/libvulkan.so.1"}
	prefix := filepath.Join(t.TempDir(), "out")
	rc, _, stderr := runChild(t, noLoader, "logits", "--backend", "auto", "-m", model, "--ids", "1 403", "-o", prefix)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if rc != 0 || len(lines) != 1 || !strings.Contains(lines[0], "vulkan backend unavailable") ||
		!strings.Contains(lines[0], "no Vulkan loader") {
		t.Errorf("--backend auto without a loader: status %d, stderr %q", rc, stderr)
	}
	rc, _, stderr = runChild(t, noLoader, "logits", "--backend", "vulkan", "-m", model, "--ids", "1 403", "-o", prefix)
	lines = strings.Split(strings.TrimSpace(stderr), "\n")
	if rc == 0 || len(lines) != 1 || !strings.Contains(lines[0], "no Vulkan loader") {
		t.Errorf("--backend vulkan without a loader: status %d, stderr %q", rc, stderr)
	}
	rc, stdout, _ := runChild(t, noLoader, "info", "--devices")
	if rc != 0 || !strings.Contains(stdout, "vulkan: unavailable") {
		t.Errorf("info --devices without a loader: status %d, stdout %q", rc, stdout)
	}
}

func needVulkan(t *testing.T) {
	t.Helper()
	if _, err := vulkan.Devices(); errors.Is(err, vulkan.ErrNoLoader) || errors.Is(err, vulkan.ErrNoDevice) {
		t.Skipf("no Vulkan here: %v", err)
	}
}

// TestVulkanGreedyMatchesCPU: forma run with greedy sampling writes the same text on both backends, for
// stories260K in three weight types.
func TestVulkanGreedyMatchesCPU(t *testing.T) {
	needVulkan(t)
	dir := testdir.Dir(t)
	for _, name := range []string{"stories260K-F32.gguf", "stories260K-Q8_0.gguf", "stories260K-Q4_1.gguf"} {
		var texts []string
		for _, be := range []string{"cpu", "vulkan"} {
			var out, errb bytes.Buffer
			args := []string{"run", "--backend", be, "--raw", "--temp", "0", "-n", "60", filepath.Join(dir, "models", name), "Once upon a time"}
			if rc := mainArgs(args, &out, &errb); rc != 0 {
				t.Fatalf("%s on %s: status %d: %s", name, be, rc, errb.String())
			}
			texts = append(texts, out.String())
		}
		if texts[0] != texts[1] || len(texts[0]) < 100 {
			t.Errorf("%s: cpu wrote %q\nvulkan wrote %q", name, texts[0], texts[1])
		}
	}
}

func TestInfoDevices(t *testing.T) {
	needVulkan(t)
	var out, errb bytes.Buffer
	if rc := mainArgs([]string{"info", "--devices"}, &out, &errb); rc != 0 {
		t.Fatalf("status %d: %s", rc, errb.String())
	}
	for _, want := range []string{"cpu: ", "vulkan 0: ", "memory: ", "features: subgroup"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("info --devices lacks %q:\n%s", want, out.String())
		}
	}
}
