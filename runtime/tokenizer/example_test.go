package tokenizer_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

// exampleVocab writes a tiny SentencePiece vocabulary (as a model's GGUF would carry it) and opens it; done
// closes and removes it.
func exampleVocab() (f *gguf.File, done func()) {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		panic(err)
	}
	p := filepath.Join(dir, "vocab.gguf")
	os.WriteFile(p, tinySPM(), 0o644)
	f, err = gguf.Open(p)
	if err != nil {
		panic(err)
	}
	return f, func() { f.Close(); os.RemoveAll(dir) }
}

func Example() {
	f, done := exampleVocab()
	defer done()
	tk, err := tokenizer.Load(f)
	if err != nil {
		panic(err)
	}
	ids, _ := tk.Encode("hi hi!", tokenizer.EncodeOptions{AddSpecial: true})
	fmt.Println(ids, tk.Len(), tk.BOS(), tk.IsEOG(tk.EOS()))
	for i, id := range ids {
		if i > 0 {
			fmt.Print(" ")
		}
		fmt.Printf("%d=%q", id, tk.Piece(id))
	}
	fmt.Println()
	fmt.Printf("%q\n", tk.Detokenize(ids[1:], tokenizer.DecodeOptions{}))

	d := tk.NewDecoder(tokenizer.DecodeOptions{RemoveSpecial: true})
	for i, id := range ids {
		if i > 0 {
			fmt.Print(" ")
		}
		fmt.Printf("%q", d.Add(id))
	}
	fmt.Println()
	// Output:
	// [1 8 8 6] 9 1 true
	// 1="<s>" 8="▁hi" 8="▁hi" 6="!"
	// "hi hi!"
	// "" " hi" " hi" "!"
}
