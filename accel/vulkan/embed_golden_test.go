package vulkan_test

import (
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel/vulkan"
	"github.com/forma-llm/forma/internal/golden/embedding"
)

// vulkanMaxTokens leaves the longest inputs to the CPU's run: lavapipe's attention takes seconds per pass of
// a few hundred tokens.
const vulkanMaxTokens = 64

// TestEmbedGolden holds the Vulkan backend to llama.cpp's pooled embeddings and rank scores of the synth models
// of internal/golden/embedding, as runtime's TestEmbedGolden holds the CPU: the same tokens, cosine similarity
// ≥ 0.9999 per text, a reranker's documents in llama.cpp's order (the inputs of at most vulkanMaxTokens
// tokens). One validated device serves every case.
func TestEmbedGolden(t *testing.T) {
	names, err := embedding.Cases()
	if err != nil || len(names) == 0 {
		t.Fatalf("no embedding cases: %v", err)
	}
	dev := goldenDevice(t)
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
			be, err := vulkan.NewBackendOn(dev)
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.Run(dir, be, embedding.Options{MaxTokens: vulkanMaxTokens})
			if cerr := be.Close(); cerr != nil {
				t.Error(cerr)
			}
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
