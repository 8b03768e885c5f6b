package tokenizer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/internal/testdir"
)

// proseText is English prose (shared/testdata/perplexity/stories-a.txt, one final newline) repeated to about
// 256 KiB.
func proseText(b *testing.B) string {
	raw, err := os.ReadFile(filepath.Join(testdir.Dir(b), "perplexity", "stories-a.txt"))
	if err != nil {
		b.Fatal(err)
	}
	one := strings.TrimRight(string(raw), "\n") + "\n"
	return strings.Repeat(one, 256<<10/len(one))
}

func BenchmarkEncode(b *testing.B) {
	text := proseText(b)
	for _, name := range []string{"qwen2", "llama-bpe", "llama-spm", "gpt-2", "bert-bge"} {
		b.Run(name, func(b *testing.B) {
			tk := openVocab(b, name)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tk.Encode(text, EncodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLoad(b *testing.B) {
	for _, name := range []string{"qwen2", "llama-spm"} {
		b.Run(name, func(b *testing.B) {
			openVocab(b, name) // decompress once
			f, err := gguf.Open(filepath.Join(vocabDir, name+".gguf"))
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			for b.Loop() {
				if _, err := Load(f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecoder(b *testing.B) {
	text := proseText(b)
	tk := openVocab(b, "qwen2")
	ids, _ := tk.Encode(text, EncodeOptions{})
	d := tk.NewDecoder(DecodeOptions{})
	d.Add(ids[0]) // the pieces are rendered once, by the first decode: not part of the steady state measured
	d.Flush()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		for _, id := range ids {
			d.Add(id)
		}
		d.Flush()
	}
}
