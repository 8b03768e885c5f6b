package tokenizer

import (
	"errors"
	"strings"
)

// EncodeOptions control Encode.
type EncodeOptions struct {
	// AddSpecial adds the BOS/EOS (WordPiece: CLS/SEP) tokens the vocabulary asks for (add_bos_token etc.).
	AddSpecial bool
	// ParseSpecial recognizes the text of control tokens (<|im_start|>, <s>, ...) in the input. User-defined
	// tokens are always recognized, as in llama.cpp.
	ParseSpecial bool
}

// ErrNoVocab is returned when text is tokenized with a model that carries no vocabulary.
var ErrNoVocab = errors.New("tokenizer: the model has no vocabulary (tokenizer.ggml.model = no_vocab)")

// scratch is per-call working memory, pooled per Tokenizer.
type scratch struct {
	frags     []fragment
	cps       []rune
	inf       []cpInfo
	wide      []rune // code points, non-ASCII whitespace as \v (for expressions without classes)
	collapsed []rune // llama.cpp's collapsed text (for expressions with classes)
	pieces    [2][]int
	buf       []byte
	words     []string
	syms      []symbol
	queue     bigramQueue
	ranks     []int32
	results   []int32
	raw       []byte
	spmQueue  spmQueue
}

func (t *Tokenizer) getScratch() *scratch {
	if s, ok := t.scratch.Get().(*scratch); ok {
		return s
	}
	return &scratch{}
}

// fragment is a piece of the input: raw text [off, off+n) or a special token.
type fragment struct {
	token  int32 // None for text
	off, n int
}

// Encode tokenizes text exactly as llama.cpp's llama_tokenize(text, add_special, parse_special).
func (t *Tokenizer) Encode(text string, opt EncodeOptions) ([]int32, error) {
	return t.AppendEncode(nil, text, opt)
}

// AppendEncode is Encode appending to dst.
func (t *Tokenizer) AppendEncode(dst []int32, text string, opt EncodeOptions) ([]int32, error) {
	if t.model == ModelNone {
		return dst, ErrNoVocab
	}
	s := t.getScratch()
	defer t.scratch.Put(s)
	s.frags = s.frags[:0]
	if text != "" {
		s.frags = t.partition(s.frags, text, opt.ParseSpecial)
	}
	out := dst
	switch t.model {
	case ModelSPM:
		prevSpecial := true
		if opt.AddSpecial && t.addBOS {
			out = append(out, t.bos)
		}
		for _, fr := range s.frags {
			if fr.token != None {
				out = append(out, fr.token)
				prevSpecial = true
				continue
			}
			buf := s.buf[:0]
			if t.addSpacePrefix && prevSpecial {
				buf = append(buf, "▁"...)
			}
			buf = appendEscaped(buf, text[fr.off:fr.off+fr.n])
			s.buf = buf
			out = t.spmText(out, s, string(buf))
			prevSpecial = false
		}
		if opt.AddSpecial && t.addEOS {
			out = append(out, t.eos)
		}
	case ModelBPE:
		if opt.AddSpecial && t.addBOS {
			out = append(out, t.bos)
		}
		for _, fr := range s.frags {
			if fr.token != None {
				out = append(out, fr.token)
				continue
			}
			frag := text[fr.off : fr.off+fr.n]
			if t.escapeSpaces {
				frag = strings.ReplaceAll(frag, " ", "▁")
			}
			out = t.bpeText(out, s, frag)
		}
		if opt.AddSpecial && t.addEOS {
			out = append(out, t.eos)
		}
	case ModelWPM:
		if opt.AddSpecial {
			out = append(out, t.bos)
		}
		for _, fr := range s.frags {
			if fr.token != None {
				out = append(out, fr.token)
				continue
			}
			out = t.wpmText(out, s, text[fr.off:fr.off+fr.n])
		}
		if opt.AddSpecial && t.sep != None {
			out = append(out, t.sep)
		}
	}
	return out, nil
}

// appendEscaped appends text with every space replaced by ▁ (U+2581).
func appendEscaped(dst []byte, text string) []byte {
	for i := 0; i < len(text); i++ {
		if text[i] == ' ' {
			dst = append(dst, "▁"...)
		} else {
			dst = append(dst, text[i])
		}
	}
	return dst
}

// partition splits text at occurrences of special tokens, longest token first (llama.cpp's
// tokenizer_st_partition). Without parseSpecial only user-defined tokens are split out. A token with the lstrip
// (rstrip) attribute swallows the whitespace before (after) it.
func (t *Tokenizer) partition(frags []fragment, text string, parseSpecial bool) []fragment {
	frags = append(frags, fragment{token: None, off: 0, n: len(text)})
	for _, id := range t.special {
		a := t.attrs[id]
		if !parseSpecial && a&(AttrControl|AttrUnknown) != 0 {
			continue
		}
		tok := t.vocab.text(id)
		for i := 0; i < len(frags); i++ {
			fr := frags[i]
			if fr.token != None {
				continue
			}
			at := strings.Index(text[fr.off:fr.off+fr.n], tok)
			if at < 0 {
				continue
			}
			// replace fragment i by: left text, the token, and the right text (searched again on the next pass)
			var repl [3]fragment
			k := 0
			left, leftN := fr.off, at
			if a&AttrLStrip != 0 {
				for leftN > 0 && isCSpace(text[left+leftN-1]) {
					leftN--
				}
			}
			if leftN > 0 {
				repl[k] = fragment{token: None, off: left, n: leftN}
				k++
			}
			repl[k] = fragment{token: id}
			k++
			rOff := fr.off + at + len(tok)
			rN := fr.off + fr.n - rOff
			if a&AttrRStrip != 0 {
				for rN > 0 && isCSpace(text[rOff]) {
					rOff++
					rN--
				}
			}
			if rN > 0 {
				repl[k] = fragment{token: None, off: rOff, n: rN}
				k++
			}
			frags = append(frags[:i], append(repl[:k:k], frags[i+1:]...)...)
			i += k - 2 // continue with the right remainder, if any
		}
	}
	return frags
}

// isCSpace is C's isspace in the "C" locale.
func isCSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// bpeText pre-tokenizes one text fragment and merges each piece.
func (t *Tokenizer) bpeText(out []int32, s *scratch, text string) []int32 {
	tab := classes()
	s.cps = decodeUTF8(s.cps[:0], text)
	s.inf = s.inf[:0]
	for _, r := range s.cps {
		s.inf = append(s.inf, tab.info(r))
	}
	if t.regexText {
		s.prepareRegexText()
	}
	cur := append(s.pieces[0][:0], len(s.cps))
	next := s.pieces[1][:0]
	for _, sp := range t.pre {
		next = next[:0]
		start := 0
		for _, n := range cur {
			next = sp.split(next, s, start, start+n)
			start += n
		}
		cur, next = next, cur
	}
	s.pieces[0], s.pieces[1] = cur, next
	start := 0
	for _, n := range cur {
		buf, raw := s.buf[:0], s.raw[:0]
		for _, r := range s.cps[start : start+n] {
			if t.byteEnc {
				raw = appendUTF8(raw, r)
			} else {
				buf = appendUTF8(buf, r)
			}
		}
		if t.byteEnc {
			for _, c := range raw {
				buf = appendUTF8(buf, byteToRune[c])
			}
		}
		s.buf, s.raw = buf, raw
		start += n
		if len(buf) == 0 {
			continue
		}
		if t.byteEnc {
			out = t.bpeWord(out, s, string(buf), raw)
		} else {
			out = t.bpeWord(out, s, string(buf), nil)
		}
	}
	return out
}

// prepareRegexText fills the two views of the text the general expression engine reads.
func (s *scratch) prepareRegexText() {
	s.wide, s.collapsed = s.wide[:0], s.collapsed[:0]
	for i, r := range s.cps {
		f := s.inf[i]
		w, c := r, r
		if r >= 128 {
			if f.isSpace() {
				w, c = 0x0B, 0x0B
			} else {
				c = collapseCode[f.class()]
			}
		}
		s.wide = append(s.wide, w)
		s.collapsed = append(s.collapsed, c)
	}
}
