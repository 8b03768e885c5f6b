// Package ppl computes perplexity the way llama.cpp's llama-perplexity does in its default mode, so the two
// can be compared figure for figure.
//
// The text is tokenized once (BOS added as the vocabulary asks, special-token text not parsed). It is cut into
// floor(n/ctx) non-overlapping chunks of ctx tokens; each chunk starts from an empty cache at position 0 with
// its first token replaced by BOS (when the vocabulary adds one). Only the second half of a chunk is scored: for
// positions j = ctx/2 … ctx-2, the negative log-likelihood of token j+1 under the logits at j. PPL is exp of
// the mean NLL; its uncertainty is PPL·sqrt(var(NLL)/(count-1)).
package ppl

import (
	"errors"
	"fmt"
	"math"
)

// Evaluator evaluates one chunk from an empty cache and returns logits for every position ([len][vocab]).
type Evaluator func(tokens []int32) ([]float32, error)

// Result is the outcome of a run.
type Result struct {
	Chunks  int
	Count   int       // scored tokens
	PPL     float64   // final estimate
	Err     float64   // its uncertainty (±)
	Running []float64 // running PPL after each chunk, as llama-perplexity prints "[c]x"
}

// Options configure a run.
type Options struct {
	Ctx   int   // tokens per chunk
	Vocab int   // logits per position
	BOS   int32 // the first token of each chunk; -1 keeps the text's own token
}

// Run scores tokens chunk by chunk.
func Run(tokens []int32, opt Options, eval Evaluator) (*Result, error) {
	if opt.Ctx < 4 {
		return nil, fmt.Errorf("context %d is too small for perplexity (need at least 4)", opt.Ctx)
	}
	nChunks := len(tokens) / opt.Ctx
	if nChunks == 0 {
		return nil, fmt.Errorf("the text has %d tokens, fewer than one chunk of %d: use a smaller -c", len(tokens), opt.Ctx)
	}
	r := &Result{Chunks: nChunks}
	var sum, sum2 float64
	chunk := make([]int32, opt.Ctx)
	first := opt.Ctx / 2
	for c := 0; c < nChunks; c++ {
		copy(chunk, tokens[c*opt.Ctx:(c+1)*opt.Ctx])
		if opt.BOS >= 0 {
			chunk[0] = opt.BOS
		}
		logits, err := eval(chunk)
		if err != nil {
			return nil, fmt.Errorf("chunk %d: %w", c, err)
		}
		if len(logits) != opt.Ctx*opt.Vocab {
			return nil, errors.New("evaluator returned the wrong number of logits")
		}
		for j := first; j < opt.Ctx-1; j++ {
			nll := -logProb(logits[j*opt.Vocab:(j+1)*opt.Vocab], tokens[c*opt.Ctx+j+1])
			sum += nll
			sum2 += nll * nll
			r.Count++
		}
		r.Running = append(r.Running, math.Exp(sum/float64(r.Count)))
	}
	mean := sum / float64(r.Count)
	r.PPL = math.Exp(mean)
	if r.Count > 1 {
		v := sum2/float64(r.Count) - mean*mean
		r.Err = r.PPL * math.Sqrt(math.Max(v, 0)/float64(r.Count-1))
	}
	return r, nil
}

// logProb returns log softmax(logits)[tok], computed in float64.
func logProb(logits []float32, tok int32) float64 {
	m := math.Inf(-1)
	for _, v := range logits {
		m = math.Max(m, float64(v))
	}
	s := 0.0
	for _, v := range logits {
		s += math.Exp(float64(v) - m)
	}
	return float64(logits[tok]) - m - math.Log(s)
}
