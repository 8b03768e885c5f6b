package tokenizer

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// wpmText appends the WordPiece tokens of one text fragment: llama.cpp's llm_tokenizer_wpm_session. The text is
// split into words at whitespace and around punctuation, ASCII symbols and CJK ideographs (lower-cased and
// stripped of accents when the vocabulary asks); each word, prefixed with ▁, is covered greedily by the longest
// tokens from the left, and a word that cannot be covered becomes the unknown token.
func (t *Tokenizer) wpmText(out []int32, s *scratch, text string) []int32 {
	tab := classes()
	s.cps = decodeUTF8(s.cps[:0], text)
	words := s.words[:0]
	word := s.buf[:0]
	flush := func() {
		if len(word) > 0 {
			words = append(words, string(word))
			word = word[:0]
		}
	}
	for _, r := range s.cps {
		if t.stripAccents {
			r = nfdFirst(r)
		}
		f := tab.info(r)
		if f.isSpace() {
			flush()
			continue
		}
		if r == 0 || r == 0xFFFD || f.class() == classControl || (t.stripAccents && f.isMark()) {
			continue
		}
		lr := r
		if t.lowercase {
			lr = unicode.ToLower(r)
		}
		if c := f.class(); c == classPunct || (r < 0x7F && c == classSymbol) || isChineseChar(r) {
			flush()
			word = appendUTF8(word, lr)
			flush()
			continue
		}
		word = appendUTF8(word, lr)
	}
	flush()
	s.buf, s.words = word, words

	for _, w := range words {
		w1 := "▁" + w
		n := len(w1)
		before := len(out)
		for i := 0; i < n; i++ {
			match := false
			for j := min(n, i+t.maxLen+1); j > i; j-- {
				if id, ok := t.vocab.id(w1[i:j]); ok {
					out = append(out, id)
					match = true
					i = j - 1
					break
				}
			}
			if !match {
				out = out[:before]
				break
			}
		}
		if len(out) == before && t.unk != None {
			out = append(out, t.unk)
		}
	}
	return out
}

// nfdFirst is the first code point of r's canonical decomposition (llama.cpp's unicode_cpts_normalize_nfd keeps
// only that one; the accents that follow are dropped).
func nfdFirst(r rune) rune {
	if r < 0xC0 {
		return r
	}
	var in, buf [8]byte
	n := utf8.EncodeRune(in[:], r)
	if norm.NFD.QuickSpan(in[:n]) == n {
		return r
	}
	d := norm.NFD.Append(buf[:0], in[:n]...)
	first, _ := utf8.DecodeRune(d)
	return first
}

// isChineseChar is BERT's CJK test (with the upper bound of extension E as Hugging Face writes it).
func isChineseChar(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) || (r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) || (r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}
