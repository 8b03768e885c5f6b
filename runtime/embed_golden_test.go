package runtime_test

import (
	"strings"
	"testing"

	"github.com/forma-llm/forma/internal/golden/embedding"
)

// TestEmbedGolden holds the CPU backend to llama.cpp's pooled embeddings and rank scores of the synth models of
// internal/golden/embedding: the same tokens, cosine similarity ≥ 0.9999 per text, documents in the same order.
func TestEmbedGolden(t *testing.T) {
	if raceEnabled {
		t.Skip("arithmetic, not concurrency: TestEmbedConcurrent runs under the race detector")
	}
	names, err := embedding.Cases()
	if err != nil || len(names) == 0 {
		t.Fatalf("no embedding cases: %v", err)
	}
	dir := t.TempDir()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			if testing.Short() && !strings.HasSuffix(name, "-q8_0") {
				t.Skip("short mode: the Q8_0 case of each model")
			}
			c, err := embedding.Load(name)
			if err != nil {
				t.Fatal(err)
			}
			be := newCPU(t, 2)
			r, err := c.Run(dir, be, embedding.Options{})
			be.Close()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("least cosine %.7f over %d inputs", r.MinCos(), len(r.Cosines))
			for _, f := range r.Failures {
				t.Error(f)
			}
		})
	}
}
