package gguf

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

// modelCase is what testdata/README.md states about one model.
type modelCase struct {
	arch    string
	tensors int
	mix     map[quant.Type]int // tensor count per type
	ints    map[string]int64   // metadata; keys starting with "." are prefixed by the architecture
	vocab   int                // length of tokenizer.ggml.tokens, or 0 for none
	tokModl string             // tokenizer.ggml.model
	merges  int
}

func storiesCase(mix map[quant.Type]int) modelCase {
	return modelCase{arch: "llama", tensors: 48, mix: mix, vocab: 512, tokModl: "llama",
		ints: map[string]int64{".embedding_length": 64, ".block_count": 5, ".attention.head_count": 8,
			".attention.head_count_kv": 4, ".feed_forward_length": 172, ".context_length": 128}}
}

func storiesQuant(t quant.Type) modelCase {
	return storiesCase(map[quant.Type]int{t: 31, quant.Q8_0: 1, quant.F16: 5, quant.F32: 11})
}

func randInts(embd, layers, heads, kv, ffn int64) map[string]int64 {
	return map[string]int64{".embedding_length": embd, ".block_count": layers, ".attention.head_count": heads,
		".attention.head_count_kv": kv, ".feed_forward_length": ffn}
}

var modelCases = map[string]modelCase{
	"stories260K-F32":  storiesCase(map[quant.Type]int{quant.F32: 48}),
	"stories260K-F16":  storiesCase(map[quant.Type]int{quant.F16: 37, quant.F32: 11}),
	"stories260K-BF16": storiesCase(map[quant.Type]int{quant.BF16: 37, quant.F32: 11}),
	"stories260K-Q8_0": storiesCase(map[quant.Type]int{quant.Q8_0: 32, quant.F16: 5, quant.F32: 11}),
	"stories260K-Q4_0": storiesQuant(quant.Q4_0),
	"stories260K-Q4_1": storiesQuant(quant.Q4_1),
	"stories260K-Q5_0": storiesQuant(quant.Q5_0),
	"stories260K-Q5_1": storiesQuant(quant.Q5_1),
	"rand-llama-q4_k": {arch: "llama", tensors: 20, mix: map[quant.Type]int{quant.Q4_K: 15, quant.F32: 5},
		ints: randInts(256, 2, 4, 2, 512), vocab: 32000, tokModl: "llama"},
	"rand-qwen2-q8_0": {arch: "qwen2", tensors: 27, mix: map[quant.Type]int{quant.Q8_0: 16, quant.F32: 11},
		ints: randInts(256, 2, 4, 2, 512), tokModl: "no_vocab"},
	"rand-qwen3-q6_k": {arch: "qwen3", tensors: 24, mix: map[quant.Type]int{quant.Q6_K: 15, quant.F32: 9},
		ints: with(randInts(256, 2, 4, 2, 768), ".attention.key_length", 64), tokModl: "no_vocab"},
	"rand-gemma3-f16": {arch: "gemma3", tensors: 42, mix: map[quant.Type]int{quant.F16: 23, quant.F32: 19},
		ints: with(randInts(256, 3, 4, 1, 512), ".attention.sliding_window", 8), tokModl: "no_vocab"},
	"rand-phi3-q5_k": {arch: "phi3", tensors: 15, mix: map[quant.Type]int{quant.Q5_K: 10, quant.F32: 5},
		ints: randInts(256, 2, 4, 4, 512), tokModl: "no_vocab"},
	"rand-qwen3-chat-q8_0": {arch: "qwen3", tensors: 24,
		mix:   map[quant.Type]int{quant.Q8_0: 14, quant.Q4_0: 1, quant.F32: 9},
		ints:  with(with(randInts(32, 2, 4, 2, 512), ".context_length", 40960), "tokenizer.ggml.eos_token_id", 151645),
		vocab: 151669, tokModl: "gpt2", merges: 151387},
}

func with(m map[string]int64, k string, v int64) map[string]int64 { m[k] = v; return m }

func TestTestdataModels(t *testing.T) {
	paths := modelPaths(t)
	if len(paths) != len(modelCases) {
		t.Errorf("testdata has %d models, the table %d", len(paths), len(modelCases))
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".gguf")
		t.Run(name, func(t *testing.T) {
			want, ok := modelCases[name]
			if !ok {
				t.Fatalf("no expectations for %s", name)
			}
			f, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			checkModel(t, f, want)
			if err := walk(f); err != nil {
				t.Error(err)
			}
		})
	}
}

func checkModel(t *testing.T, f *File, want modelCase) {
	t.Helper()
	if arch, err := f.Architecture(); err != nil || arch != want.arch {
		t.Errorf("architecture %q, %v; want %q", arch, err, want.arch)
	}
	if len(f.Tensors) != want.tensors {
		t.Errorf("%d tensors, want %d", len(f.Tensors), want.tensors)
	}
	mix := map[quant.Type]int{}
	for _, ti := range f.Tensors {
		mix[ti.Type]++
	}
	if len(mix) != len(want.mix) {
		t.Errorf("type mix %v, want %v", mix, want.mix)
	}
	for typ, n := range want.mix {
		if mix[typ] != n {
			t.Errorf("%d tensors of %s, want %d", mix[typ], typ, n)
		}
	}
	for k, v := range want.ints {
		if strings.HasPrefix(k, ".") {
			k = want.arch + k
		}
		if got, err := f.Int(k); err != nil || got != v {
			t.Errorf("%s = %d, %v; want %d", k, got, err, v)
		}
	}
	if m, err := f.String("tokenizer.ggml.model"); err != nil || m != want.tokModl {
		t.Errorf("tokenizer.ggml.model = %q, %v; want %q", m, err, want.tokModl)
	}
	toks, err := f.Strings("tokenizer.ggml.tokens")
	if want.vocab == 0 && !IsNotFound(err) || want.vocab != 0 && len(toks) != want.vocab {
		t.Errorf("%d tokens (%v), want %d", len(toks), err, want.vocab)
	}
	if merges, _ := f.Strings("tokenizer.ggml.merges"); len(merges) != want.merges {
		t.Errorf("%d merges, want %d", len(merges), want.merges)
	}
}

// The vocab-only GGUFs of tokenizer/ (bzip2-compressed there): no tensors, a vocabulary, and for the two built
// ones the counts the README gives.
func TestTestdataVocabs(t *testing.T) {
	if testing.Short() {
		t.Skip("decompresses ~60 MB; skipped with -short")
	}
	known := map[string]struct{ tokens, merges, bos, eos int }{
		"ggml-vocab-qwen2.gguf":     {151669, 151387, 151643, 151645},
		"ggml-vocab-llama-bpe.gguf": {128256, 280147, 128000, 128001},
		"ggml-vocab-llama-spm.gguf": {32000, 0, 1, 2},
	}
	for _, p := range vocabPaths(t, t.TempDir()) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if len(f.Tensors) != 0 {
				t.Errorf("%d tensors in a vocab-only file", len(f.Tensors))
			}
			if _, err := f.String("tokenizer.ggml.model"); err != nil {
				t.Error(err)
			}
			toks, err := f.Strings("tokenizer.ggml.tokens")
			if err != nil || len(toks) == 0 {
				t.Fatalf("tokens: %d, %v", len(toks), err)
			}
			if k, ok := known[filepath.Base(p)]; ok {
				merges, _ := f.Strings("tokenizer.ggml.merges")
				bos, _ := f.Int("tokenizer.ggml.bos_token_id")
				eos, _ := f.Int("tokenizer.ggml.eos_token_id")
				if len(toks) != k.tokens || len(merges) != k.merges || bos != int64(k.bos) || eos != int64(k.eos) {
					t.Errorf("tokens %d merges %d bos %d eos %d; want %+v", len(toks), len(merges), bos, eos, k)
				}
			}
			if err := walk(f); err != nil {
				t.Error(err)
			}
		})
	}
}

// Every testdata file, read and written back with the same metadata, tensors and alignment, is byte-for-byte
// the original: the writer lays files out as llama.cpp's does.
func TestRoundTripTestdata(t *testing.T) {
	paths := modelPaths(t)
	if !testing.Short() {
		paths = append(paths, vocabPaths(t, t.TempDir())...)
	}
	out := t.TempDir()
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			dst := filepath.Join(out, filepath.Base(p))
			if err := WriteFile(dst, specOf(f)); err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(p)
			got, _ := os.ReadFile(dst)
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("written file differs from the original at byte %d (sizes %d, %d)", i, len(got), len(want))
			}
		})
	}
}
