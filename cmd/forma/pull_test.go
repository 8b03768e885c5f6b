package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/forma-llm/forma/hub"
	"github.com/forma-llm/forma/hub/hubtest"
	"github.com/forma-llm/forma/internal/testdir"
)

// fakeRegistries starts a fake Hub with forma/stories-GGUF (the story model in Q8_0 and Q4_0) and a fake
// Ollama registry with library/stories:latest, and points the environment at them and at an empty store and
// empty caches.
func fakeRegistries(t *testing.T) (*hubtest.Hub, *hubtest.Registry, []byte) {
	models := testdir.Sub(t, "models")
	q8, err := os.ReadFile(filepath.Join(models, "stories260K-Q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	q4, err := os.ReadFile(filepath.Join(models, "stories260K-Q4_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	h, r := hubtest.NewHub(), hubtest.NewRegistry()
	t.Cleanup(func() { h.Close(); r.Close() })
	h.AddRepo("forma/stories-GGUF", map[string][]byte{"stories260K-Q8_0.gguf": q8, "stories260K-Q4_0.gguf": q4}, false)
	r.AddModel("library/stories", "latest", q8, "{{ .Prompt }}", "")
	t.Setenv(hub.EnvHFEndpoint, h.URL)
	t.Setenv(hub.EnvRegistry, r.URL)
	t.Setenv(hub.EnvModels, t.TempDir())
	for _, k := range []string{hub.EnvHFHubCache, hub.EnvLlamaCache, hub.EnvOllamaStore} {
		t.Setenv(k, t.TempDir())
	}
	return h, r, q8
}

// noControl fails on any control character but newline and tab (what a log file or a pipe must not get).
func noControl(t *testing.T, what, s string) {
	t.Helper()
	for _, c := range s {
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			t.Fatalf("%s has control character %q: %q", what, c, s)
		}
	}
}

// forma pull, then every command by the name alone; list, show, rm; a missing name.
func TestPullThenRunByName(t *testing.T) {
	h, _, q8 := fakeRegistries(t)
	rc, out, errs := forma("pull", "hf.co/forma/stories-GGUF:Q8_0")
	if rc != 0 || !strings.HasPrefix(out, "hf.co/forma/stories-GGUF:Q8_0 (370.28 KiB) ") {
		t.Fatalf("pull: rc %d, %q, %q", rc, out, errs)
	}
	noControl(t, "pull's stderr off a terminal", errs)
	for _, want := range []string{"pulling stories260K-Q8_0.gguf (370.28 KiB)\n", "stories260K-Q8_0.gguf: done\n"} {
		if !strings.Contains(errs, want) {
			t.Errorf("pull's stderr lacks %q: %q", want, errs)
		}
	}
	if sent, _ := h.Files.Sent(hubtest.Digest(q8)); sent != int64(len(q8)) {
		t.Errorf("%d bytes sent", sent)
	}
	for _, name := range []string{"hf.co/forma/stories-GGUF:Q8_0", "forma/stories-GGUF:Q8_0", "stories-GGUF:Q8_0", "forma/stories"} {
		if rc, out, errs := forma("run", "-n", "4", "--temp", "0", name, "Once"); rc != 0 || !strings.HasPrefix(out, "Once") {
			t.Errorf("run %s: rc %d %q %q", name, rc, out, errs)
		}
	}
	for _, args := range [][]string{
		{"tokenize", "-m", "stories-GGUF:Q8_0", "Once"}, {"bench", "-m", "stories-GGUF:Q8_0", "-p", "4", "-n", "2", "-r", "1"},
		{"info", "stories-GGUF:Q8_0"},
	} {
		if rc, _, errs := forma(args...); rc != 0 {
			t.Errorf("%v: rc %d %q", args, rc, errs)
		}
	}
	rc, out, _ = forma("list")
	if rc != 0 || !strings.Contains(out, "NAME") || !regexp.MustCompile(`hf.co/forma/stories-GGUF:Q8_0\s+370.28 KiB\s+Q8_0\s+llama\s+\d{4}-`).MatchString(out) {
		t.Errorf("list: %q", out)
	}
	var list []hub.Entry
	if rc, out, _ := forma("list", "--json"); rc != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 ||
		list[0].Quant != "Q8_0" || list[0].Architecture != "llama" || list[0].Size != int64(len(q8)) {
		t.Errorf("list --json: %q", out)
	}
	rc, out, _ = forma("show", "stories-GGUF:Q8_0")
	if rc != 0 || !strings.Contains(out, "store name        hf.co/forma/stories-GGUF:Q8_0") || !strings.Contains(out, "architecture") {
		t.Errorf("show: %q", out)
	}
	if rc, out, errs := forma("rm", "stories-GGUF:Q8_0"); rc != 0 || out != "deleted hf.co/forma/stories-GGUF:Q8_0\n" {
		t.Errorf("rm: rc %d %q %q", rc, out, errs)
	}
	rc, _, errs = forma("run", "stories-GGUF:Q8_0", "Once")
	if rc != 1 || !strings.Contains(errs, "not found; try `forma pull stories-GGUF:Q8_0`") {
		t.Errorf("run after rm: rc %d %q", rc, errs)
	}
	if rc, out, _ := forma("list", "--json"); rc != 0 || strings.TrimSpace(out) != "[]" {
		t.Errorf("list after rm: %q", out)
	}
}

// forma run REF pulls what it does not have, after saying so; quiet pulls say nothing; Ollama's registry.
func TestRunPullsMissingRef(t *testing.T) {
	fakeRegistries(t)
	rc, out, errs := forma("run", "-n", "4", "--temp", "0", "hf.co/forma/stories-GGUF:Q4_0", "Once")
	if rc != 0 || !strings.HasPrefix(out, "Once") || !strings.Contains(errs, "forma: hf.co/forma/stories-GGUF:Q4_0 is not here; pulling it\n") {
		t.Fatalf("run: rc %d %q %q", rc, out, errs)
	}
	if rc, out, errs := forma("pull", "--quiet", "--registry", "ollama", "stories"); rc != 0 || out != "" || errs != "" {
		t.Errorf("pull --quiet: rc %d %q %q", rc, out, errs)
	}
	if rc, out, errs := forma("run", "-n", "4", "stories", "Once"); rc != 0 || !strings.HasPrefix(out, "Once") {
		t.Errorf("run stories: rc %d %q %q", rc, out, errs)
	}
	rc, _, errs = forma("pull", "forma/stories-GGUF:Q2_K")
	if rc != 1 || !strings.Contains(errs, "no GGUF file for quant Q2_K; it has: Q4_0, Q8_0") {
		t.Errorf("missing quant: rc %d %q", rc, errs)
	}
	rc, _, errs = forma("run", "missing-model")
	if rc != 1 || errs != "forma run: model \"missing-model\" not found; try `forma pull missing-model`\n" {
		t.Errorf("missing: rc %d %q", rc, errs)
	}
}

// Two forma processes pulling one model at once: one downloads, the other waits on the lock and finds it.
func TestPullTwoProcesses(t *testing.T) {
	h, _, q8 := fakeRegistries(t)
	gate := make(chan struct{})
	h.Files.SetFaults(hubtest.Digest(q8), hubtest.Faults{Gate: gate})
	var cmds [2]*exec.Cmd
	var outs [2]bytes.Buffer
	for i := range cmds {
		cmds[i] = exec.Command(os.Args[0], "pull", "forma/stories-GGUF:Q8_0")
		cmds[i].Env = append(os.Environ(), selfExecEnv+"=1")
		cmds[i].Stderr = &outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); h.Calls("resolve") < 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // both past their listing: one holds the lock, the other waits on it
	close(gate)
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("pull %d: %v: %s", i, err, outs[i].String())
		}
	}
	if sent, _ := h.Files.Sent(hubtest.Digest(q8)); sent != int64(len(q8)) {
		t.Errorf("%d bytes sent for a %d-byte file", sent, len(q8))
	}
	waited := 0
	for i := range outs {
		if strings.Contains(outs[i].String(), "waiting for another pull") {
			waited++
		}
	}
	if waited != 1 {
		t.Errorf("%d pulls waited:\n%s\n%s", waited, outs[0].String(), outs[1].String())
	}
	path, err := resolveModel("stories-GGUF:Q8_0")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, q8) {
		t.Errorf("the stored file differs: %v", err)
	}
}
