package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel/vulkan"
	"github.com/forma-llm/forma/accel/vulkan/vk"
	"github.com/forma-llm/forma/internal/testdir"
)

const childEnv = "FORMA_CMD_TEST_CHILD"

// TestMain lets a test run forma's main in a child process (the Vulkan loader is opened once per process, so
// "no loader" needs a fresh one): the child runs mainArgs on the arguments after "--" and exits with its status.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		args := os.Args
		for i, a := range args {
			if a == "--" {
				args = args[i+1:]
				break
			}
		}
		os.Exit(mainArgs(args, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runChild runs forma with args in a child process with extra environment and returns its status, stdout and
// stderr.
func runChild(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(append(os.Environ(), childEnv+"=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

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

// TestVulkanGreedyMatchesCPU generates 32 tokens greedily from stories260K on both backends: the same text.
func TestVulkanGreedyMatchesCPU(t *testing.T) {
	needVulkan(t)
	dir := testdir.Dir(t)
	for _, name := range []string{"stories260K-F32.gguf", "stories260K-Q8_0.gguf"} {
		var gens []string
		for _, be := range []string{"cpu", "vulkan"} {
			prefix := filepath.Join(t.TempDir(), be)
			var out, errb bytes.Buffer
			args := []string{"logits", "--backend", be, "-m", filepath.Join(dir, "models", name), "--ids", "1 403 407 261 378", "-n", "32", "-o", prefix}
			if rc := mainArgs(args, &out, &errb); rc != 0 {
				t.Fatalf("%s on %s: status %d: %s", name, be, rc, errb.String())
			}
			gen, err := os.ReadFile(prefix + ".gen.txt")
			if err != nil {
				t.Fatal(err)
			}
			gens = append(gens, strings.TrimSpace(string(gen)))
		}
		if gens[0] != gens[1] || len(strings.Fields(gens[0])) != 32 {
			t.Errorf("%s: cpu generated %q\nvulkan generated %q", name, gens[0], gens[1])
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
