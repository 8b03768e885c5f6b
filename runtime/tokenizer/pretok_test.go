package tokenizer

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPreTokenizers covers the pre-tokenizers that have no test pair in shared/testdata: the llama-bpe vocabulary
// is re-labelled with each tokenizer.ggml.pre name (tokens, merges and special tokens unchanged) and a mixed-script text (testdata/pretok/input.txt) is
// tokenized. testdata/pretok/NAME.ids holds llama.cpp's ids for the same re-labelled vocabulary (build
// 34af94cd9's libllama, vocab-only load, add_special and parse_special off).
func TestPreTokenizers(t *testing.T) {
	base := openVocab(t, "llama-bpe")
	input, err := os.ReadFile(filepath.Join("testdata", "pretok", "input.txt"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "pretok", "*.ids"))
	if len(files) < 30 {
		t.Fatalf("only %d reference files", len(files))
	}
	for _, file := range files {
		pre := strings.TrimSuffix(filepath.Base(file), ".ids")
		t.Run(pre, func(t *testing.T) {
			want := readIDs(t, file)
			tk := *base // the same vocabulary and merges, another pre-tokenizer (as if the file said so)
			if err := tk.applyPre(pre); err != nil {
				t.Fatal(err)
			}
			got, err := tk.Encode(string(input), EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Errorf("%d ids, llama.cpp %d; first difference at %d: got %v, want %v", len(got), len(want), i,
					got[i:min(i+8, len(got))], want[i:min(i+8, len(want))])
			}
		})
	}
}
