package tokenizer

// spmBigram is a candidate merge of two adjacent symbols.
type spmBigram struct {
	left, right int32
	score       float32
	size        int32
}

// spmQueue pops bigrams by (higher score, then smaller left), llama.cpp's llm_bigram_spm order.
type spmQueue = heap[spmBigram]

// first reports whether b merges before o: higher score, then further left.
func (b spmBigram) first(o spmBigram) bool {
	return b.score > o.score || (b.score == o.score && b.left < o.left)
}

// spmText appends the tokens of one escaped text fragment (spaces already ▁): llama.cpp's llm_tokenizer_spm_session.
// Symbols start as UTF-8 characters; the adjacent pair whose concatenation is the highest-scoring token merges
// first; what is left that is not a token falls back to byte tokens <0xXX>.
//
// When no token has a ▁ after a non-▁ character (t.spmWords), no token can span the start of a new word, so
// each word is merged on its own: the same merges in the same order per word, with a small queue instead of one
// over the whole text.
func (t *Tokenizer) spmText(out []int32, s *scratch, text string) []int32 {
	syms := s.syms[:0]
	for off := 0; off < len(text); {
		n := min(utf8Len(text[off]), len(text)-off)
		syms = append(syms, symbol{start: int32(off), n: int32(n)})
		off += n
	}
	s.syms = syms
	lo := 0
	for i := 1; i <= len(syms); i++ {
		if i < len(syms) && !(t.spmWords && t.isWordStart(text, syms, i)) {
			continue
		}
		out = t.spmMerge(out, s, text, syms, lo, i)
		lo = i
	}
	return out
}

// isWordStart reports whether symbol i is ▁ following a symbol that is not.
func (t *Tokenizer) isWordStart(text string, syms []symbol, i int) bool {
	const sp = "▁"
	a, b := syms[i], syms[i-1]
	return text[a.start:a.start+a.n] == sp && text[b.start:b.start+b.n] != sp
}

// spmMerge runs the bigram merges over symbols [lo, hi) and appends their tokens.
func (t *Tokenizer) spmMerge(out []int32, s *scratch, text string, syms []symbol, lo, hi int) []int32 {
	for i := lo; i < hi; i++ {
		syms[i].prev, syms[i].next = int32(i-1), int32(i+1)
	}
	syms[lo].prev, syms[hi-1].next = -1, -1
	q := s.spmQueue[:0]
	add := func(l, r int32) {
		if l < 0 || r < 0 {
			return
		}
		a, b := syms[l].start, syms[r].start+syms[r].n
		id, ok := t.vocab.id(text[a:b])
		if !ok {
			return
		}
		q.push(spmBigram{left: l, right: r, score: t.scores[id], size: b - a})
	}
	for i := lo + 1; i < hi; i++ {
		add(int32(i-1), int32(i))
	}
	for len(q) > 0 {
		bg := q.pop()
		l, r := &syms[bg.left], &syms[bg.right]
		if l.n == 0 || r.n == 0 || l.n+r.n != bg.size {
			continue
		}
		l.n += r.n
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = bg.left
		}
		add(l.prev, bg.left)
		add(bg.left, l.next)
	}
	s.spmQueue = q
	for i := int32(lo); i >= 0; i = syms[i].next {
		piece := text[syms[i].start : syms[i].start+syms[i].n]
		if id, ok := t.vocab.id(piece); ok {
			out = append(out, id)
			continue
		}
		for j := 0; j < len(piece); j++ {
			if id := t.byteToken(piece[j]); id != None {
				out = append(out, id)
			}
		}
	}
	return out
}

// byteToken is llama.cpp's byte_to_token for SPM: <0xXX>, else the byte itself as a token, else (where llama.cpp
// would throw) the unknown token.
func (t *Tokenizer) byteToken(c byte) int32 {
	var buf [6]byte
	if id, ok := t.vocab.idBytes(hexByte(buf[:0], c)); ok {
		return id
	}
	buf[0] = c
	if id, ok := t.vocab.idBytes(buf[:1]); ok {
		return id
	}
	return t.unk
}
