//go:build linux || darwin

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/forma-llm/forma/hub/hubtest"
	"github.com/forma-llm/forma/internal/testdir"
)

// TestPullProgressPTY: on a terminal, forma pull draws a bar per part of a split model (mpb, with cursor
// control), with bytes and speed, each ending "done"; then forma run NAME draws its loading bar.
func TestPullProgressPTY(t *testing.T) {
	h, _, _ := fakeRegistries(t)
	parts, err := hubtest.Split(filepath.Join(testdir.Sub(t, "models"), "stories260K-F16.gguf"), t.TempDir(), "stories-F16", 2)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for i, b := range parts {
		files[filepath.Base(partName(i+1))] = b
		h.Files.SetFaults(hubtest.Digest(b), hubtest.Faults{Throttle: 15 * time.Millisecond})
	}
	h.AddRepo("forma/split-GGUF", files, false)
	cmd := exec.Command(os.Args[0], "pull", "hf.co/forma/split-GGUF:F16")
	cmd.Env = append(os.Environ(), selfExecEnv+"=1")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer f.Close()
	p := &ptyTerm{t: t, f: f}
	go p.read()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("pull: %v", err)
	}
	out := p.expect("hf.co/forma/split-GGUF:F16 (")
	for _, want := range []string{"\x1b[", partName(1), partName(2), "KiB / ", "KiB/s", "done"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the terminal output:\n%q", want, out)
		}
	}
	if n := strings.Count(out, "done"); n < 2 {
		t.Errorf("%d bars say done:\n%q", n, out)
	}

	// The loading bar of forma run goes away when the model is loaded: the answer follows on a clean line.
	cmd = exec.Command(os.Args[0], "run", "-n", "4", "--temp", "0", "split-GGUF:F16", "Once")
	cmd.Env = append(os.Environ(), selfExecEnv+"=1")
	if f, err = pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160}); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p = &ptyTerm{t: t, f: f}
	go p.read()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if out = p.expect("Once"); strings.Contains(out, "loading") && !strings.HasSuffix(out, "\x1b[J") {
		t.Errorf("the loading bar stays above the answer: %q", out)
	}
}

func partName(i int) string { return "stories-F16-0000" + string(rune('0'+i)) + "-of-00002.gguf" }
