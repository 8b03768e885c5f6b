package tokenizer

import (
	"path/filepath"
	goruntime "runtime"
	"sync"
	"testing"

	"github.com/forma-llm/forma/gguf"
)

// The Go heap a loaded 151k-token BPE vocabulary (Qwen2's) may hold, before and after the pieces
// are rendered for decoding. The texts, their index and the merges live in a few flat arrays: about 1 MB of
// text, 0.6 MB of offsets, a 4 MB index and a 4 MB merge table (10.2 MiB measured; 12.7 MiB with the pieces).
const (
	heapBoundLoaded  = 12 << 20
	heapBoundDecoded = 15 << 20
)

func liveHeap() uint64 {
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func TestLoadHeap(t *testing.T) {
	openVocab(t, "qwen2") // decompressed once
	f, err := gguf.Open(filepath.Join(vocabDir, "qwen2.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before := liveHeap()
	tk, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	loaded := liveHeap() - before
	tk.Detokenize([]int32{1, 2, 3}, DecodeOptions{})
	decoded := liveHeap() - before
	goruntime.KeepAlive(tk)
	t.Logf("%d tokens: %.1f MiB of Go heap after Load, %.1f MiB once decoding has rendered the pieces", tk.Len(),
		float64(loaded)/(1<<20), float64(decoded)/(1<<20))
	if loaded > heapBoundLoaded || decoded > heapBoundDecoded {
		t.Errorf("heap %d MiB loaded (bound %d), %d MiB decoded (bound %d)", loaded>>20, heapBoundLoaded>>20,
			decoded>>20, heapBoundDecoded>>20)
	}
}

// The pieces are rendered by the first decode: several goroutines decoding at once on a fresh Tokenizer all see
// them whole (run with -race).
func TestFirstDecodeConcurrent(t *testing.T) {
	f := decompressVocab(t, "qwen2")
	defer f.Close()
	tk, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	const text = "Hello, wörld! 你好 <|im_end|>"
	ids, err := tk.Encode(text, EncodeOptions{ParseSpecial: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := tk.Detokenize(ids, DecodeOptions{Special: true}); got != text {
				t.Errorf("Detokenize = %q, want %q", got, text)
			}
		})
	}
	wg.Wait()
}

// An empty token text becomes llama.cpp's placeholder, [EMPTY_<id>], in the flat texts like any other.
func TestEmptyTokenText(t *testing.T) {
	tk, err := Load(writeGGUF(t, with(bpeVocab(), KeyTokens, []string{"a", "b", "ab", "Ġ", "", "<|end|>", "c"})))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range []string{"a", "b", "ab", "Ġ", "[EMPTY_4]", "<|end|>", "c"} {
		if got := tk.Piece(int32(id)); got != want {
			t.Errorf("Piece(%d) = %q, want %q", id, got, want)
		}
		if got, ok := tk.ID(want); !ok || got != int32(id) {
			t.Errorf("ID(%q) = %d, %v; want %d", want, got, ok, id)
		}
	}
}
