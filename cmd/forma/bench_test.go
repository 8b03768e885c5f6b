package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/internal/testdir"
)

func TestBench(t *testing.T) {
	rc, out, errs := forma("bench", "-m", storiesPath(t), "-p", "16", "-n", "8", "-r", "2", "-t", "1")
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "| model") || !strings.Contains(lines[2], "| pp16 |") && !strings.Contains(lines[2], "pp16") ||
		!strings.Contains(lines[3], "tg8") || !strings.Contains(lines[3], "llama") || !strings.Contains(lines[3], " ± ") {
		t.Errorf("table:\n%s", out)
	}
	rc, out, errs = forma("bench", "-m", storiesPath(t), "-p", "0", "-n", "4", "-r", "3", "--json")
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errs)
	}
	var rs []benchResult
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(rs) != 1 || rs[0].Test != "tg4" || len(rs[0].Samples) != 3 || rs[0].Median <= 0 || rs[0].Params == 0 {
		t.Errorf("json: %+v", rs)
	}
	if rc, _, errs := forma("bench", "-m", storiesPath(t), "-p", "0", "-n", "0"); rc != 1 || !strings.Contains(errs, "-p") {
		t.Errorf("-p 0 -n 0: rc %d %q", rc, errs)
	}
}

// TestBenchDepth: -d N evaluates N tokens of context before each test (llama-bench's n_depth and "@ dN" label),
// with a quantized KV cache (flash attention) and with --fa; a cache type the model's heads cannot hold is
// refused naming it.
func TestBenchDepth(t *testing.T) {
	model := filepath.Join(testdir.Sub(t, "models"), "rand-qwen2-q8_0.gguf")
	for _, kv := range [][]string{{"--kv", "q8_0"}, {"--kv", "f16", "--fa"}} {
		args := append([]string{"bench", "-m", model, "-p", "8", "-n", "4", "-d", "40", "-r", "1", "-t", "1", "--json"}, kv...)
		rc, out, errs := forma(args...)
		if rc != 0 {
			t.Fatalf("%v: rc %d: %s", kv, rc, errs)
		}
		var rs []benchResult
		if err := json.Unmarshal([]byte(out), &rs); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if len(rs) != 2 || rs[0].Test != "pp8 @ d40" || rs[1].Test != "tg4 @ d40" || rs[0].NDepth != 40 || !rs[0].Flash ||
			rs[0].KV != kv[1] || rs[1].Median <= 0 {
			t.Errorf("%v: json: %+v", kv, rs)
		}
	}
	if rc, _, errs := forma("bench", "-m", storiesPath(t), "-p", "8", "-n", "0", "--kv", "q4_0"); rc != 1 || !strings.Contains(errs, "Q4_0") {
		t.Errorf("--kv q4_0 on head size 8: rc %d %q", rc, errs)
	}
	if rc, _, errs := forma("bench", "-m", storiesPath(t), "-d", "-1"); rc != 1 || !strings.Contains(errs, "-d") {
		t.Errorf("-d -1: rc %d %q", rc, errs)
	}
}

func TestBenchSchema(t *testing.T) {
	schema := `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}},"required":["a"]}`
	rc, out, errs := forma("bench", "-m", storiesPath(t), "-p", "0", "-n", "16", "-r", "2", "-t", "1", "--json-schema", schema)
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errs)
	}
	if !strings.Contains(out, "tg16+sample") || !strings.Contains(out, "tg16+schema") || !strings.Contains(out, "µs/token mean") {
		t.Errorf("table:\n%s", out)
	}
	if rc, _, errs := forma("bench", "-m", storiesPath(t), "-n", "4", "--json-schema", `{"not":{}}`); rc != 2 || !strings.Contains(errs, `"not"`) {
		t.Errorf("invalid schema: rc %d %q", rc, errs)
	}
}

func TestBenchStats(t *testing.T) {
	med, mean, sd := stats([]float64{3, 1, 2, 10})
	if med != 2.5 || mean != 4 || sd < 4.08 || sd > 4.09 {
		t.Errorf("stats = %v %v %v", med, mean, sd)
	}
}

// noFlash is the CPU backend pretending to have no flash attention, as the GPU backends have none yet.
type noFlash struct{ accel.Backend }

func (n noFlash) Caps() accel.Caps {
	c := n.Backend.Caps()
	c.FlashAttention = false
	return c
}

// TestAutoSkipsNoFlash: --backend auto passes over a backend without flash attention when --kv q8_0 needs it,
// saying so, and takes the next.
func TestAutoSkipsNoFlash(t *testing.T) {
	order := autoOrder
	backendOpeners["noflash"] = func(threads int) (accel.Backend, error) {
		be, err := cpu.New(cpu.Options{Threads: threads})
		return noFlash{be}, err
	}
	autoOrder = []string{"noflash", "cpu"}
	defer func() { autoOrder = order; delete(backendOpeners, "noflash") }()
	model := filepath.Join(testdir.Sub(t, "models"), "rand-qwen2-q8_0.gguf")
	rc, out, errs := forma("bench", "-m", model, "--backend", "auto", "--kv", "q8_0", "-p", "8", "-n", "0", "-r", "1", "-t", "1", "--json")
	if rc != 0 || !strings.Contains(errs, "noflash backend has no flash attention, which --kv q8_0 needs") || !strings.Contains(out, `"backend": "cpu"`) {
		t.Errorf("rc %d, stdout %q, stderr %q", rc, out, errs)
	}
}
