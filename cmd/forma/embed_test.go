package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
)

func synthFile(t *testing.T, preset string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), preset+".gguf")
	if err := synth.Write(path, synth.Options{Preset: preset, Type: quant.Q8_0, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	return path
}

// forma embed on 64 texts evaluates them in a few batched passes (-v counts them), and each line equals what
// the text gets alone.
func TestEmbedCommand(t *testing.T) {
	model := synthFile(t, "tiny-bert")
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = strings.Repeat(fmt.Sprintf("word%d ", i%7), 1+i%23) + "end."
	}
	var out, errb bytes.Buffer
	if rc := mainArgs(append([]string{"embed", "-m", model, "-t", "2", "-v"}, texts...), &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	var n, passes, tokens int
	if _, err := fmt.Sscanf(errb.String(), "%d texts, %d passes, %d tokens", &n, &passes, &tokens); err != nil || n != 64 || passes > 2 {
		t.Errorf("stderr %q: want 64 texts in one or two passes", errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 64 || len(strings.Fields(lines[0])) != 256 {
		t.Fatalf("%d lines of %d values", len(lines), len(strings.Fields(lines[0])))
	}
	for i := 0; i < 64; i++ {
		var one bytes.Buffer
		if rc := mainArgs([]string{"embed", "-m", model, "-t", "2", texts[i]}, &one, &errb); rc != 0 {
			t.Fatalf("rc %d: %s", rc, errb.String())
		}
		if got := strings.TrimSuffix(one.String(), "\n"); got != lines[i] {
			t.Errorf("text %d alone:\n%.80s…\nbatched:\n%.80s…", i, got, lines[i])
		}
	}

	out.Reset()
	if rc := mainArgs([]string{"embed", "-m", model, "--json", "--dims", "8", "--pooling", "cls", "a", "b"}, &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	var vecs [][]float32
	if err := json.Unmarshal(out.Bytes(), &vecs); err != nil || len(vecs) != 2 || len(vecs[0]) != 8 {
		t.Errorf("--json --dims 8: %v %q", err, out.String())
	}
	for _, bad := range [][]string{{"embed", "-m", model, "--pooling", "max", "a"}, {"embed", "-m", model, "--dims", "999", "a"}} {
		errb.Reset()
		if rc := mainArgs(bad, &out, &errb); rc != 1 {
			t.Errorf("%v: rc %d, %s", bad, rc, errb.String())
		}
	}
	if rc := mainArgs([]string{"embed", "a"}, &out, &errb); rc != 2 {
		t.Errorf("missing -m: rc %d", rc)
	}
}

// forma rerank prints the documents most relevant first, with their scores and indexes.
func TestRerankCommand(t *testing.T) {
	model := synthFile(t, "tiny-bert-reranker")
	docs := []string{"alpha beta", "gamma", "delta epsilon zeta", ""}
	var out, errb bytes.Buffer
	if rc := mainArgs(append([]string{"rerank", "-m", model, "--query", "alpha", "--json"}, docs...), &out, &errb); rc != 0 {
		t.Fatalf("rc %d: %s", rc, errb.String())
	}
	var res []rerankResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res) != len(docs) {
		t.Fatalf("%v: %q", err, out.String())
	}
	seen := map[int]bool{}
	for i, r := range res {
		seen[r.Index] = true
		if r.Document != docs[r.Index] || (i > 0 && r.RelevanceScore > res[i-1].RelevanceScore) {
			t.Errorf("result %d: %+v (not in order, or not its document)", i, r)
		}
	}
	if len(seen) != len(docs) {
		t.Errorf("indexes %v", seen)
	}
	errb.Reset()
	if rc := mainArgs([]string{"rerank", "-m", synthFile(t, "tiny-bert"), "--query", "q", "d"}, &out, &errb); rc != 1 ||
		!strings.Contains(errb.String(), "rank") {
		t.Errorf("an embedding model: rc %d, %s", rc, errb.String())
	}
}
