package sample

import (
	"fmt"
	"math/rand/v2"
)

// Options are the sampling parameters, named and defaulted as llama.cpp's.
type Options struct {
	Temperature   float32 // 0: greedy
	TopK          int     // 0: off
	TopP          float32 // 1: off
	MinP          float32 // 0: off
	TypicalP      float32 // 1: off
	RepeatPenalty float32 // 1: off
	FreqPenalty   float32
	PresPenalty   float32
	RepeatLastN   int               // how many recent tokens the penalties look at (-1: the whole context)
	LogitBias     map[int32]float32 // added to a token's logit first (use -Inf to ban a token)
	Seed          uint64            // RandomSeed: a new random seed for each Sampler
	MinKeep       int               // each truncating stage keeps at least this many tokens (default 1)
}

// RandomSeed asks New to draw a fresh seed (llama.cpp's LLAMA_DEFAULT_SEED); Sampler.Options reports the seed
// drawn, so a run can be repeated.
const RandomSeed = ^uint64(0)

// Defaults returns llama.cpp's default sampling parameters.
func Defaults() Options {
	return Options{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, TypicalP: 1, RepeatPenalty: 1,
		RepeatLastN: 64, Seed: RandomSeed, MinKeep: 1}
}

// Validate reports parameters out of range.
func (o Options) Validate() error {
	switch {
	case o.Temperature < 0:
		return fmt.Errorf("temperature %g must not be negative", o.Temperature)
	case o.TopK < 0:
		return fmt.Errorf("top-k %d must not be negative", o.TopK)
	case o.TopP <= 0 || o.TopP > 1:
		return fmt.Errorf("top-p %g must be in (0, 1]", o.TopP)
	case o.MinP < 0 || o.MinP >= 1:
		return fmt.Errorf("min-p %g must be in [0, 1)", o.MinP)
	case o.TypicalP <= 0 || o.TypicalP > 1:
		return fmt.Errorf("typical-p %g must be in (0, 1]", o.TypicalP)
	case o.RepeatPenalty < 0:
		return fmt.Errorf("repeat penalty %g must not be negative", o.RepeatPenalty)
	}
	return nil
}

// Sampler applies the chain. It is used by one goroutine at a time.
type Sampler struct {
	opt     Options
	rng     *rand.Rand
	cand    Candidates
	counts  []int32
	scratch []float32
}

// New returns a sampler for opt (already validated or from Defaults).
func New(opt Options) (*Sampler, error) {
	if opt.MinKeep <= 0 {
		opt.MinKeep = 1
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	for opt.Seed == RandomSeed {
		opt.Seed = rand.Uint64()
	}
	return &Sampler{opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15))}, nil
}

// Options returns the sampler's parameters, with the seed it was given or drew.
func (s *Sampler) Options() Options { return s.opt }

// Sample picks the next token from logits (which it does not modify) given the tokens so far.
func (s *Sampler) Sample(logits []float32, history []int32) int32 {
	if cap(s.scratch) < len(logits) {
		s.scratch, s.counts = make([]float32, len(logits)), make([]int32, len(logits))
	}
	l := s.scratch[:len(logits)]
	copy(l, logits)
	for id, b := range s.opt.LogitBias {
		if id >= 0 && int(id) < len(l) {
			l[id] += b
		}
	}
	if n := s.opt.RepeatLastN; n >= 0 && len(history) > n {
		history = history[len(history)-n:]
	}
	Penalties(l, history, s.opt.RepeatPenalty, s.opt.FreqPenalty, s.opt.PresPenalty, s.counts[:len(l)])
	c := &s.cand
	c.Reset(l)
	if s.opt.Temperature <= 0 {
		return Greedy(c)
	}
	TopK(c, s.opt.TopK)
	Typical(c, s.opt.TypicalP, s.opt.MinKeep)
	TopP(c, s.opt.TopP, s.opt.MinKeep)
	MinP(c, s.opt.MinP, s.opt.MinKeep)
	Temperature(c, s.opt.Temperature)
	return Draw(c, s.rng.Float64())
}
