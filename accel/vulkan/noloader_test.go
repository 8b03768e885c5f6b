package vulkan

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel/vulkan/vk"
)

const childEnv = "FORMA_VULKAN_TEST_CHILD"

// TestNoLoader runs this test binary again with the loader path pointing nowhere (the library is opened once
// per process) and checks that Open and Devices fail with ErrNoLoader naming the path, without crashing.
func TestNoLoader(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		_, errOpen := Open(Options{Validation: true})
		_, errDevices := Devices()
		for _, err := range []error{errOpen, errDevices} {
			if !errors.Is(err, ErrNoLoader) || !strings.Contains(err.Error(), "/nonexistent/libvulkan") {
				fmt.Println("UNEXPECTED:", err)
				os.Exit(1)
			}
		}
		fmt.Println("OK:", errOpen)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoLoader$")
	cmd.Env = append(os.Environ(), childEnv+"=1", vk.LibraryEnv+"=/nonexistent/libvulkan.so.1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK: vk: no Vulkan loader") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("%s", strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0]))
}
