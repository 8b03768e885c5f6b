package tokenizer

import (
	"slices"
	"testing"
)

// The vocabularies of shared/testdata/tokenizer that have both a GGUF and an .inp/.out pair.
var pairVocabs = []string{"bert-bge", "deepseek-coder", "deepseek-llm", "falcon", "gpt-2", "llama-spm", "mpt",
	"phi-3", "refact", "starcoder", "qwen2", "llama-bpe"}

// TestVocabPairs tokenizes every case of llama.cpp's tokenizer test pairs (add_special and parse_special off)
// and compares with llama.cpp's ids.
func TestVocabPairs(t *testing.T) {
	for _, name := range pairVocabs {
		t.Run(name, func(t *testing.T) {
			tk := openVocab(t, name)
			inputs, want := readPairs(t, name)
			pass := 0
			for i, in := range inputs {
				got, err := tk.Encode(in, EncodeOptions{})
				if err != nil {
					t.Fatalf("case %d: %v", i, err)
				}
				if !slices.Equal(got, want[i]) {
					t.Errorf("case %d %q:\n got  %v\n want %v", i, in, got, want[i])
					continue
				}
				pass++
			}
			t.Logf("%s: %d/%d", name, pass, len(inputs))
		})
	}
}
