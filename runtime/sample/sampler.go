package sample

import (
	"math/rand/v2"
)

// Options are the sampling parameters, named and defaulted as llama.cpp's (common_params_sampling). Params lists
// each one's names on the command line, in the REPL, in GGUF files and in HTTP requests, and its valid range.
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

	// DRY ("don't repeat yourself") lowers the logit of a token that would extend a repetition of the recent
	// context longer than DRYAllowedLength tokens by DRYMultiplier·DRYBase^(length−DRYAllowedLength).
	DRYMultiplier       float32  // 0: off
	DRYBase             float32  // at least 1
	DRYAllowedLength    int      // repetitions up to this many tokens go unpenalized
	DRYPenaltyLastN     int      // how many recent tokens DRY scans (-1: the whole context; 0: off)
	DRYSequenceBreakers []string // texts that end a repetition (a token containing one is never penalized)

	// XTC ("exclude top choices"), with probability XTCProbability for each token, removes every token at
	// least as likely as XTCThreshold except the least likely of them.
	XTCProbability float32 // 0: off
	XTCThreshold   float32 // above 0.5: off

	TopNSigma float32 // keep the tokens within TopNSigma standard deviations of the top logit (≤ 0: off)

	// Mirostat replaces the truncating samplers, the penalties and DRY (as in llama.cpp) with a sampler that
	// keeps the surprise of the text near MirostatTau: 1 for Mirostat, 2 for Mirostat 2.0, 0 off.
	Mirostat    int
	MirostatTau float32 // target surprise (entropy), in bits
	MirostatEta float32 // learning rate
}

// RandomSeed asks New to draw a fresh seed (llama.cpp's LLAMA_DEFAULT_SEED); Sampler.Options reports the seed
// drawn, so a run can be repeated.
const RandomSeed = ^uint64(0)

// Defaults returns llama.cpp's default sampling parameters.
func Defaults() Options {
	return Options{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05, TypicalP: 1, RepeatPenalty: 1,
		RepeatLastN: 64, Seed: RandomSeed, MinKeep: 1,
		DRYBase: 1.75, DRYAllowedLength: 2, DRYPenaltyLastN: -1, DRYSequenceBreakers: []string{"\n", ":", "\"", "*"},
		XTCThreshold: 0.1, TopNSigma: -1, MirostatTau: 5, MirostatEta: 0.1}
}

// Sampler applies the chain. It is used by one goroutine at a time.
type Sampler struct {
	opt     Options
	rng     *rand.Rand
	cand    Candidates
	counts  []int32
	scratch []float32
	dry     dry
	mu      float32 // Mirostat's running surprise bound
}

// New returns a sampler for opt. With DRY on and sequence breakers given it needs the vocabulary: use NewFor.
func New(opt Options) (*Sampler, error) { return NewFor(opt, nil) }

// NewFor returns a sampler for opt on a model's vocabulary, which DRY needs to find its sequence breakers among
// the tokens (v may be nil when DRY is off or has no breakers).
func NewFor(opt Options, v Vocab) (*Sampler, error) {
	if opt.MinKeep <= 0 {
		opt.MinKeep = 1
	}
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	for opt.Seed == RandomSeed {
		opt.Seed = rand.Uint64()
	}
	s := &Sampler{opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15)), mu: 2 * opt.MirostatTau}
	if err := s.dry.init(opt, v); err != nil {
		return nil, err
	}
	return s, nil
}

// Options returns the sampler's parameters, with the seed it was given or drew.
func (s *Sampler) Options() Options { return s.opt }

// Sample picks the next token from logits (which it does not modify) given the tokens so far, through
// llama.cpp's chain: logit bias, penalties, DRY, top-n-σ, top-k, typical-p, top-p, min-p, XTC, temperature and a
// seeded draw — or, with Mirostat, logit bias, temperature and Mirostat. At temperature 0 the token is the most
// likely one the chain leaves (of the truncating stages only typical-p and XTC can remove the most likely token,
// so without them the chain stops after DRY).
func (s *Sampler) Sample(logits []float32, history []int32) int32 {
	id, _ := s.sample(logits, history, -1)
	return id
}

// Verify decides whether a drafted token stands, for speculative decoding: the token at this position is the
// draft with the probability the chain gives it, else a token drawn from the chain's distribution without the
// draft — so the tokens that come out follow the chain's distribution exactly (speculative sampling with a draft
// that proposes one token). At temperature 0 the draft stands when it is the chain's choice. It returns the
// token and whether it is the draft. Mirostat has no such rule: Verify then samples as Sample does and the
// draft stands only if drawn.
func (s *Sampler) Verify(logits []float32, history []int32, draft int32) (int32, bool) {
	return s.sample(logits, history, draft)
}

// sample is Sample, or Verify of draft when draft ≥ 0.
func (s *Sampler) sample(logits []float32, history []int32, draft int32) (int32, bool) {
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
	o := &s.opt
	c := &s.cand
	if o.Mirostat != 0 {
		c.Reset(l)
		id := s.mirostat(c)
		return id, id == draft
	}
	pen := history
	if n := o.RepeatLastN; n >= 0 && len(pen) > n {
		pen = pen[len(pen)-n:]
	}
	Penalties(l, pen, o.RepeatPenalty, o.FreqPenalty, o.PresPenalty, s.counts[:len(l)])
	s.dry.apply(l, history)
	c.Reset(l)
	if o.Temperature <= 0 && o.TypicalP >= 1 && !s.xtcOn() {
		id := Greedy(c) // no other stage can remove the most likely token
		return id, id == draft
	}
	TopNSigma(c, o.TopNSigma)
	TopK(c, o.TopK)
	Typical(c, o.TypicalP, o.MinKeep)
	TopP(c, o.TopP, o.MinKeep)
	MinP(c, o.MinP, o.MinKeep)
	if s.xtcOn() && len(c.Items) >= 2 { // one draw per token, as llama.cpp
		XTC(c, o.XTCProbability, o.XTCThreshold, o.MinKeep, s.rng.Float32())
	}
	if o.Temperature <= 0 {
		id := Greedy(c)
		return id, id == draft
	}
	Temperature(c, o.Temperature)
	if draft < 0 {
		return Draw(c, s.rng.Float64()), false
	}
	c.Softmax()
	at := -1
	for i, it := range c.Items {
		if it.ID == draft {
			at = i
		}
	}
	if at >= 0 && s.rng.Float64() < float64(c.Items[at].P) {
		return draft, true
	}
	if at >= 0 && len(c.Items) > 1 { // the residual: the distribution without the draft, renormalised
		c.Items = append(c.Items[:at], c.Items[at+1:]...)
	}
	return Draw(c, s.rng.Float64()), false
}

func (s *Sampler) xtcOn() bool { return s.opt.XTCProbability > 0 && s.opt.XTCThreshold <= 0.5 }

// mirostat runs temperature then Mirostat (v1 or v2) and updates the surprise bound from the token drawn.
func (s *Sampler) mirostat(c *Candidates) int32 {
	o := &s.opt
	var id int32
	var p float32
	switch {
	case o.Temperature <= 0: // llama.cpp's temperature 0 leaves one token, of probability 1
		id, p = Greedy(c), 1
	case o.Mirostat == 1:
		Temperature(c, o.Temperature)
		id, p = MirostatV1(c, s.mu, len(c.Items), s.rng.Float64())
	default:
		Temperature(c, o.Temperature)
		id, p = MirostatV2(c, s.mu, s.rng.Float64())
	}
	s.mu -= o.MirostatEta * (surprise(p) - o.MirostatTau)
	return id
}
