package grammar

import (
	"fmt"
	"math"
	"math/bits"
)

// Matcher is the state of one generation under a compiled grammar: which tokens may come next (FillMask,
// MaskLogits), the token chosen (Accept), whether the output is a whole sentence of the grammar (Complete), and
// a history to undo tokens (Rollback). A Matcher is used by one goroutine at a time; once warm it allocates
// nothing per token.
type Matcher struct {
	c     *Compiled
	eng   *engine
	cur   int32   // the configuration after the tokens accepted so far
	hist  []int32 // configurations before each accepted token
	ended bool    // an end-of-generation token was accepted
	limit int     // the budget: most tokens after the first base ones (negative: none)
	base  int
	tops  []int32
	cfgAt []int32
	mask  []uint64
}

// maxWarmStacks bounds the stacks a Matcher keeps interned across Reset.
const maxWarmStacks = 1 << 16

// NewMatcher starts a generation at the beginning of the grammar.
func (c *Compiled) NewMatcher() *Matcher {
	m := &Matcher{c: c, eng: newEngine(c.p), cfgAt: make([]int32, c.v.maxLen+1)}
	m.Reset()
	return m
}

// Reset goes back to the beginning of the grammar. The memoized steps are kept (a new generation with the same
// grammar starts warm) unless they have grown large.
func (m *Matcher) Reset() {
	if len(m.eng.stState) > maxWarmStacks {
		m.eng.reset()
	}
	m.cur = m.eng.start(m.c.p.ruleStart[m.c.p.root])
	m.hist = m.hist[:0]
	m.ended = false
	m.limit = -1
}

// SetBudget limits the generation to n more tokens (n < 0: no limit). With a budget, Choose keeps the output
// completable: once a sampled token would leave too few tokens to finish the grammar, it takes instead the
// likeliest token on a shortest way to the end. So whenever the budget is at least MinTokens, the output is
// complete when the budget runs out.
func (m *Matcher) SetBudget(n int) { m.limit, m.base = n, len(m.hist) }

// Budget returns the tokens left of the budget (negative: none set).
func (m *Matcher) Budget() int {
	if m.limit < 0 {
		return -1
	}
	return m.limit - (len(m.hist) - m.base)
}

// left is the number of tokens left in the budget, negative without one.
func (m *Matcher) left() int {
	if m.limit < 0 {
		return -1
	}
	return max(m.limit-(len(m.hist)-m.base), 0)
}

// MinTokens is an upper bound on the tokens needed to complete the output from here (0 when it is complete).
func (m *Matcher) MinTokens() int { return int(m.eng.cfgDist[m.cur]) }

// Complete reports whether the tokens so far form a whole sentence of the grammar (an end-of-generation token
// is allowed only then).
func (m *Matcher) Complete() bool { return m.eng.cfgEnd[m.cur] }

// Done reports whether the output is complete and nothing more can follow: generation should end.
func (m *Matcher) Done() bool { return m.ended || m.Complete() && len(m.eng.stacks(m.cur)) == 0 }

// Accept advances past token id. A token the grammar does not allow here is an error (and changes nothing).
func (m *Matcher) Accept(id int32) error {
	v := m.c.v
	if id < 0 || int(id) >= v.n {
		return fmt.Errorf("grammar: token %d is outside the vocabulary of %d", id, v.n)
	}
	if m.ended {
		return fmt.Errorf("grammar: token %d after the end of generation", id)
	}
	if v.isEOG(id) {
		if !m.Complete() {
			return fmt.Errorf("grammar: end-of-generation token %d before the grammar is complete", id)
		}
		m.hist = append(m.hist, m.cur)
		m.ended = true
		return nil
	}
	next := m.eng.acceptToken(m.cur, id, v)
	if next == dead {
		return fmt.Errorf("grammar: token %d (%q) is not allowed here", id, v.pieces[id])
	}
	m.commit(next)
	return nil
}

func (m *Matcher) commit(next int32) {
	m.hist = append(m.hist, m.cur)
	m.cur = next
}

// Choose accepts a sampled token, or replaces it: when it is not allowed (a sampler can pick a token of
// probability zero through rounding) or, under a budget, when it would leave too few tokens to complete the
// output, the token with the highest logit among the allowed ones (on a shortest way to the end, under a
// budget) is accepted instead. logits are the masked logits the token was sampled from. It returns the token
// accepted.
func (m *Matcher) Choose(id int32, logits []float32) (int32, error) {
	v := m.c.v
	if m.ended {
		return id, fmt.Errorf("grammar: token %d after the end of generation", id)
	}
	if id >= 0 && int(id) < v.n {
		if v.isEOG(id) && m.Complete() {
			m.hist = append(m.hist, m.cur)
			m.ended = true
			return id, nil
		}
		if !v.isEOG(id) {
			if next := m.eng.acceptToken(m.cur, id, v); next != dead && m.fits(next) {
				m.commit(next)
				return id, nil
			}
		}
	}
	if len(m.mask) != m.c.MaskWords() {
		m.mask = make([]uint64, m.c.MaskWords())
	}
	if m.limit >= 0 {
		m.closingMask(m.mask)
	} else {
		m.FillMask(m.mask)
	}
	best := int32(-1)
	for w, word := range m.mask {
		for ; word != 0; word &= word - 1 {
			i := int32(w*64 + bits.TrailingZeros64(word))
			if best < 0 || int(i) < len(logits) && (int(best) >= len(logits) || logits[i] > logits[best]) {
				best = i
			}
		}
	}
	if best < 0 {
		return id, fmt.Errorf("grammar: no token can continue the output")
	}
	if v.isEOG(best) {
		m.hist = append(m.hist, m.cur)
		m.ended = true
		return best, nil
	}
	next := m.eng.acceptToken(m.cur, best, v)
	if next == dead {
		return id, fmt.Errorf("grammar: internal error: token %d was allowed but does not advance", best)
	}
	m.commit(next)
	return best, nil
}

// fits reports whether configuration next can still be completed within the budget left after one token.
func (m *Matcher) fits(next int32) bool {
	return m.limit < 0 || int(m.eng.cfgDist[next]) <= m.left()-1
}

// closingMask sets the tokens that bring the output closer to its end along a shortest way (each byte one step
// nearer), and the end-of-generation tokens when it is complete.
func (m *Matcher) closingMask(mask []uint64) {
	clear(mask)
	eng, v, p := m.eng, m.c.v, m.c.p
	d := eng.cfgDist[m.cur]
	if eng.cfgEnd[m.cur] {
		for _, id := range v.eog {
			mask[id>>6] |= 1 << (id & 63)
		}
	}
	if d == 0 {
		if len(v.eog) > 0 || len(eng.stacks(m.cur)) == 0 {
			return
		}
		m.FillMask(mask) // complete, no way to say so: any continuation
		return
	}
	var visit func(first, end int32, c int32, d int32)
	visit = func(first, end int32, c int32, d int32) {
		for i := first; i < end; i = v.nodes[i].end {
			nd := &v.nodes[i]
			next := eng.step(c, p.classOf[nd.b])
			if next == dead || eng.cfgDist[next] != d-1 {
				continue
			}
			for k := nd.pos; k < nd.pos+int32(nd.toks); k++ {
				id := v.sorted[k]
				mask[id>>6] |= 1 << (id & 63)
			}
			if d > 1 && i+1 < nd.end {
				visit(i+1, nd.end, next, d-1)
			}
		}
	}
	visit(0, int32(len(v.nodes)), m.cur, d)
	for _, s := range eng.stacks(m.cur) {
		for _, ed := range p.tokEdges(eng.stState[s]) {
			ts := &p.tokSets[ed.label]
			if ts.neg {
				continue
			}
			for _, id := range ts.ids {
				if next := eng.acceptToken(m.cur, id, v); next != dead && eng.cfgDist[next] < d {
					mask[id>>6] |= 1 << (id & 63)
				}
			}
		}
	}
}

// AcceptBytes advances past text b as if written by tokens of single bytes; it reports whether the grammar
// allows it (and changes nothing when not). It counts as one step for Rollback.
func (m *Matcher) AcceptBytes(b []byte) bool {
	next := m.eng.walk(m.cur, b)
	if next == dead || m.ended {
		return false
	}
	m.commit(next)
	return true
}

// Allowed reports whether token id may come next (one token's check; FillMask computes them all).
func (m *Matcher) Allowed(id int32) bool {
	v := m.c.v
	if id < 0 || int(id) >= v.n || m.ended {
		return false
	}
	if v.isEOG(id) {
		return m.Complete()
	}
	return m.eng.acceptToken(m.cur, id, v) != dead
}

// Rollback undoes the last n accepted tokens.
func (m *Matcher) Rollback(n int) error {
	if n < 0 || n > len(m.hist) {
		return fmt.Errorf("grammar: cannot roll back %d tokens of %d", n, len(m.hist))
	}
	if n == 0 {
		return nil
	}
	m.cur = m.hist[len(m.hist)-n]
	m.hist = m.hist[:len(m.hist)-n]
	m.ended = false
	return nil
}

// Compiled returns the compiled grammar the matcher runs.
func (m *Matcher) Compiled() *Compiled { return m.c }

// Accepted is the number of tokens accepted (and not rolled back).
func (m *Matcher) Accepted() int { return len(m.hist) }

// FillMask sets in mask (MaskWords long) the bit of every token that may come next: tokens that keep the
// output a prefix of some sentence of the grammar, and end-of-generation tokens when it is complete.
func (m *Matcher) FillMask(mask []uint64) {
	clear(mask)
	if m.ended {
		return
	}
	eng, v := m.eng, m.c.v
	if eng.cfgEnd[m.cur] {
		for _, id := range v.eog {
			mask[id>>6] |= 1 << (id & 63)
		}
	}
	m.tops = m.tops[:0]
	for _, s := range eng.stacks(m.cur) {
		q := eng.stState[s]
		seen := false
		for _, t := range m.tops {
			seen = seen || t == q
		}
		if !seen {
			m.tops = append(m.tops, q)
		}
	}
	for _, q := range m.tops {
		e := m.c.entry(q)
		if e.bits != nil {
			for i, w := range e.bits {
				mask[i] |= w
			}
		}
		for _, id := range e.ids {
			mask[id>>6] |= 1 << (id & 63)
		}
	}
	for _, q := range m.tops {
		m.checkUnsure(m.c.entry(q).unsure, mask)
	}
}

// checkUnsure walks the unsure tokens of a state from the whole configuration, sharing common prefixes.
func (m *Matcher) checkUnsure(list []unsureToken, mask []uint64) {
	eng, v, classOf := m.eng, m.c.v, &m.c.p.classOf
	m.cfgAt[0] = m.cur
	valid := 0 // cfgAt[:valid+1] hold the configurations along the previous token's bytes
	for _, u := range list {
		valid = min(valid, int(u.lcp))
		if mask[u.id>>6]&(1<<(u.id&63)) != 0 {
			continue
		}
		p := v.pieces[u.id]
		d, cur := valid, m.cfgAt[valid]
		for d < len(p) && cur != dead {
			cur = eng.step(cur, classOf[p[d]])
			d++
			m.cfgAt[d] = cur
		}
		valid = d
		if cur != dead && d == len(p) {
			mask[u.id>>6] |= 1 << (u.id & 63)
		}
	}
}

// MaskLogits sets the logit of every token that may not come next to -Inf. logits may be longer than the
// vocabulary (padded output rows): the extra entries are masked too.
func (m *Matcher) MaskLogits(logits []float32) {
	if len(m.mask) != m.c.MaskWords() {
		m.mask = make([]uint64, m.c.MaskWords())
	}
	m.FillMask(m.mask)
	ApplyMask(logits, m.mask, m.c.v.n)
}

var negInf64 = func() (a [64]float32) {
	for i := range a {
		a[i] = float32(math.Inf(-1))
	}
	return
}()

// ApplyMask sets logits[i] to -Inf for every i < n whose bit is clear in mask, and for every i >= n.
func ApplyMask(logits []float32, mask []uint64, n int) {
	ninf := float32(math.Inf(-1))
	n = min(n, len(logits))
	for w := 0; w*64 < n; w++ {
		word, base := mask[w], w*64
		if rest := n - base; rest < 64 {
			word |= ^uint64(0) << rest // past n: handled below
		}
		switch word {
		case ^uint64(0):
			continue
		case 0:
			copy(logits[base:base+64], negInf64[:])
			continue
		}
		for z := ^word; z != 0; z &= z - 1 {
			logits[base+bits.TrailingZeros64(z)] = ninf
		}
	}
	for i := n; i < len(logits); i++ {
		logits[i] = ninf
	}
}
