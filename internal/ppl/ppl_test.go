package ppl

import (
	"math"
	"testing"
)

// TestUniform checks the method on a model that predicts uniformly over V tokens: every NLL is ln V, so the
// perplexity is exactly V with zero spread, and the scored count is chunks × (ctx/2 - 1).
func TestUniform(t *testing.T) {
	const V, ctx = 7, 8
	tokens := make([]int32, 3*ctx+5) // 3 chunks; the tail is ignored
	for i := range tokens {
		tokens[i] = int32(i % V)
	}
	r, err := Run(tokens, Options{Ctx: ctx, Vocab: V, BOS: 1}, func(c []int32) ([]float32, error) {
		return make([]float32, len(c)*V), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Chunks != 3 || r.Count != 3*(ctx/2-1) {
		t.Fatalf("chunks %d count %d, want 3 and %d", r.Chunks, r.Count, 3*(ctx/2-1))
	}
	if math.Abs(r.PPL-V) > 1e-9 || r.Err != 0 {
		t.Errorf("PPL %v ± %v, want %d ± 0", r.PPL, r.Err, V)
	}
}

// TestScoredPositions checks which positions are scored and against which token: a model that puts all its mass
// on the true next token at scored positions has PPL 1.
func TestScoredPositions(t *testing.T) {
	const V, ctx = 5, 6
	tokens := []int32{0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1}
	r, err := Run(tokens, Options{Ctx: ctx, Vocab: V, BOS: -1}, func(c []int32) ([]float32, error) {
		out := make([]float32, len(c)*V)
		for j := range c {
			next := (c[j] + 1) % V // the sequence counts up modulo V
			out[j*V+int(next)] = 100
		}
		return out, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.PPL > 1+1e-9 {
		t.Errorf("PPL %v, want 1", r.PPL)
	}
}

func TestTooShort(t *testing.T) {
	if _, err := Run(make([]int32, 5), Options{Ctx: 8, Vocab: 2}, nil); err == nil {
		t.Error("a text shorter than one chunk was accepted")
	}
}
