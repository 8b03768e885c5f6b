package tokenizer

import "sort"

// Len is the number of token ids (the vocabulary size; for a model without a vocabulary, ARCH.vocab_size).
func (t *Tokenizer) Len() int { return t.vocab.len() }

// Model is the kind of tokenizer.
func (t *Tokenizer) Model() Model { return t.model }

// Pre is the BPE pre-tokenizer name (tokenizer.ggml.pre), "" for other models.
func (t *Tokenizer) Pre() string { return t.preName }

// BOS, EOS, EOT, EOM, UNK, SEP, PAD return special token ids, or None.
func (t *Tokenizer) BOS() int32 { return t.bos }
func (t *Tokenizer) EOS() int32 { return t.eos }
func (t *Tokenizer) EOT() int32 { return t.eot }
func (t *Tokenizer) EOM() int32 { return t.eom }
func (t *Tokenizer) UNK() int32 { return t.unk }
func (t *Tokenizer) SEP() int32 { return t.sep }
func (t *Tokenizer) PAD() int32 { return t.pad }

// AddBOS and AddEOS report whether Encode with AddSpecial adds them.
func (t *Tokenizer) AddBOS() bool { return t.addBOS }
func (t *Tokenizer) AddEOS() bool { return t.addEOS }

func (t *Tokenizer) valid(id int32) bool { return id >= 0 && int(id) < len(t.attrs) }

// IsEOG reports whether id ends generation (EOS, EOT, EOM and the tokens llama.cpp recognizes by text).
func (t *Tokenizer) IsEOG(id int32) bool {
	i := sort.Search(len(t.eog), func(i int) bool { return t.eog[i] >= id })
	return i < len(t.eog) && t.eog[i] == id
}

// EOG returns the end-of-generation ids, ascending.
func (t *Tokenizer) EOG() []int32 { return append([]int32(nil), t.eog...) }

// IsControl reports whether id is a control token.
func (t *Tokenizer) IsControl(id int32) bool { return t.valid(id) && t.attrs[id]&AttrControl != 0 }

// Attr returns the attributes of id (0 outside the vocabulary).
func (t *Tokenizer) Attr(id int32) Attr {
	if !t.valid(id) {
		return 0
	}
	return t.attrs[id]
}

// Piece returns the stored text of id (llama_vocab_get_text), "" outside the vocabulary.
func (t *Tokenizer) Piece(id int32) string {
	if !t.valid(id) {
		return ""
	}
	return t.vocab.text(id)
}

// Score returns the score of id.
func (t *Tokenizer) Score(id int32) float32 {
	if !t.valid(id) || t.scores == nil {
		return 0
	}
	return t.scores[id]
}

// ID returns the id whose text is exactly s.
func (t *Tokenizer) ID(s string) (int32, bool) {
	return t.vocab.id(s)
}

// DefaultAddSpecial returns whether a vocabulary of the given tokenizer.ggml.model and tokenizer.ggml.pre adds
// BOS and EOS when its file has no add_bos_token / add_eos_token keys (llama.cpp's defaults).
func DefaultAddSpecial(model, pre string) (addBOS, addEOS bool) {
	switch model {
	case "llama", "bert":
		return true, false
	case "gpt2":
		p, ok := preTokenizers[pre]
		return ok && p.flags&preAddBOS != 0, false
	}
	return false, false
}
