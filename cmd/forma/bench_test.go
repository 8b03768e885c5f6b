package main

import (
	"encoding/json"
	"strings"
	"testing"
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
