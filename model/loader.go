package model

import (
	"fmt"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf"
)

// Loader uploads a file's tensors to a backend, checking each one's shape. Its methods record the first error
// (naming the tensor) and return nil weights afterwards, so an architecture lists its tensors without an error
// check per line and calls Err once. Without a backend (Describe) it checks the shapes and uploads nothing.
type Loader struct {
	File    *gguf.File
	Backend accel.Backend
	HP      *HParams
	err     error
}

// Err returns the first error.
func (ld *Loader) Err() error { return ld.err }

// Tensor uploads the named tensor, which must have the given shape (outermost first: [out, in] for matrices).
func (ld *Loader) Tensor(name string, shape ...int) accel.Weight {
	return ld.tensor(name, true, shape)
}

// fail records err unless an error came first.
func (ld *Loader) fail(err error) {
	if ld.err == nil {
		ld.err = err
	}
}

// Optional uploads the named tensor if the file has it; nil otherwise.
func (ld *Loader) Optional(name string, shape ...int) accel.Weight {
	return ld.tensor(name, false, shape)
}

// Has reports whether the file holds the named tensor.
func (ld *Loader) Has(name string) bool { return ld.File.HasTensor(name) }

func (ld *Loader) tensor(name string, required bool, shape []int) accel.Weight {
	if ld.err != nil {
		return nil
	}
	t, err := ld.File.Tensor(name)
	if err != nil {
		if required {
			ld.err = fmt.Errorf("missing tensor %q", name)
		}
		return nil
	}
	got := make([]int, len(t.Dims))
	for i, d := range t.Dims {
		got[len(got)-1-i] = int(d)
	}
	if !equalInts(got, shape) {
		ld.err = fmt.Errorf("tensor %q has shape %v, want %v", name, got, shape)
		return nil
	}
	if ld.Backend == nil {
		return described{accel.TensorDesc{Name: name, Type: t.Type, Shape: got}}
	}
	w, err := ld.Backend.Upload(accel.WeightData{Name: name, Type: t.Type, Shape: got, Data: t.Data, Mapping: t.Mapping})
	if err != nil {
		ld.err = fmt.Errorf("tensor %q: %w", name, err)
		return nil
	}
	return w
}

// described is a weight Describe checked and did not upload.
type described struct{ d accel.TensorDesc }

func (w described) Desc() accel.TensorDesc { return w.d }

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// blk names a tensor of layer l: blk(3, "attn_q") = "blk.3.attn_q.weight".
func blk(l int, name string) string { return fmt.Sprintf("blk.%d.%s.weight", l, name) }

// blkBias names a bias of layer l: "blk.3.attn_q.bias".
func blkBias(l int, name string) string { return fmt.Sprintf("blk.%d.%s.bias", l, name) }
