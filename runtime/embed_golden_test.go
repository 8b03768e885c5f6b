package runtime_test

import (
	"testing"

	"github.com/forma-llm/forma/internal/golden/embedding"
)

// TestEmbedGolden holds the CPU backend to llama.cpp's pooled embeddings and rank scores of the synth models of
// internal/golden/embedding: the same tokens, cosine similarity ≥ 0.9999 per text, documents in the same order.
func TestEmbedGolden(t *testing.T) {
	names, err := embedding.Cases()
	if err != nil || len(names) == 0 {
		t.Fatalf("no embedding cases: %v", err)
	}
	dir := t.TempDir()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
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
