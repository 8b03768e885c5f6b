package main

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
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
			checkPerplexity(t, filepath.Join(dir, "models", tc.model+".gguf"), filepath.Join(dir, "perplexity", "stories-a.txt"), tc.ref)
		})
	}
}

// TestPerplexitySynth does the same for the mixture-of-experts synth models of the golden cases (written here
// from preset, type and seed), against the native llama.cpp build's llama-perplexity on the same files:
//
//	llama-perplexity -m MODEL -f stories-a.txt -c 128 -b 128 -t 2 -ctk f32 -ctv f32 -fa off
//
// Their text is tokenized by the synth vocabulary's bytes (18 chunks); random weights put the perplexity above
// the vocabulary's 320. (gpt-oss runs with F16 experts here: the golden cases cover MXFP4, whose reference
// kernels need AVX-VNNI, emulated on the machine that made these figures far too slowly for 2304 tokens.)
func TestPerplexitySynth(t *testing.T) {
	text := filepath.Join(testdir.Dir(t), "perplexity", "stories-a.txt")
	for _, tc := range []struct {
		preset string
		typ    quant.Type
		seed   uint64
		ref    float64
	}{{"tiny-qwen3moe", quant.Q4_K, 11, 458.1385}, {"tiny-gpt-oss", quant.F16, 12, 569.0414}, {"tiny-deepseek2", quant.Q6_K, 13, 532.1982}} {
		t.Run(tc.preset, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.gguf")
			if err := synth.Write(path, synth.Options{Preset: tc.preset, Type: tc.typ, Seed: tc.seed}); err != nil {
				t.Fatal(err)
			}
			checkPerplexity(t, path, text, tc.ref)
		})
	}
}

// checkPerplexity runs forma perplexity with an F32 cache and 128-token chunks and holds it within 1% of ref.
func checkPerplexity(t *testing.T, model, text string, ref float64) {
	t.Helper()
	var out, errb bytes.Buffer
	args := []string{"perplexity", "-m", model, "-f", text, "-c", "128", "--kv", "f32"}
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
	if rel := math.Abs(ppl-ref) / ref; rel > 0.01 {
		t.Errorf("PPL %.4f, llama.cpp %.4f: %.2f%% apart", ppl, ref, 100*rel)
	}
	t.Logf("PPL %.4f ± %.5f (llama.cpp %.4f)", ppl, pm, ref)
}
