package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/bundle"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/internal/testdir"
)

var built struct {
	once sync.Once
	dir  string
	exe  string
	err  error
}

// buildForma builds this command (once per test binary; its packages are those the test binary was built from,
// so only the link is new work) and returns the executable.
func buildForma(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "forma-build-"); built.err != nil {
			return
		}
		built.exe = filepath.Join(built.dir, "forma")
		if goruntime.GOOS == "windows" {
			built.exe += ".exe"
		}
		cmd := exec.Command(filepath.Join(goruntime.GOROOT(), "bin", "go"), "build", "-o", built.exe, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, b)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.exe
}

// exeName is name as an executable's file name on this platform.
func exeName(name string) string {
	if goruntime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

// stop interrupts a process as Ctrl-C does and checks that it exits cleanly (Windows has no such signal to send:
// there the process is killed).
func stop(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if goruntime.GOOS == "windows" {
		cmd.Process.Kill()
		cmd.Wait()
		return
	}
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err != nil {
		t.Errorf("after Ctrl-C: %v", err)
	}
}

// startBundle starts a bundle with --no-browser and returns the URL it serves and the process.
func startBundle(t *testing.T, exe string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(exe, "--no-browser", "-t", "1")
	cmd.Dir = filepath.Dir(exe)
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("the bundle exited; stderr:\n%s", stderr.String())
			}
			if _, url, found := strings.Cut(line, " at http"); found {
				url, _, _ = strings.Cut(url, " ")
				return "http" + url, cmd
			}
		case <-timeout:
			t.Fatalf("the bundle did not start serving; stderr:\n%s", stderr.String())
		}
	}
}

// TestBundle: forma bundle on stories260K gives one file that, alone in an empty folder and started with
// --no-browser, serves the page and answers; its model is mapped from the file itself, not copied to memory; and
// forma info describes its model.
func TestBundle(t *testing.T) {
	model := filepath.Join(testdir.Sub(t, "models"), "stories260K-Q8_0.gguf")
	work := t.TempDir()
	exe := buildForma(t)
	out := filepath.Join(work, exeName("stories-chat"))
	if code, stdout, stderr := runCLI("bundle", "-m", model, "-o", out, "--from", exe); code != 0 ||
		!strings.Contains(stdout, "carrying stories260K-Q8_0.gguf") {
		t.Fatalf("forma bundle: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runCLI("info", out); code != 0 || !strings.Contains(stdout, "forma bundle: the model is 379168 bytes") ||
		!strings.Contains(stdout, "architecture      llama") {
		t.Errorf("forma info BUNDLE: exit %d\n%s%s", code, stdout, stderr)
	}

	alone := filepath.Join(t.TempDir(), exeName("stories-chat")) // an empty folder, and the one file
	copyFile(t, out, alone)
	url, cmd := startBundle(t, alone)
	if page := getPage(t, url); !strings.Contains(page, "<title>forma</title>") {
		t.Fatalf("page: %.200s", page)
	}
	if models := get(t, url+"v1/models"); !strings.Contains(models, `"id":"stories-chat"`) {
		t.Errorf("models: %s", models)
	}
	r, err := http.Post(url+"v1/chat/completions", "application/json", strings.NewReader(
		`{"model":"stories-chat","max_tokens":16,"temperature":0,"messages":[{"role":"user","content":"Once upon a time"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	json.NewDecoder(r.Body).Decode(&answer)
	r.Body.Close()
	if len(answer.Choices) != 1 || answer.Choices[0].Message.Content == "" || answer.Usage.CompletionTokens != 16 {
		t.Fatalf("answer: %+v", answer)
	}
	if goruntime.GOOS == "linux" {
		p, err := bundle.Find(alone)
		if err != nil || p == nil {
			t.Fatal(p, err)
		}
		checkMapped(t, cmd.Process.Pid, alone, p.Offset)
	}
	stop(t, cmd)
}

// checkMapped reads /proc: the bundle's model must be a mapping of the bundle file at the model's offset, and
// the process's anonymous memory (Go heap, caches, buffers) under 64 MiB. It returns the KiB of the model's
// mapping in memory.
func checkMapped(t *testing.T, pid int, path string, offset int64) (mappedKiB int) {
	t.Helper()
	smaps, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	real, _ := filepath.EvalSymlinks(path)
	found, in := false, false
	for _, line := range strings.Split(string(smaps), "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") { // a mapping's header: range perms offset dev inode [path]
			off, _ := strconv.ParseInt(f[2], 16, 64)
			in = len(f) >= 6 && (f[5] == real || f[5] == path) && off == offset
			found = found || in
		} else if in && len(f) == 3 && f[0] == "Rss:" {
			kb, _ := strconv.Atoi(f[1])
			mappedKiB += kb
		}
	}
	if !found {
		t.Errorf("no mapping of %s at offset %#x", path, offset)
	}
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			t.Logf("anonymous memory %d KiB; the model's mapping %d KiB in memory", kb, mappedKiB)
			if kb <= 0 || kb > 64<<10 {
				t.Errorf("anonymous memory %d KiB: the model is copied, or something else grew", kb)
			}
		}
	}
	return mappedKiB
}

// TestBundleMapsModel bundles a 140 MiB model and checks, after an answer, that its weights were read through
// the mapping of the bundle file while the process's anonymous memory stayed under 64 MiB: mapped, not copied.
// The weights are Q5_0, which the CPU multiplies in place (the types with a batched kernel, Q4_0, Q8_0, Q4_K,
// Q5_K, Q6_K and IQ4_XS, are multiplied from a copy in their kernels' layout, and their mapped pages released:
// accel/cpu/stored.go).
func TestBundleMapsModel(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	work := t.TempDir()
	model := filepath.Join(work, "big.gguf")
	err := synth.Write(model, synth.Options{Preset: "tinyllama-1.1b", Type: quant.Q5_0, Seed: 1, NumLayers: 1, ContextLength: 256})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, "big-chat")
	if code, _, stderr := runCLI("bundle", "-m", model, "-o", out, "--from", buildForma(t)); code != 0 {
		t.Fatal(stderr)
	}
	os.Remove(model)
	url, cmd := startBundle(t, out)
	r, err := http.Post(url+"v1/chat/completions", "application/json", strings.NewReader(
		`{"model":"big-chat","max_tokens":4,"messages":[{"role":"user","content":"Hello"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("answer: %d", r.StatusCode)
	}
	p, err := bundle.Find(out)
	if err != nil || p == nil {
		t.Fatal(p, err)
	}
	if kib := checkMapped(t, cmd.Process.Pid, out, p.Offset); int64(kib)<<10 < p.Size/2 {
		t.Errorf("only %d KiB of the %d MiB model's mapping is in memory after an answer", kib, p.Size>>20)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBundleDamaged: a bundle cut short or with a damaged trailer refuses to start, saying why; forma bundle
// checks its arguments.
func TestBundleDamaged(t *testing.T) {
	model := filepath.Join(testdir.Sub(t, "models"), "stories260K-Q8_0.gguf")
	work := t.TempDir()
	exe := buildForma(t)
	good := filepath.Join(work, exeName("good"))
	if code, _, stderr := runCLI("bundle", "-m", model, "-o", good, "--from", exe); code != 0 {
		t.Fatal(stderr)
	}
	b, _ := os.ReadFile(good)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", b[:len(b)-1000], "truncated"},
		{"trailer", append(append([]byte(nil), b[:len(b)-bundle.TrailerSize]...), make([]byte, bundle.TrailerSize)...), "trailer"},
		{"checksum", func() []byte { d := append([]byte(nil), b...); d[len(d)-bundle.TrailerSize-100] ^= 1; return d }(), "SHA-256"},
	} {
		path := filepath.Join(work, exeName(c.name))
		os.WriteFile(path, c.data, 0o755)
		cmd := exec.Command(path, "--no-browser")
		outb, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(outb), c.want) {
			t.Errorf("%s bundle: %v, output %q; want exit 1 and %q", c.name, err, outb, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bundle", "-m", model}, "usage"},
		{[]string{"bundle", "-m", model, "-o", filepath.Join(work, "x"), "--target", "plan9/amd64"}, "--from"},
		{[]string{"bundle", "-m", model, "-o", filepath.Join(work, "x"), "--from", exe, "--target", "windows/amd64"}, "not windows/amd64"},
		{[]string{"bundle", "-m", model, "-o", filepath.Join(work, "x"), "--from", good}, "already carries a model"},
		{[]string{"bundle", "-m", exe, "-o", filepath.Join(work, "x"), "--from", exe}, "magic"},
	} {
		if code, _, stderr := runCLI(c.args...); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want %q", c.args, code, stderr, c.want)
		}
	}
}
