package synth

import (
	"fmt"
	"slices"

	"github.com/forma-llm/forma/gguf"
)

// Token types, numbered as llama.cpp's llama_token_type.
const (
	tokNormal  = 1
	tokUnknown = 2
	tokControl = 3
	tokByte    = 6
)

// vocab is a generated vocabulary.
type vocab struct {
	tokens   []string
	types    []int32
	scores   []float32 // SPM only
	merges   []string  // BPE only
	bos, eos int
}

// letters are the characters generated pieces are built from: a word-start marker and a-z.
const letters = "abcdefghijklmnopqrstuvwxyz"

// makeVocab builds the preset's vocabulary: n tokens, specials included.
func makeVocab(p Preset) (*vocab, error) {
	var v *vocab
	switch p.Vocab {
	case SPM:
		v = spmVocab(p.VocabSize, p.Specials)
	case BPE:
		v = bpeVocab(p.VocabSize, specialsFor(p))
	case WPM:
		v = wpmVocab(p.VocabSize)
	}
	if len(v.tokens) != p.VocabSize {
		return nil, fmt.Errorf("synth: preset %s: vocabulary of %d tokens is too small for its fixed tokens", p.Name, p.VocabSize)
	}
	v.bos, v.eos = slices.Index(v.tokens, p.BOS), slices.Index(v.tokens, p.EOS)
	if v.bos < 0 || v.eos < 0 {
		return nil, fmt.Errorf("synth: preset %s: BOS %q or EOS %q is not a token", p.Name, p.BOS, p.EOS)
	}
	return v, nil
}

// specialsFor returns the preset's special tokens; Llama 3's are padded with reserved tokens to 256, so that
// <|begin_of_text|> gets id vocab-256 as in the real model.
func specialsFor(p Preset) []string {
	sp := slices.Clone(p.Specials)
	if p.Pre == "llama-bpe" {
		for i := 0; len(sp) < 256; i++ {
			sp = append(sp, fmt.Sprintf("<|reserved_special_token_%d|>", i))
		}
	}
	return sp
}

// spmVocab: <unk>, <s>, </s>, the 256 byte tokens, then pieces "▁a", "a", "▁b", … "▁aa", "aa", … with
// decreasing scores, then the extra control tokens.
func spmVocab(n int, extra []string) *vocab {
	v := &vocab{}
	addTok := func(s string, typ int32, score float32) {
		v.tokens = append(v.tokens, s)
		v.types = append(v.types, typ)
		v.scores = append(v.scores, score)
	}
	addTok("<unk>", tokUnknown, 0)
	addTok("<s>", tokControl, 0)
	addTok("</s>", tokControl, 0)
	for b := 0; b < 256; b++ {
		addTok(fmt.Sprintf("<0x%02X>", b), tokByte, 0)
	}
	for i := 0; len(v.tokens) < n-len(extra); i++ {
		piece := word(i / 2)
		if i%2 == 0 {
			piece = "▁" + piece
		}
		addTok(piece, tokNormal, -float32(i))
	}
	for _, s := range extra {
		addTok(s, tokControl, 0)
	}
	return v
}

// word returns the i-th string over letters in length-then-lexicographic order: a … z, aa, ab, … zz, aaa, …
func word(i int) string {
	n := len(letters)
	length, count := 1, n
	for i >= count {
		i -= count
		length++
		count *= n
	}
	b := make([]byte, length)
	for k := length - 1; k >= 0; k-- {
		b[k] = letters[i%n]
		i /= n
	}
	return string(b)
}

// byteToRune is GPT-2's byte-level mapping: printable bytes stand for themselves, the others are moved to
// code points from 256 up, so every token is printable text.
func byteToRune() [256]rune {
	var m [256]rune
	next := rune(256)
	for b := 0; b < 256; b++ {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE {
			m[b] = rune(b)
		} else {
			m[b] = next
			next++
		}
	}
	return m
}

// bpeVocab: the 256 byte tokens, then merged tokens built left to right from single characters of "Ġ"+a-z
// (level 1: every pair; level 2: every level-1 token and one more character; …), each with its merge rule,
// then the specials. Every merge joins two existing tokens into a third, so llama.cpp's BPE applies them.
func bpeVocab(n int, specials []string) *vocab {
	v := &vocab{}
	m := byteToRune()
	for b := 0; b < 256; b++ {
		v.tokens = append(v.tokens, string(m[b]))
		v.types = append(v.types, tokNormal)
	}
	chars := []string{string(m[' '])}
	for _, c := range letters {
		chars = append(chars, string(c))
	}
	prev := chars
	for len(v.tokens) < n-len(specials) {
		var level []string
		for _, left := range prev {
			for _, right := range chars {
				if len(v.tokens) == n-len(specials) {
					break
				}
				v.tokens = append(v.tokens, left+right)
				v.types = append(v.types, tokNormal)
				v.merges = append(v.merges, left+" "+right)
				level = append(level, left+right)
			}
		}
		prev = level
	}
	for _, s := range specials {
		v.tokens = append(v.tokens, s)
		v.types = append(v.types, tokControl)
	}
	return v
}

// kv returns the tokenizer metadata.
func (v *vocab) kv(p Preset) []gguf.KV {
	if p.Vocab == WPM {
		return v.wpmKV(p)
	}
	model := "llama"
	if p.Vocab == BPE {
		model = "gpt2"
	}
	kv := []gguf.KV{{Key: "tokenizer.ggml.model", Value: gguf.NewString(model)}}
	if p.Vocab == BPE {
		kv = append(kv, gguf.KV{Key: "tokenizer.ggml.pre", Value: gguf.NewString(p.Pre)})
	}
	kv = append(kv,
		gguf.KV{Key: "tokenizer.ggml.tokens", Value: gguf.NewStrings(v.tokens)},
		gguf.KV{Key: "tokenizer.ggml.token_type", Value: gguf.NewInt32s(v.types)})
	if v.scores != nil {
		kv = append(kv, gguf.KV{Key: "tokenizer.ggml.scores", Value: gguf.NewFloat32s(v.scores)})
	}
	if v.merges != nil {
		kv = append(kv, gguf.KV{Key: "tokenizer.ggml.merges", Value: gguf.NewStrings(v.merges)})
	}
	kv = append(kv,
		gguf.KV{Key: "tokenizer.ggml.bos_token_id", Value: gguf.NewUint32(uint32(v.bos))},
		gguf.KV{Key: "tokenizer.ggml.eos_token_id", Value: gguf.NewUint32(uint32(v.eos))},
		gguf.KV{Key: "tokenizer.ggml.add_bos_token", Value: gguf.NewBool(p.AddBOS)},
		gguf.KV{Key: "tokenizer.ggml.add_eos_token", Value: gguf.NewBool(p.AddEOS)})
	if p.Vocab == SPM {
		kv = append(kv, gguf.KV{Key: "tokenizer.ggml.unknown_token_id", Value: gguf.NewUint32(0)})
	}
	return kv
}

// wpmKV returns the tokenizer metadata of a WordPiece vocabulary, as convert_hf_to_gguf writes BERT's: the
// special ids and the token type count, no add_* keys (llama.cpp then adds [CLS] and [SEP]).
func (v *vocab) wpmKV(p Preset) []gguf.KV {
	u32 := func(k string, x int) gguf.KV {
		return gguf.KV{Key: "tokenizer.ggml." + k, Value: gguf.NewUint32(uint32(x))}
	}
	return []gguf.KV{
		{Key: "tokenizer.ggml.model", Value: gguf.NewString("bert")},
		{Key: "tokenizer.ggml.pre", Value: gguf.NewString("bert-bge")},
		{Key: "tokenizer.ggml.tokens", Value: gguf.NewStrings(v.tokens)},
		{Key: "tokenizer.ggml.token_type", Value: gguf.NewInt32s(v.types)},
		u32("token_type_count", p.TokenTypes),
		u32("bos_token_id", v.bos), u32("unknown_token_id", 100), u32("seperator_token_id", v.eos),
		u32("padding_token_id", 0), u32("mask_token_id", 103),
	}
}
