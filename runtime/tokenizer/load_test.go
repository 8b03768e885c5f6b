package tokenizer

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// bpeVocab is a tiny byte-level BPE vocabulary: "Ġ" is the byte-level space.
func bpeVocab() []kv {
	return []kv{
		{"general.architecture", "gpt2"},
		{KeyModel, "gpt2"},
		{KeyPre, "gpt-2"},
		{KeyTokens, []string{"a", "b", "ab", "Ġ", "Ġab", "<|end|>", "c"}},
		{KeyTokenType, []int32{1, 1, 1, 1, 1, 3, 1}},
		{KeyMerges, []string{"a b", "Ġ ab"}},
		{KeyEOS, uint32(5)},
		{KeyBOS, uint32(5)},
	}
}

func spmVocab() []kv {
	return []kv{
		{KeyModel, "llama"},
		{KeyTokens, []string{"<unk>", "<s>", "</s>", "<0x61>", "▁", "a", "▁a", "aa", "▁aa"}},
		{KeyScores, []float32{0, 0, 0, 0, -1, -2, -3, -4, -0.5}},
		{KeyTokenType, []int32{2, 3, 3, 6, 1, 1, 1, 1, 1}},
	}
}

func with(base []kv, key string, val any) []kv {
	out := slices.Clone(base)
	for i := range out {
		if out[i].key == key {
			if val == nil {
				return append(out[:i], out[i+1:]...)
			}
			out[i].val = val
			return out
		}
	}
	return append(out, kv{key, val})
}

func TestCraftedVocabs(t *testing.T) {
	tk, err := Load(writeGGUF(t, bpeVocab()))
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := tk.Encode("ab abc", EncodeOptions{})
	if want := []int32{2, 4, 6}; !slices.Equal(ids, want) {
		t.Errorf("bpe: %v, want %v", ids, want)
	}
	if tk.Len() != 7 || tk.Model() != ModelBPE || !tk.IsEOG(5) || !tk.IsControl(5) {
		t.Errorf("bpe: len %d model %v", tk.Len(), tk.Model())
	}

	sp, err := Load(writeGGUF(t, spmVocab()))
	if err != nil {
		t.Fatal(err)
	}
	// "▁aa" (score -0.5) merges before "aa" (-4); " a" becomes "▁a".
	ids, _ = sp.Encode("aa a", EncodeOptions{AddSpecial: true})
	if want := []int32{1, 8, 6}; !slices.Equal(ids, want) {
		t.Errorf("spm: %v, want %v", ids, want)
	}
	if got := sp.Detokenize(ids[1:], DecodeOptions{}); got != "aa a" {
		t.Errorf("spm detokenize: %q", got)
	}
	// No token and no <0x62>: llama.cpp would throw; here the byte becomes the unknown token.
	ids, _ = sp.Encode("b", EncodeOptions{})
	if want := []int32{4, 0}; !slices.Equal(ids, want) {
		t.Errorf("spm unknown byte: %v, want %v", ids, want)
	}
}

func TestNoVocab(t *testing.T) {
	tk, err := Load(writeGGUF(t, []kv{{"general.architecture", "qwen2"}, {"qwen2.vocab_size", uint32(2048)}, {KeyModel, "no_vocab"}}))
	if err != nil {
		t.Fatal(err)
	}
	if tk.Len() != 2048 || tk.Model() != ModelNone {
		t.Errorf("len %d model %v", tk.Len(), tk.Model())
	}
	if _, err := tk.Encode("hi", EncodeOptions{}); !errors.Is(err, ErrNoVocab) {
		t.Errorf("encode: %v", err)
	}
	if tk.Detokenize([]int32{1, 2}, DecodeOptions{}) != "" {
		t.Errorf("detokenize without a vocabulary should be empty")
	}
}

func TestMalformedVocabs(t *testing.T) {
	cases := []struct {
		name string
		kvs  []kv
		want string
	}{
		{"no model key", with(bpeVocab(), KeyModel, nil), KeyModel},
		{"unknown model", with(bpeVocab(), KeyModel, "wordsoup"), "unsupported tokenizer model"},
		{"unknown pre", with(bpeVocab(), KeyPre, "martian"), "unsupported pre-tokenizer"},
		{"no tokens", with(bpeVocab(), KeyTokens, nil), KeyTokens},
		{"tokens not strings", with(bpeVocab(), KeyTokens, []int32{1, 2}), KeyTokens},
		{"types too short", with(bpeVocab(), KeyTokenType, []int32{1, 1}), KeyTokenType},
		{"scores too long", with(spmVocab(), KeyScores, make([]float32, 10)), KeyScores},
		{"no merges", with(bpeVocab(), KeyMerges, nil), KeyMerges},
		{"merge of unknown token", with(bpeVocab(), KeyMerges, []string{"a b", "Ġ zz"}), `"zz", which is not a token`},
		{"merge without space", with(bpeVocab(), KeyMerges, []string{"ab"}), "merge 0"},
		{"bad utf-8", with(bpeVocab(), KeyTokens, []string{"a", "b", "ab", "Ġ", "Ġab", "<|end|>", "\xff"}), "not valid UTF-8"},
		{"add_bos without bos", with(with(with(bpeVocab(), KeyBOS, nil), KeyEOS, nil), KeyAddBOS, true), "no BOS"},
		{"bool of wrong type", with(bpeVocab(), KeyAddBOS, "yes"), KeyAddBOS},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(writeGGUF(t, c.kvs))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error mentioning %q", err, c.want)
			}
		})
	}
}
