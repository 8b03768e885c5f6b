package hubtest

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/forma-llm/forma/gguf"
)

// Split writes the GGUF file src as a model split in n parts, as llama.cpp's gguf-split does: files
// STEM-0000k-of-0000n.gguf in dir, the first with all metadata, each with the split.* keys and its share of the
// tensors. It returns the parts' contents in order.
func Split(src, dir, stem string, n int) ([][]byte, error) {
	f, err := gguf.Open(src)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if n < 1 || n > len(f.Tensors) {
		return nil, fmt.Errorf("cannot split %d tensors in %d parts", len(f.Tensors), n)
	}
	var out [][]byte
	for i := range n {
		kv := []gguf.KV{{Key: gguf.KeySplitNo, Value: gguf.NewUint16(uint16(i))},
			{Key: gguf.KeySplitCount, Value: gguf.NewUint16(uint16(n))},
			{Key: gguf.KeySplitTensors, Value: gguf.NewInt32(int32(len(f.Tensors)))}}
		if i == 0 {
			kv = append(f.KV[:len(f.KV):len(f.KV)], kv...)
		}
		var ts []gguf.WriteTensor
		for _, ti := range f.Tensors[len(f.Tensors)*i/n : len(f.Tensors)*(i+1)/n] {
			t, err := f.Tensor(ti.Name)
			if err != nil {
				return nil, err
			}
			ts = append(ts, gguf.WriteTensor{Name: t.Name, Type: t.Type, Dims: t.Dims, Data: gguf.BytesData(t.Data)})
		}
		p := filepath.Join(dir, fmt.Sprintf("%s-%05d-of-%05d.gguf", stem, i+1, n))
		if err := gguf.WriteFile(p, gguf.Spec{KV: kv, Tensors: ts}); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
