package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/hub"
	"github.com/forma-llm/forma/internal/golden"
	"github.com/forma-llm/forma/internal/testdir"
)

func storiesPath(t *testing.T) string {
	return filepath.Join(testdir.Sub(t, "models"), "stories260K-Q8_0.gguf")
}

// forma runs the command in-process and returns its exit status, stdout and stderr.
func forma(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	rc := mainArgs(args, &out, &errb)
	return rc, out.String(), errb.String()
}

// TestRunGolden: `forma run --temp 0 -n 32 --raw --kv f32` reproduces llama.cpp's greedy continuation of every
// golden case with a text prompt (token ids from --print-ids), up to a reference near-tie.
func TestRunGolden(t *testing.T) {
	dir := testdir.Dir(t)
	names, err := golden.Cases(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		c, err := golden.Load(dir, name)
		if err != nil {
			t.Fatal(err)
		}
		var prompt string
		if json.Unmarshal([]byte(c.Meta["prompt_json"]), &prompt) != nil || c.Seq {
			continue // id prompts; seq cases repeat the batch ones for the CLI
		}
		t.Run(name, func(t *testing.T) {
			if (testing.Short() || raceEnabled) && (!strings.HasPrefix(name, "stories260K") || c.Meta["n_prompt"] != "5") {
				t.Skip("the short stories260K cases only in short mode and under the race detector")
			}
			rc, out, errs := forma("run", "--temp", "0", "-n", "32", "--raw", "--kv", "f32", "-t", "2",
				"--ignore-eos", "--print-ids", c.Model, prompt)
			if rc != 0 {
				t.Fatalf("rc %d: %s", rc, errs)
			}
			if !strings.HasPrefix(out, prompt) {
				t.Errorf("--raw output does not start with the prompt: %q", out)
			}
			line, ok := strings.CutPrefix(strings.TrimSpace(errs), "ids: ")
			if !ok {
				t.Fatalf("no ids line in %q", errs)
			}
			got, err := golden.ParseIDs(line)
			if err != nil {
				t.Fatal(err)
			}
			n := len(c.Gen)
			for g := 0; g < n; g++ {
				if golden.TopGap(c.GenLogits[g*c.Vocab:(g+1)*c.Vocab]) < golden.NearTie {
					n = g
				}
			}
			if len(got) != 32 || !equalInt32(got[:n], c.Gen[:n]) {
				t.Errorf("ids %v\nwant %v (first %d)", got, c.Gen, n)
			}
		})
	}
}

func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRunStory(t *testing.T) {
	rc, out, errs := forma("run", "--seed", "7", "-n", "40", storiesPath(t), "Once upon a time")
	if rc != 0 || !strings.HasPrefix(out, "Once upon a time") || len(strings.Fields(out)) < 20 {
		t.Fatalf("rc %d, out %q, err %q", rc, out, errs)
	}
	rc2, out2, _ := forma("run", "--seed", "7", "-n", "40", storiesPath(t), "Once upon a time")
	if rc2 != 0 || out2 != out {
		t.Errorf("--seed 7 twice:\n%q\n%q", out, out2)
	}
	rc, verbose, errs := forma("run", "--verbose", "--temp", "0", "-n", "8", storiesPath(t), "Once upon a time")
	if rc != 0 || !strings.Contains(errs, "generation: 8 tokens") || !strings.Contains(errs, "t/s") ||
		!strings.Contains(errs, "start-up: the first prompt token went to evaluation ") {
		t.Errorf("--verbose: rc %d, %q, %q", rc, verbose, errs)
	}
}

// TestRunChatTemplate: a model with a chat template answers through it; --raw skips it.
func TestRunChatTemplate(t *testing.T) {
	model := filepath.Join(testdir.Sub(t, "models"), "rand-qwen3-chat-q8_0.gguf")
	rc, out, errs := forma("run", "--temp", "0", "-n", "4", "--verbose", "--system", "Be brief.", model, "Hi")
	if rc != 0 || strings.HasPrefix(out, "Hi") {
		t.Fatalf("rc %d, out %q, %s", rc, out, errs)
	}
	// system + user + assistant opening, about 20 tokens with the Qwen template; "Hi" alone is 1.
	if !strings.Contains(errs, "prompt: 2") && !strings.Contains(errs, "prompt: 1") {
		t.Errorf("the chat prompt was not templated: %s", errs)
	}
}

// TestRunTemplateKwargs: --chat-template-kwargs reaches the template: Qwen3 with enable_thinking false adds an
// empty reasoning block (<think>\n\n</think>\n\n, 4 tokens) to the prompt.
func TestRunTemplateKwargs(t *testing.T) {
	model := filepath.Join(testdir.Sub(t, "models"), "rand-qwen3-chat-q8_0.gguf")
	promptTokens := func(args ...string) int {
		rc, _, errs := forma(append([]string{"run", "--temp", "0", "-n", "1", "--verbose"}, append(args, model, "Hi")...)...)
		var n int
		if _, after, ok := strings.Cut(errs, "prompt: "); rc != 0 || !ok {
			t.Fatalf("rc %d: %s", rc, errs)
		} else {
			fmt.Sscan(after, &n)
		}
		return n
	}
	plain, off := promptTokens(), promptTokens("--chat-template-kwargs", `{"enable_thinking": false}`)
	if off != plain+4 {
		t.Errorf("prompt tokens: %d without kwargs, %d with enable_thinking false; want 4 more", plain, off)
	}
	if rc, _, errs := forma("run", "--chat-template-kwargs", "[1]", model, "Hi"); rc != 2 || !strings.Contains(errs, "JSON object") {
		t.Errorf("bad kwargs: rc %d, %s", rc, errs)
	}
}

// TestRunErrors: each failure is one line on stderr, a non-zero status and no stack trace.
func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	notGGUF := filepath.Join(dir, "notes.gguf")
	os.WriteFile(notGGUF, []byte("just some text, not a model"), 0o644)
	long := strings.Repeat("Lily had a little red ball. ", 40)
	for _, tc := range []struct {
		name string
		args []string
		rc   int
		want string
	}{
		{"missing file", []string{"run", filepath.Join(dir, "nope.gguf"), "hi"}, 1, "nope.gguf"},
		{"not gguf", []string{"run", notGGUF, "hi"}, 1, "notes.gguf"},
		{"unknown backend", []string{"run", "--backend", "tpu", storiesPath(t), "hi"}, 1, `unknown backend "tpu"`},
		{"prompt over context", []string{"run", "--raw", storiesPath(t), long}, 1, "context"},
		{"bad temperature", []string{"run", "--temp", "-1", storiesPath(t), "hi"}, 1, "temperature"},
		{"no model", []string{"run"}, 2, "usage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, _, errs := forma(tc.args...)
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if rc != tc.rc || !strings.Contains(errs, tc.want) || strings.Contains(errs, "goroutine") {
				t.Errorf("rc %d, stderr %q; want rc %d and %q", rc, errs, tc.rc, tc.want)
			}
			if tc.rc == 1 && len(lines) != 1 {
				t.Errorf("%d lines on stderr: %q", len(lines), errs)
			}
		})
	}
}

// TestRunModelNames: a name is looked up in $FORMA_MODELS.
func TestRunModelNames(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(storiesPath(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"Stories-A.gguf", "stories-b.gguf", "other.gguf"} {
		if err := os.WriteFile(filepath.Join(dir, n), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(hub.EnvModels, dir)
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"stories-a", "Stories-A.gguf", true},
		{"OTHER", "other.gguf", true},
		{"stories-b.gguf", "stories-b.gguf", true},
		{"oth", "other.gguf", true},
		{"stories", "Stories-A.gguf, stories-b.gguf", false},
		{"llama", "not found; try `forma pull llama`", false},
	} {
		p, err := resolveModel(tc.name)
		switch {
		case tc.ok && (err != nil || filepath.Base(p) != tc.want):
			t.Errorf("%q: %q, %v; want %s", tc.name, p, err, tc.want)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: %q, %v; want an error with %q", tc.name, p, err, tc.want)
		}
	}
	if rc, out, errs := forma("run", "-n", "4", "stories-a", "Once"); rc != 0 || !strings.HasPrefix(out, "Once") {
		t.Errorf("run by name: rc %d %q %q", rc, out, errs)
	}
}

// TestRunStdin: without a prompt argument and with a pipe on stdin, the prompt is read from it.
func TestRunStdin(t *testing.T) {
	cmd := exec.Command(os.Args[0], "run", "--temp", "0", "-n", "6", storiesPath(t))
	cmd.Env = append(os.Environ(), selfExecEnv+"=1")
	cmd.Stdin = strings.NewReader("Once upon a time\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.HasPrefix(string(out), "Once upon a time, there was") {
		t.Errorf("stdin prompt: %q", out)
	}
}
