package tokenizer

import (
	"compress/bzip2"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/internal/testdir"
)

// vocabDir holds the decompressed vocabularies, shared by every test of one run.
var (
	vocabDir  string
	vocabMu   sync.Mutex
	vocabToks = map[string]*Tokenizer{}
)

func TestMain(m *testing.M) {
	code := m.Run()
	if vocabDir != "" {
		os.RemoveAll(vocabDir)
	}
	os.Exit(code)
}

// tokDir is the tokenizer folder of the shared reference data.
func tokDir(tb testing.TB) string { return testdir.Sub(tb, "tokenizer") }

// openVocab decompresses ggml-vocab-NAME.gguf.bz2 once per run and returns its tokenizer (cached).
func openVocab(tb testing.TB, name string) *Tokenizer {
	tb.Helper()
	vocabMu.Lock()
	defer vocabMu.Unlock()
	if tk, ok := vocabToks[name]; ok {
		return tk
	}
	f := decompressVocab(tb, name)
	tk, err := Load(f)
	f.Close()
	if err != nil {
		tb.Fatalf("load %s: %v", name, err)
	}
	vocabToks[name] = tk
	return tk
}

// decompressVocab decompresses ggml-vocab-NAME.gguf.bz2 into the run's folder (once) and opens it.
func decompressVocab(tb testing.TB, name string) *gguf.File {
	src := filepath.Join(tokDir(tb), "ggml-vocab-"+name+".gguf.bz2")
	if vocabDir == "" {
		d, err := os.MkdirTemp("", "forma-vocab-")
		if err != nil {
			tb.Fatal(err)
		}
		vocabDir = d
	}
	dst := filepath.Join(vocabDir, name+".gguf")
	if f, err := gguf.Open(dst); err == nil {
		return f
	}
	in, err := os.Open(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, bzip2.NewReader(in)); err != nil {
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
	f, err := gguf.Open(dst)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// readPairs reads X.inp / X.out the way llama.cpp's test-tokenizer-0 does.
func readPairs(tb testing.TB, name string) (inputs []string, want [][]int32) {
	tb.Helper()
	base := filepath.Join(tokDir(tb), "ggml-vocab-"+name+".gguf")
	inp, err := os.ReadFile(base + ".inp")
	if err != nil {
		tb.Fatal(err)
	}
	outb, err := os.ReadFile(base + ".out")
	if err != nil {
		tb.Fatal(err)
	}
	const sep = "\n__ggml_vocab_test__\n"
	rest := string(inp)
	for rest != "" {
		i := strings.Index(rest, sep)
		if i < 0 {
			inputs = append(inputs, rest)
			break
		}
		inputs = append(inputs, rest[:i])
		rest = rest[i+len(sep):]
	}
	lines := strings.Split(string(outb), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		var ids []int32
		for _, f := range strings.Split(strings.TrimSpace(l), " ") {
			if f == "" {
				continue
			}
			v, err := strconv.ParseInt(f, 10, 32)
			if err != nil {
				tb.Fatalf("%s.out: %v", name, err)
			}
			ids = append(ids, int32(v))
		}
		want = append(want, ids)
	}
	if len(inputs) != len(want) {
		tb.Fatalf("%s: %d inputs, %d output lines", name, len(inputs), len(want))
	}
	return inputs, want
}
