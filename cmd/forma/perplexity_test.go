package main

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/internal/testdir"
)

// TestPerplexity runs forma perplexity with an F32 KV cache on the story text and holds it within 1% of
// llama-perplexity's figures for the same settings (testdata/perplexity, the -ctk f32 -ctv f32 -fa off column).
func TestPerplexity(t *testing.T) {
	dir := testdir.Dir(t)
	for _, tc := range []struct {
		model string
		ref   float64
	}{{"stories260K-F32", 4.3167}, {"stories260K-Q4_0", 4.4665}} {
		t.Run(tc.model, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := []string{"perplexity", "-m", filepath.Join(dir, "models", tc.model+".gguf"),
				"-f", filepath.Join(dir, "perplexity", "stories-a.txt"), "-c", "128", "--kv", "f32"}
			if rc := mainArgs(args, &out, &errb); rc != 0 {
				t.Fatalf("rc %d: %s", rc, errb.String())
			}
			var ppl, pm float64
			i := strings.Index(out.String(), "Final estimate: ")
			if i < 0 {
				t.Fatalf("no final estimate in:\n%s", out.String())
			}
			if _, err := fmt.Sscanf(out.String()[i:], "Final estimate: PPL = %f +/- %f", &ppl, &pm); err != nil {
				t.Fatal(err)
			}
			if rel := math.Abs(ppl-tc.ref) / tc.ref; rel > 0.01 {
				t.Errorf("PPL %.4f, llama.cpp %.4f: %.2f%% apart", ppl, tc.ref, 100*rel)
			}
			t.Logf("PPL %.4f ± %.5f (llama.cpp %.4f)", ppl, pm, tc.ref)
		})
	}
}
