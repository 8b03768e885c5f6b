package grammar

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime/tokenizer"
)

var (
	vocabMu sync.Mutex
	vocabs  = map[string]*Vocab{}
	toks    = map[string]*tokenizer.Tokenizer{}
)

// modelVocab loads the vocabulary of a model of the shared test data (cached for the run).
func modelVocab(tb testing.TB, name string) (*Vocab, *tokenizer.Tokenizer) {
	tb.Helper()
	vocabMu.Lock()
	defer vocabMu.Unlock()
	if v, ok := vocabs[name]; ok {
		return v, toks[name]
	}
	f, err := gguf.Open(filepath.Join(testdir.Sub(tb, "models"), name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	tk, err := tokenizer.Load(f)
	if err != nil {
		tb.Fatal(err)
	}
	v := FromTokenizer(tk)
	vocabs[name], toks[name] = v, tk
	return v, tk
}

const qwenModel = "rand-qwen3-chat-q8_0.gguf"
const storiesModel = "stories260K-F32.gguf"

var tokenizerOpts = tokenizer.EncodeOptions{}
