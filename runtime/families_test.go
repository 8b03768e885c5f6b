package runtime_test

import (
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/runtime"
)

// TestBatchInvarianceFamilies is TestBatchInvarianceMoE on the dense families' tiny models: mistral3's
// temperature by position, granite's multipliers, olmo2's whole-projection norms, smollm3's layer without
// RoPE, gemma2's soft-capped, windowed attention and lfm2's short convolutions (their state in the pages of
// each sequence) must give each sequence the bits it gets alone.
func TestBatchInvarianceFamilies(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		preset string
		typ    quant.Type
	}{{"tiny-mistral3", quant.Q4_K}, {"tiny-granite", quant.Q6_K}, {"tiny-olmo2", quant.Q8_0},
		{"tiny-smollm3", quant.Q4_0}, {"tiny-gemma2", quant.Q8_0}, {"tiny-lfm2", quant.Q4_K}} {
		t.Run(c.preset+"/"+c.typ.String(), func(t *testing.T) { batchInvariance(t, dir, c.preset, c.typ, runtime.KVF16) })
	}
}
