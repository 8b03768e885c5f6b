package tokenizer

import (
	"strings"
)

// bpeTable holds the merges of a BPE vocabulary on integers: a piece id names each text that takes part in
// merging. A text that is a token is its own token id; a merge result that is not a token gets an id from n on.
type bpeTable struct {
	n      int32            // pieces below n are tokens
	extra  map[string]int32 // merge results that are not tokens -> piece id (nil when there are none)
	merges mergeTable       // (left piece, right piece) -> merge

	bytePiece [256]int32 // piece id of each byte's byte-level character (None if it is no piece)
	byteLen   [256]int32 // UTF-8 length of each byte's byte-level character
}

type merge struct {
	rank   int32
	result int32 // piece id of left+right
}

// token returns the token id of piece p, None when its text is not a token.
func (b *bpeTable) token(p int32) int32 {
	if p < 0 || p >= b.n {
		return None
	}
	return p
}

// piece returns the piece id of text s, None when it is neither a token nor a merge result.
func (t *Tokenizer) piece(s string) int32 {
	if id, ok := t.vocab.id(s); ok {
		return id
	}
	if p, ok := t.bpe.extra[s]; ok {
		return p
	}
	return None
}

// symbol is a piece of a word during merging: bytes [start, start+n) of the word, linked to its neighbours.
type symbol struct {
	start, n   int32
	prev, next int32
	piece      int32 // piece id, or None
}

// bigram is a candidate merge of two adjacent symbols.
type bigram struct {
	left, right int32
	rank        int32
	size        int32
	result      int32 // BPE: piece id of the merged text
}

// bigramQueue is a min-heap by (rank, left).
type bigramQueue = heap[bigram]

// first reports whether b merges before o: lower rank, then further left.
func (b bigram) first(o bigram) bool {
	return b.rank < o.rank || (b.rank == o.rank && b.left < o.left)
}

// bpeWord appends the tokens of one pre-tokenized, byte-encoded word: llama.cpp's llm_tokenizer_bpe_session.
// raw, when not nil, holds the word's bytes before byte encoding (one symbol each).
func (t *Tokenizer) bpeWord(out []int32, s *scratch, word string, raw []byte) []int32 {
	b := t.bpe
	if t.ignoreMerges {
		if id, ok := t.vocab.id(word); ok {
			return append(out, id)
		}
	}
	if !t.byteEnc && strings.Trim(word, "\n") == "" { // gemma4: a run of newlines is one token when it exists
		if id, ok := t.vocab.id(word); ok {
			return append(out, id)
		}
	}
	syms := s.syms[:0]
	if raw != nil {
		off := int32(0)
		for _, c := range raw {
			n := b.byteLen[c]
			syms = append(syms, symbol{start: off, n: n, piece: b.bytePiece[c]})
			off += n
		}
	} else {
		for off := 0; off < len(word); {
			n := min(utf8Len(word[off]), len(word)-off)
			syms = append(syms, symbol{start: int32(off), n: int32(n), piece: t.piece(word[off : off+n])})
			off += n
		}
	}
	s.syms = syms
	if len(syms) <= linearMergeMax {
		syms = b.mergeLinear(syms, s)
	} else {
		syms = b.mergeHeap(syms, s)
	}
	for _, sym := range syms {
		if id := b.token(sym.piece); id >= 0 {
			out = append(out, id)
			continue
		}
		text := word[sym.start : sym.start+sym.n]
		if id, ok := t.vocab.id(text); ok {
			out = append(out, id)
			continue
		}
		out = t.bpeBytes(out, text)
	}
	return out
}

// linearMergeMax is the word length (in symbols) up to which merging scans for the best pair instead of keeping
// a heap; both pick the pair of lowest rank, leftmost on ties, so they give the same merges.
const linearMergeMax = 48

func (b *bpeTable) pairMerge(l, r int32) (merge, bool) {
	if l < 0 || r < 0 {
		return merge{}, false
	}
	return b.merges.get(l, r)
}

// mergeLinear merges a short word in place and returns the remaining symbols, in order.
func (b *bpeTable) mergeLinear(syms []symbol, s *scratch) []symbol {
	const noRank = int32(1<<31 - 1)
	ranks := s.ranks[:0]
	results := s.results[:0]
	for i := 0; i+1 < len(syms); i++ {
		m, ok := b.pairMerge(syms[i].piece, syms[i+1].piece)
		if !ok {
			m.rank = noRank
		}
		ranks = append(ranks, m.rank)
		results = append(results, m.result)
	}
	for {
		best := -1
		for i, r := range ranks {
			if r != noRank && (best < 0 || r < ranks[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		syms[best].n += syms[best+1].n
		syms[best].piece = results[best]
		syms = append(syms[:best+1], syms[best+2:]...)
		ranks = append(ranks[:best], ranks[best+1:]...)
		results = append(results[:best], results[best+1:]...)
		for _, i := range [2]int{best - 1, best} {
			if i < 0 || i+1 >= len(syms) {
				continue
			}
			m, ok := b.pairMerge(syms[i].piece, syms[i+1].piece)
			if !ok {
				m.rank = noRank
			}
			ranks[i], results[i] = m.rank, m.result
		}
	}
	s.ranks, s.results = ranks, results
	return syms
}

// mergeHeap merges a long word with a priority queue of candidate pairs (llama.cpp's algorithm) and returns the
// remaining symbols, in order.
func (b *bpeTable) mergeHeap(syms []symbol, s *scratch) []symbol {
	for i := range syms {
		syms[i].prev, syms[i].next = int32(i-1), int32(i+1)
	}
	syms[len(syms)-1].next = -1
	q := s.queue[:0]
	add := func(l, r int32) {
		if l < 0 || r < 0 {
			return
		}
		m, ok := b.pairMerge(syms[l].piece, syms[r].piece)
		if !ok {
			return
		}
		q.push(bigram{left: l, right: r, rank: m.rank, size: syms[l].n + syms[r].n, result: m.result})
	}
	for i := int32(1); i < int32(len(syms)); i++ {
		add(i-1, i)
	}
	for len(q) > 0 {
		bg := q.pop()
		l, r := &syms[bg.left], &syms[bg.right]
		if l.n == 0 || r.n == 0 || l.n+r.n != bg.size {
			continue // outdated
		}
		l.n += r.n
		l.piece = bg.result
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = bg.left
		}
		add(l.prev, bg.left)
		add(bg.left, l.next)
	}
	s.queue = q
	n := 0
	for i := int32(0); i >= 0; i = syms[i].next {
		syms[n] = syms[i]
		n++
	}
	return syms[:n]
}

// bpeBytes emits a symbol that is not a token byte by byte; bytes without a token are dropped, as in llama.cpp.
func (t *Tokenizer) bpeBytes(out []int32, text string) []int32 {
	var buf [6]byte
	for i := 0; i < len(text); i++ {
		var id int32
		var ok bool
		if t.byteEnc {
			id, ok = t.vocab.id(text[i : i+1])
		} else {
			id, ok = t.vocab.idBytes(hexByte(buf[:0], text[i]))
		}
		if ok {
			out = append(out, id)
		}
	}
	return out
}

// hexByte appends the SentencePiece byte token text <0xXX>.
func hexByte(dst []byte, c byte) []byte {
	const hex = "0123456789ABCDEF"
	return append(dst, '<', '0', 'x', hex[c>>4], hex[c&15], '>')
}
