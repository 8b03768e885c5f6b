package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

// selfExecEnv makes the test binary act as the forma command (for tests that need a process of its own: a
// pseudo-terminal, signals, stdin).
const selfExecEnv = "FORMA_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(selfExecEnv) == "1" {
		testHooks()
		os.Exit(entry(os.Args[1:]))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// runChild runs forma with args in a child process with extra environment and returns its status, stdout and
// stderr.
func runChild(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), selfExecEnv+"=1"), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// TestFormaCPU: forma refuses an unknown FORMA_CPU at start-up, and run --verbose and bench name the kernels a
// known one leaves.
func TestFormaCPU(t *testing.T) {
	rc, _, errs := runChild(t, []string{"FORMA_CPU=avx9"}, "bench", "-m", storiesPath(t))
	if rc != 2 || !strings.Contains(errs, `FORMA_CPU="avx9"`) {
		t.Errorf("FORMA_CPU=avx9: rc %d, %q", rc, errs)
	}
	level, want := "generic", "cpu backend: CPU, 1 threads, generic kernels"
	if strings.HasPrefix(quant.CPUPath(), "avx2") {
		level, want = "avx2", "cpu backend: CPU, 1 threads, avx2 kernels"
	}
	rc, _, errs = runChild(t, []string{"FORMA_CPU=" + level}, "run", "--verbose", "-t", "1", "-n", "2", storiesPath(t), "Once")
	if rc != 0 || !strings.Contains(errs, want) || strings.Contains(errs, "avx512") {
		t.Errorf("FORMA_CPU=%s run --verbose: rc %d, %q", level, rc, errs)
	}
	rc, _, errs = runChild(t, []string{"FORMA_CPU=" + level}, "bench", "-m", storiesPath(t), "-p", "0", "-n", "1", "-r", "1", "-t", "1")
	if rc != 0 || !strings.Contains(errs, want) || strings.Contains(errs, "avx512") {
		t.Errorf("FORMA_CPU=%s bench: rc %d, %q", level, rc, errs)
	}
}
