package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

type detokCase struct {
	Case      int    `json:"case"`
	Roundtrip bool   `json:"roundtrip"`
	Detok     string `json:"detok"`
}

// TestDetokenize checks Detokenize (remove_special off, unparse_special on) against llama.cpp's detokenization
// of every test case, and the streaming Decoder against the concatenated pieces.
func TestDetokenize(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(tokDir(t), "detokenize.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all map[string][]detokCase
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	for _, name := range pairVocabs {
		t.Run(name, func(t *testing.T) {
			cases := all["ggml-vocab-"+name+".gguf"]
			if len(cases) == 0 {
				t.Fatal("no detokenize.json cases")
			}
			tk := openVocab(t, name)
			inputs, ids := readPairs(t, name)
			rt := 0
			for _, c := range cases {
				got := tk.Detokenize(ids[c.Case], DecodeOptions{Special: true})
				if got != c.Detok {
					t.Errorf("case %d: got %q, llama.cpp %q", c.Case, got, c.Detok)
				}
				if (got == inputs[c.Case]) != c.Roundtrip {
					t.Errorf("case %d: round trip %v, llama.cpp %v", c.Case, got == inputs[c.Case], c.Roundtrip)
				}
				if c.Roundtrip {
					rt++
				}
				checkDecoder(t, tk, ids[c.Case])
			}
			t.Logf("%s: %d cases equal llama.cpp, %d round trips", name, len(cases), rt)
		})
	}
}

// checkDecoder feeds ids one at a time: the chunks must concatenate to the pieces (first one stripped of the
// prefix space) and never end inside a character when the whole text is valid UTF-8.
func checkDecoder(t *testing.T, tk *Tokenizer, ids []int32) {
	t.Helper()
	var want []byte
	for i, id := range ids {
		want = tk.AppendPiece(want, id, PieceOptions{Special: true, LStrip: i == 0 && tk.addSpacePrefix})
	}
	d := tk.NewDecoder(DecodeOptions{Special: true})
	var got strings.Builder
	for _, id := range ids {
		chunk := d.Add(id)
		if utf8.Valid(want) && !utf8.Valid(chunk) {
			t.Errorf("decoder emitted a split character: %q", chunk)
		}
		got.Write(chunk)
	}
	got.Write(d.Flush())
	if got.String() != string(want) {
		t.Errorf("decoder: got %q, want %q", got.String(), want)
	}
}
