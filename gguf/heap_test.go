package gguf

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

// zeroData writes n zero bytes from a shared buffer: a large tensor without a large allocation.
func zeroData(n uint64) func(io.Writer) error {
	return func(w io.Writer) error {
		for n > 0 {
			k := min(n, uint64(len(zeroBuf)))
			if _, err := w.Write(zeroBuf[:k]); err != nil {
				return err
			}
			n -= k
		}
		return nil
	}
}

var zeroBuf = make([]byte, 1<<20)

// Opening a model of more than 1 GiB (TinyLlama-1.1B's shapes in Q8_0, with a 32000-token vocabulary) keeps the
// Go heap small: weights stay in the mapping, metadata arrays stay encoded until asked for.
func TestOpenLargeModelHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 1.2 GB file; skipped with -short")
	}
	const (
		embd, ffn, layers, vocab, kvDim = 2048, 5632, 22, 32000, 256
		heapLimit                       = 16 << 20
	)
	toks := make([]string, vocab)
	for i := range toks {
		toks[i] = fmt.Sprintf("tok%05d", i)
	}
	spec := Spec{KV: []KV{
		{KeyArchitecture, NewString("llama")},
		{"llama.block_count", NewUint32(layers)},
		{"tokenizer.ggml.tokens", NewStrings(toks)},
		{"tokenizer.ggml.scores", NewFloat32s(make([]float32, vocab))},
		{"tokenizer.ggml.token_type", NewInt32s(make([]int32, vocab))},
	}}
	toks = nil
	add := func(name string, typ quant.Type, dims ...uint64) {
		wt := WriteTensor{Name: name, Type: typ, Dims: dims}
		n, err := wt.Size()
		if err != nil {
			t.Fatal(err)
		}
		wt.Data = zeroData(n)
		spec.Tensors = append(spec.Tensors, wt)
	}
	add("token_embd.weight", quant.Q8_0, embd, vocab)
	for l := range layers {
		p := fmt.Sprintf("blk.%d.", l)
		add(p+"attn_norm.weight", quant.F32, embd)
		add(p+"attn_q.weight", quant.Q8_0, embd, embd)
		add(p+"attn_k.weight", quant.Q8_0, embd, kvDim)
		add(p+"attn_v.weight", quant.Q8_0, embd, kvDim)
		add(p+"attn_output.weight", quant.Q8_0, embd, embd)
		add(p+"ffn_norm.weight", quant.F32, embd)
		add(p+"ffn_gate.weight", quant.Q8_0, embd, ffn)
		add(p+"ffn_up.weight", quant.Q8_0, embd, ffn)
		add(p+"ffn_down.weight", quant.Q8_0, ffn, embd)
	}
	add("output_norm.weight", quant.F32, embd)
	add("output.weight", quant.Q8_0, embd, vocab)
	path := filepath.Join(t.TempDir(), "large.gguf")
	if err := WriteFile(path, spec); err != nil {
		t.Fatal(err)
	}
	spec = Spec{}
	if st, err := os.Stat(path); err != nil || st.Size() < 1<<30 {
		t.Fatalf("model file: %v, %v", st, err)
	}

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sum byte
	for _, ti := range f.Tensors {
		tn, _ := f.Tensor(ti.Name)
		sum += tn.Data[0] + tn.Data[len(tn.Data)-1]
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("file %d bytes, %d tensors; HeapAlloc %d before Open, %d after (TotalAlloc +%d)", f.Size,
		len(f.Tensors), before.HeapAlloc, after.HeapAlloc, after.TotalAlloc-before.TotalAlloc)
	if after.HeapAlloc > heapLimit {
		t.Errorf("HeapAlloc %d after Open exceeds %d", after.HeapAlloc, heapLimit)
	}
	runtime.KeepAlive(f)
}
