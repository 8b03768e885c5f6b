package runtime

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Speculation configures speculative decoding: cheap guesses of the next tokens (drafts) are evaluated by the
// model in one pass with the token just chosen, and each draft stands if the sampler would have chosen it
// (sample.Sampler.Verify), so several tokens can come out of one pass. The output is the same as without
// speculation: exactly so at temperature 0, and in distribution when sampling. Drafts come from a smaller model
// with the same vocabulary (Draft), or, without one, from the context itself (Lookup: prompt lookup decoding,
// which pays off when the answer repeats the prompt).
type Speculation struct {
	// Draft drafts tokens greedily; it must have the model's vocabulary. Nil: no draft model.
	Draft *Model
	// Lookup, without a draft model, drafts the tokens that followed the last earlier occurrence of the
	// context's final n-gram, trying n = Lookup down to 1 (0: off), as many as pay for the rows they add to
	// a pass at the rates at which drafts have been standing (draftSizer). One scan of the context
	// finds it whatever Lookup is, so a large one (the occurrence that agrees with the context's end the
	// longest) costs no more than 3.
	Lookup int
	// Max and Min bound the drafts of one step (llama.cpp's --draft-max, --draft-min; Max 0 means 16). A step
	// with fewer than Min drafts evaluates the chosen token alone.
	Max, Min int
	// PMin stops a draft model's guesses at the first whose probability under the draft is below it (llama.cpp's
	// --draft-p-min; 0 means 0.8).
	PMin float32
}

// Defaults of Speculation.
const (
	DefaultDraftMax  = 16
	DefaultDraftPMin = 0.8
)

// on reports whether the options ask for speculation.
func (sp *Speculation) on() bool { return sp != nil && (sp.Draft != nil || sp.Lookup > 0) }

// check validates the options against the target model.
func (sp *Speculation) check(m *Model) error {
	if !sp.on() {
		return nil
	}
	if sp.Max < 0 || sp.Min < 0 || sp.Lookup < 0 || sp.PMin < 0 || sp.PMin > 1 {
		return fmt.Errorf("runtime: speculation %+v: bounds must not be negative (p-min in [0, 1])", *sp)
	}
	if sp.Min > sp.max() {
		return fmt.Errorf("runtime: speculation: the minimum of %d drafts exceeds the maximum of %d", sp.Min, sp.max())
	}
	if d := sp.Draft; d != nil {
		if d.HParams().Vocab != m.HParams().Vocab {
			return fmt.Errorf("runtime: the draft model has a vocabulary of %d, the model %d", d.HParams().Vocab, m.HParams().Vocab)
		}
	}
	return nil
}

func (sp *Speculation) max() int {
	if sp.Max == 0 {
		return DefaultDraftMax
	}
	return sp.Max
}

func (sp *Speculation) pMin() float32 {
	if sp.PMin == 0 {
		return DefaultDraftPMin
	}
	return sp.PMin
}

// drafter proposes drafts for one session.
type drafter struct {
	sp    *Speculation
	draft *Session // of the draft model, made at the first draft
	buf   []int32
	size  draftSizer
	costs *passCosts // the engine's
}

// feedback records how many of the last step's lookup drafts stood, for the sizer: a draft costs a row of the
// pass whether it stands or not, and how many pay for their rows depends on the rates at which drafts have
// been standing (draftSizer).
func (d *drafter) feedback(drafted, accepted int) {
	if drafted == 0 || d.sp.Draft != nil {
		return // a draft model's guesses stop on their own probability (PMin)
	}
	d.size.feedback(drafted, accepted)
}

// propose returns up to n drafts to follow hist (the tokens so far, the chosen one last). The slice is reused.
func (d *drafter) propose(ctx context.Context, hist []int32, n int) ([]int32, error) {
	d.buf = d.buf[:0]
	if n <= 0 {
		return d.buf, nil
	}
	if d.sp.Draft != nil {
		return d.fromModel(ctx, hist, n)
	}
	drafts := d.lookup(hist, n)
	if len(drafts) > 0 { // the sizer's choice, or the minimum (fewer than it are dropped by the caller)
		drafts = drafts[:min(len(drafts), max(d.size.size(d.costs, len(drafts), len(hist)-1), d.sp.Min))]
	}
	return drafts, nil
}

// lookup drafts the tokens after the last earlier occurrence of hist's final k tokens, for k = Lookup … 1: in
// one scan of hist from the end, the latest position whose tokens agree with hist's last ones the longest,
// counting at most Lookup (what trying k = Lookup, Lookup−1, … in turn would find, at a cost that does not
// grow with Lookup).
func (d *drafter) lookup(hist []int32, n int) []int32 {
	last := len(hist) - 1
	best, at := 0, -1
	for e := last - 1; e >= 0 && best < d.sp.Lookup; e-- {
		if hist[e] != hist[last] {
			continue
		}
		k := 1
		for k < d.sp.Lookup && k <= e && hist[e-k] == hist[last-k] {
			k++
		}
		if k > best {
			best, at = k, e
		}
	}
	if at >= 0 {
		d.buf = append(d.buf, hist[at+1:min(len(hist), at+1+n)]...) // kept: the next step reuses it
	}
	return d.buf
}

// fromModel brings the draft model's session to hist (keeping what it shares) and takes its greedy tokens
// while they are likely enough.
func (d *drafter) fromModel(ctx context.Context, hist []int32, n int) ([]int32, error) {
	if d.draft == nil {
		s, err := d.sp.Draft.NewSession(SessionOptions{Ctx: cap(hist)}) // the session's context
		if err != nil {
			return nil, fmt.Errorf("runtime: draft model: %w", err)
		}
		d.draft = s
	}
	s := d.draft
	if len(hist)+n > s.ctx {
		return d.buf, nil
	}
	keep := min(commonPrefix(s.seq.toks, hist), len(hist)-1)
	logits, err := s.seq.run(ctx, keep, hist[keep:], false)
	if err != nil {
		return nil, err
	}
	pMin := d.sp.pMin()
	for len(d.buf) < n {
		id, p := greedyProb(logits)
		if p < pMin {
			break
		}
		d.buf = append(d.buf, id)
		if len(d.buf) == n {
			break
		}
		one := d.buf[len(d.buf)-1:]
		if logits, err = s.seq.run(ctx, len(s.seq.toks), one, false); err != nil {
			return nil, err
		}
	}
	return d.buf, nil
}

// greedyProb returns the most likely token and its softmax probability.
func greedyProb(logits []float32) (int32, float32) {
	best := 0
	for i, v := range logits {
		if v > logits[best] {
			best = i
		}
	}
	var sum float64
	m := float64(logits[best])
	for _, v := range logits {
		sum += math.Exp(float64(v) - m)
	}
	return int32(best), float32(1 / sum)
}

func (d *drafter) close() {
	if d.draft != nil {
		d.draft.Close()
		d.draft = nil
	}
}

// errNoSpeculation: mirostat keeps a state that a rejected draft would have to roll back.
var errNoSpeculation = errors.New("runtime: speculative decoding does not work with mirostat")
