package sample

import (
	"bytes"
	"fmt"
	"math"
	"slices"
)

// Vocab is what DRY needs of a model's vocabulary to find its sequence breakers among the tokens.
type Vocab interface {
	Len() int
	// AppendText appends the text of token id alone, special tokens as their text.
	AppendText(dst []byte, id int32) []byte
	// Tokenize returns the tokens of text (no BOS/EOS; special-token text is plain text).
	Tokenize(text string) []int32
}

// Breakers are DRY's sequence breakers found among a vocabulary's tokens (FindBreakers), for any number of
// samplers.
type Breakers struct {
	seqs  []string
	heads map[int32][][]int32
}

// BreakerCache is a Vocab that keeps the Breakers it was asked for (finding them scans the whole vocabulary).
type BreakerCache interface {
	Breakers(seqs []string) *Breakers
}

// Limits on sequence breakers, as llama.cpp's: longer breakers are cut, and so are their tails' tokens.
const (
	maxBreakerBytes  = 40
	maxBreakerTokens = 20
)

// dry is the state of the DRY sampler (llama.cpp's, after Koboldcpp's).
type dry struct {
	on         bool
	mult, base float32
	allowed    int
	lastN      int // -1: the whole history
	maxExp     int // cap on the exponent so that base^exp stays finite (0: none)
	breakers   map[int32][][]int32
	z          []int32 // Z-array of the reversed window
	rep        []int32 // per token: 1 + the longest repetition it would extend, 0 for none
	touched    []int32 // tokens whose rep is set
}

func (d *dry) init(o Options, v Vocab) error {
	*d = dry{on: o.DRYMultiplier != 0 && o.DRYBase >= 1 && o.DRYPenaltyLastN != 0, mult: o.DRYMultiplier,
		base: o.DRYBase, allowed: o.DRYAllowedLength, lastN: o.DRYPenaltyLastN}
	if !d.on {
		return nil
	}
	if o.DRYBase > 1.000001 {
		d.maxExp = int(88.7228391 / math.Log(float64(o.DRYBase))) // log(FLT_MAX)
	}
	if len(o.DRYSequenceBreakers) == 0 {
		return nil
	}
	if v == nil {
		return fmt.Errorf("dry_sequence_breakers need the model's vocabulary")
	}
	var b *Breakers
	if c, ok := v.(BreakerCache); ok {
		b = c.Breakers(o.DRYSequenceBreakers)
	}
	if b == nil || !slices.Equal(b.seqs, o.DRYSequenceBreakers) {
		b = FindBreakers(v, o.DRYSequenceBreakers)
	}
	d.breakers = b.heads
	return nil
}

// FindBreakers maps each token that starts a sequence breaker to the tokens that complete it: none when the
// token's text contains a breaker, else the tokens of the breaker's rest when the token's text ends with the
// breaker's start (llama.cpp's get_overlapping_token_sequences).
func FindBreakers(v Vocab, seqs []string) *Breakers {
	out := map[int32][][]int32{}
	add := func(id int32, tail []int32) {
		for _, t := range out[id] {
			if slices.Equal(t, tail) {
				return
			}
		}
		out[id] = append(out[id], tail)
	}
	var text []byte
	for _, seq := range seqs {
		if len(seq) > maxBreakerBytes {
			seq = seq[:maxBreakerBytes]
		}
		if seq == "" {
			continue
		}
		s := []byte(seq)
		for id := range int32(v.Len()) {
			text = v.AppendText(text[:0], id)
			if bytes.Contains(text, s) {
				add(id, []int32{})
				continue
			}
			for pos := 0; pos < len(text); pos++ {
				if text[pos] != s[0] || !bytes.HasPrefix(s, text[pos:]) {
					continue
				}
				tail := v.Tokenize(seq[len(text)-pos:])
				add(id, tail[:min(len(tail), maxBreakerTokens)])
			}
		}
	}
	return &Breakers{seqs: slices.Clone(seqs), heads: out}
}

// apply lowers the logits of tokens that would extend a repetition of the end of history.
func (d *dry) apply(logits []float32, history []int32) {
	if !d.on {
		return
	}
	n := len(history)
	if d.lastN >= 0 {
		n = min(n, d.lastN)
	}
	if n <= d.allowed {
		return
	}
	win := history[len(history)-n:] // rat(i) = win[n-1-i], the i-th token from the end
	limit := d.repeatLimit(win)
	if limit < d.allowed {
		return
	}
	if len(d.rep) < len(logits) {
		d.rep = make([]int32, len(logits))
	}
	z := d.zReversed(win)
	// A suffix of length L that also ends k tokens before the end would be extended by the token after it.
	for k := 1; k < n; k++ {
		l := min(int(z[k]), limit)
		if l < d.allowed {
			continue
		}
		tok := win[n-k]
		if tok < 0 || int(tok) >= len(logits) {
			continue
		}
		if d.rep[tok] == 0 {
			d.touched = append(d.touched, tok)
		}
		d.rep[tok] = max(d.rep[tok], int32(l)+1)
	}
	for _, tok := range d.touched {
		l := int(d.rep[tok]) - 1
		d.rep[tok] = 0
		if d.singleBreaker(tok) {
			continue
		}
		exp := l - d.allowed
		if d.maxExp > 0 && exp > d.maxExp {
			exp = d.maxExp
		}
		logits[tok] -= float32(float64(d.mult) * math.Pow(float64(d.base), float64(exp)))
	}
	d.touched = d.touched[:0]
}

// repeatLimit is the longest repetition the window allows: the distance from its end to the nearest sequence
// breaker (the longest breaker ending there).
func (d *dry) repeatLimit(win []int32) int {
	n := len(win)
	for i := 0; i < n; i++ {
		tails, ok := d.breakers[win[n-1-i]]
		if !ok {
			continue
		}
		longest := -1
		for _, tail := range tails {
			if len(tail) <= longest || len(tail) > i {
				continue
			}
			match := true
			for off, t := range tail {
				if t != win[n-1-(i-off-1)] {
					match = false
					break
				}
			}
			if match {
				longest = len(tail)
			}
		}
		if longest >= 0 {
			return i - longest
		}
	}
	return n
}

// zReversed returns the Z-array of the window read backwards: z[k] is how many tokens the window's end has in
// common with the window ending k tokens earlier.
func (d *dry) zReversed(win []int32) []int32 {
	n := len(win)
	if cap(d.z) < n {
		d.z = make([]int32, n, 2*n)
	}
	z := d.z[:n]
	at := func(j int) int32 { return win[n-1-j] }
	z[0] = int32(n)
	l, r := 0, 0
	for k := 1; k < n; k++ {
		zk := 0
		if k < r {
			zk = min(r-k, int(z[k-l]))
		}
		for k+zk < n && at(zk) == at(k+zk) {
			zk++
		}
		z[k] = int32(zk)
		if k+zk > r {
			l, r = k, k+zk
		}
	}
	return z
}

// singleBreaker reports whether the token's text holds a whole sequence breaker (such tokens are never penalized).
func (d *dry) singleBreaker(tok int32) bool {
	for _, t := range d.breakers[tok] {
		if len(t) == 0 {
			return true
		}
	}
	return false
}
