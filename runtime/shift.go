package runtime

import (
	"context"
	"fmt"
)

// keepLen is the number of tokens a context shift keeps, as llama-cli computes n_keep: Keep < 0 or beyond the
// prompt keeps the whole prompt; otherwise Keep tokens plus the BOS the vocabulary adds. It never exceeds half
// the context, so that a shift always frees room.
func (s *Session) keepLen(promptLen int) int {
	k := s.opt.Keep
	switch {
	case k < 0 || k > promptLen:
		k = promptLen
	case s.m.Tokenizer.AddBOS():
		k++
	}
	return min(k, s.ctx/2)
}

// fitPrompt cuts a prompt that does not fit the context (len ≥ ctx) the way repeated context shifts would: keep
// the first keep tokens, drop the oldest half of the rest, until there is room for at least one more token.
func fitPrompt(prompt []int32, keep, ctx int) []int32 {
	p := append([]int32(nil), prompt...)
	for len(p) >= ctx {
		discard := max((len(p)-keep)/2, 1)
		p = append(p[:keep], p[keep+discard:]...)
	}
	return p
}

// shift frees room in a full cache: it keeps the first keepLen tokens, drops the oldest half of the rest and
// evaluates the remaining tokens again at their new positions (keys are rotated by position, so moved keys need
// recomputing; llama.cpp rotates them in place instead).
func (s *Session) shift(ctx context.Context) error {
	toks := s.seq.toks
	keep := s.keepLen(s.promptLen)
	discard := (len(toks) - keep) / 2
	if discard == 0 {
		return fmt.Errorf("%w: a context shift has nothing to drop (keep %d of %d)", ErrContextFull, keep, s.ctx)
	}
	s.gen.shifted = append(s.gen.shifted[:0], toks[keep+discard:]...)
	s.stats.Shifts++
	_, err := s.seq.run(ctx, keep, s.gen.shifted, false)
	return err
}
