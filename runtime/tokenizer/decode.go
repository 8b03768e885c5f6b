package tokenizer

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// pieces holds every token rendered (llama.cpp's token_to_piece with special tokens shown), flat: piece i is
// all[off[i]:off[i+1]]. Only decoding needs them, so they are built by its first call, not by Load.
type pieces struct {
	ready atomic.Bool
	mu    sync.Mutex
	all   []byte
	off   []int
}

// rendered returns the pieces, building them on first use.
func (t *Tokenizer) rendered() *pieces {
	if p := t.pieces; p.ready.Load() {
		return p
	}
	return t.render()
}

func (t *Tokenizer) render() *pieces {
	p := t.pieces
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ready.Load() {
		return p
	}
	n := t.Len()
	p.all = make([]byte, 0, len(t.vocab.all))
	p.off = make([]int, n+1)
	for id := range int32(n) {
		p.all = t.appendRendered(p.all, id)
		p.off[id+1] = len(p.all)
	}
	p.ready.Store(true)
	return p
}

// appendRendered appends the bytes token id stands for.
func (t *Tokenizer) appendRendered(dst []byte, id int32) []byte {
	a, text := t.attrs[id], t.vocab.text(id)
	switch {
	case a&(AttrUnknown|AttrControl|AttrUserDefined) != 0:
		return append(dst, text...)
	case a&AttrNormal != 0:
		if t.model == ModelBPE && !t.escapeSpaces {
			return appendByteLevel(dst, text)
		}
		for {
			i := strings.Index(text, "▁")
			if i < 0 {
				return append(dst, text...)
			}
			dst = append(append(dst, text[:i]...), ' ')
			text = text[i+len("▁"):]
		}
	case a&AttrByte != 0:
		if t.model == ModelWPM || len(text) < 5 {
			return dst
		}
		b, _ := strconv.ParseUint(text[3:5], 16, 8) // <0xXX>
		return append(dst, byte(b))
	}
	return dst // unused and undefined tokens render as nothing
}

// appendByteLevel appends the byte each code point of a byte-level BPE token stands for; a code point outside
// the alphabet is written as llama.cpp does, [UNK_BYTE_0x<utf8 hex><token>].
func appendByteLevel(dst []byte, text string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(text); {
		r, n := decodeOne(text, i)
		i += n
		if r >= 0 && int(r) < len(runeToByte) && runeToByte[r] >= 0 {
			dst = append(dst, byte(runeToByte[r]))
			continue
		}
		dst = append(dst, "[UNK_BYTE_0x"...)
		var enc [4]byte
		for _, c := range appendUTF8(enc[:0], r) {
			dst = append(dst, hex[c>>4], hex[c&15])
		}
		dst = append(append(dst, text...), ']')
	}
	return dst
}

// PieceOptions control how a token is rendered.
type PieceOptions struct {
	// Special renders control and unknown tokens as their text; otherwise they render as nothing.
	Special bool
	// LStrip removes one leading space (llama.cpp's lstrip = 1).
	LStrip bool
}

// DecodeOptions control Detokenize and Decoder.
type DecodeOptions struct {
	// RemoveSpecial drops a leading BOS and a trailing EOS where the vocabulary adds them (llama.cpp's
	// remove_special).
	RemoveSpecial bool
	// Special renders control and unknown tokens as their text (llama.cpp's unparse_special).
	Special bool
}

// AppendPiece appends the bytes of token id (llama_token_to_piece). An id outside the vocabulary appends nothing.
func (t *Tokenizer) AppendPiece(dst []byte, id int32, opt PieceOptions) []byte {
	if !t.valid(id) {
		return dst
	}
	if !opt.Special && t.attrs[id]&(AttrUnknown|AttrControl) != 0 {
		return dst
	}
	ps := t.rendered()
	p := ps.all[ps.off[id]:ps.off[id+1]]
	if opt.LStrip && len(p) > 0 && p[0] == ' ' {
		p = p[1:]
	}
	return append(dst, p...)
}

// TokenToPiece returns the bytes of token id; they may be part of a UTF-8 character (byte tokens).
func (t *Tokenizer) TokenToPiece(id int32, opt PieceOptions) []byte {
	return t.AppendPiece(nil, id, opt)
}

// Detokenize turns ids back into text exactly as llama.cpp's llama_detokenize: pieces concatenated, the space the
// tokenizer prefixed removed from the first one, and, for vocabularies that ask for it (clean_up_tokenization_spaces),
// spaces before punctuation and contractions removed. Ids outside the vocabulary contribute nothing.
func (t *Tokenizer) Detokenize(ids []int32, opt DecodeOptions) string {
	if t.model == ModelNone {
		return ""
	}
	removeSpace := t.addSpacePrefix
	if opt.RemoveSpecial && t.addBOS && len(ids) > 0 && ids[0] == t.bos {
		removeSpace = false
		ids = ids[1:]
	}
	if opt.RemoveSpecial && t.addEOS && len(ids) > 0 && ids[len(ids)-1] == t.eos {
		ids = ids[:len(ids)-1]
	}
	var out []byte
	for _, id := range ids {
		out = t.AppendPiece(out, id, PieceOptions{Special: opt.Special, LStrip: removeSpace})
		removeSpace = false
	}
	if t.cleanSpace {
		out = cleanSpaces(out)
	}
	return string(out)
}

// cleanSpaces is llama.cpp's clean_up_tokenization_spaces, in its three passes: " ?", " !", " .", " ," lose the
// space; a lone apostrophe between spaces loses both; " 's", " 'm", " 're", " 've" lose the space.
func cleanSpaces(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	n := 1
	for i := 1; i < len(b); i++ {
		x := b[i]
		if b[i-1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',') {
			n--
		}
		b[n] = x
		n++
	}
	b = b[:n]
	n = 1
	for i := 1; i < len(b); i++ {
		x := b[i]
		if x == '\'' && i+1 < len(b) && b[i-1] == ' ' && b[i+1] == ' ' {
			n--
			i++
			b[i] = 0 // llama.cpp overwrites the next space, then skips it
		}
		b[n] = x
		n++
	}
	b = b[:n]
	n = 1
	for i := 1; i < len(b); i++ {
		x := b[i]
		if b[i-1] == ' ' && x == '\'' && i+1 < len(b) {
			x1 := b[i+1]
			switch {
			case x1 == 's' || x1 == 'm':
				n--
			case x1 == 't' || x1 == 'd':
			case i+2 < len(b) && ((x1 == 'r' && b[i+2] == 'e') || (x1 == 'v' && b[i+2] == 'e')):
				n--
			}
		}
		b[n] = x
		n++
	}
	return b[:n]
}

// Decoder turns a stream of ids into text, one id at a time, never splitting a UTF-8 character: bytes that end
// in an incomplete character are held until the character is complete. It follows llama_token_to_piece (no
// clean-up of spaces, which needs the text after them). A Decoder is not safe for concurrent use.
type Decoder struct {
	t       *Tokenizer
	opt     DecodeOptions
	first   bool
	pending []byte
	out     []byte
}

// NewDecoder returns a streaming decoder.
func (t *Tokenizer) NewDecoder(opt DecodeOptions) *Decoder {
	return &Decoder{t: t, opt: opt, first: true}
}

// Add feeds one id and returns the text that became complete. The slice is valid until the next call.
func (d *Decoder) Add(id int32) []byte {
	strip := false
	if d.first {
		d.first = false
		if d.opt.RemoveSpecial && d.t.addBOS && id == d.t.bos {
			return d.out[:0]
		}
		strip = d.t.addSpacePrefix
	}
	d.pending = d.t.AppendPiece(d.pending, id, PieceOptions{Special: d.opt.Special, LStrip: strip})
	n := completeUTF8(d.pending)
	d.out = append(d.out[:0], d.pending[:n]...)
	d.pending = append(d.pending[:0], d.pending[n:]...)
	return d.out
}

// Flush returns the bytes still held (an incomplete character at the end of the stream) and resets the decoder.
func (d *Decoder) Flush() []byte {
	d.out = append(d.out[:0], d.pending...)
	d.pending = d.pending[:0]
	d.first = true
	return d.out
}

// completeUTF8 returns the length of the longest prefix of b that does not end inside an incomplete character.
func completeUTF8(b []byte) int {
	for back := 1; back <= 3 && back <= len(b); back++ {
		c := b[len(b)-back]
		if c < 0x80 {
			return len(b)
		}
		if c >= 0xC0 { // lead byte: is its sequence complete?
			if utf8Len(c) > back {
				return len(b) - back
			}
			return len(b)
		}
	}
	return len(b)
}
