package vk

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

const registryPath = "/usr/share/vulkan/registry/vk.xml"

// TestGeneratedCurrent regenerates the bindings from the installed registry, when it is the version they were
// made from, and checks the committed files are identical.
func TestGeneratedCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	xml, err := os.ReadFile(registryPath)
	if err != nil {
		t.Skipf("no registry at %s (install libvulkan-dev)", registryPath)
	}
	m := regexp.MustCompile(`VK_HEADER_VERSION</name>\s*(\d+)`).FindSubmatch(xml)
	if m == nil {
		t.Fatalf("%s: no VK_HEADER_VERSION", registryPath)
	}
	if v, _ := strconv.Atoi(string(m[1])); v != HeaderVersion {
		t.Skipf("installed registry is version %d, bindings were made from %d", v, HeaderVersion)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	dir := t.TempDir()
	cmd := exec.Command(goTool, "run", "./internal/gen", "-registry", registryPath, "-out", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, out)
	}
	for _, name := range []string{"ztypes.go", "zcommands.go", "zlayout_test.go"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		have, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, have) {
			t.Errorf("%s is stale: run go generate ./accel/vulkan/vk", name)
		}
	}
}
