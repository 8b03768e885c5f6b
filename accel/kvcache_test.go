package accel

import (
	"slices"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

type fakeBuffer struct{ d TensorDesc }

func (f *fakeBuffer) Desc() TensorDesc { return f.d }
func (f *fakeBuffer) Close() error     { return nil }

// TestKVCacheChecks: the builder accepts the quantized cache types only with flash attention and whole blocks
// per head, and rotations only in powers of two dividing the head size, each refusal naming the problem.
func TestKVCacheChecks(t *testing.T) {
	cases := []struct {
		name string
		typ  DType
		size int
		rot  int
		p    AttentionParams
		want string // "" for no error
	}{
		{"q8_0 flash", quant.Q8_0, 64, 0, AttentionParams{Scale: 1, Flash: true}, ""},
		{"q4_0 rotated", quant.Q4_0, 128, 128, AttentionParams{Scale: 1, Flash: true, RotK: 128, RotV: 64}, ""},
		{"f16 flash rotated", quant.F16, 64, 64, AttentionParams{Scale: 1, Flash: true, RotK: 64, RotV: 64}, ""},
		{"q8_0 without flash", quant.Q8_0, 64, 0, AttentionParams{Scale: 1}, "needs flash attention"},
		{"q8_0 head 48", quant.Q8_0, 48, 0, AttentionParams{Scale: 1, Flash: true}, "multiple of 32, not 48"},
		{"q4_k cache", quant.Q4_K, 256, 0, AttentionParams{Scale: 1, Flash: true}, "F16/F32/Q8_0/Q4_0"},
		{"rotation 48", quant.Q8_0, 96, 48, AttentionParams{Scale: 1, Flash: true}, "rotation size 48"},
		{"rotation without flash", quant.F16, 64, 0, AttentionParams{Scale: 1, RotK: 64}, "bad attention rotation"},
	}
	for _, c := range cases {
		b := NewBuilder()
		kb := b.Buffer(&fakeBuffer{TensorDesc{Name: "k", Type: c.typ, Shape: []int{16, 2, c.size}}})
		vb := b.Buffer(&fakeBuffer{TensorDesc{Name: "v", Type: c.typ, Shape: []int{16, 2, c.size}}})
		x, pos := b.Input("x", F32, 1, 2, c.size), b.Input("pos", I32, 1)
		k := b.KVStoreRotated(kb, x, pos, c.rot)
		q := b.Input("q", F32, 1, 4, c.size)
		b.Output(b.Attention(q, k, vb, pos, c.p))
		_, err := b.Build()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err %v, want one containing %q", c.name, err, c.want)
		}
	}
	if got := []int{KVRotation(quant.Q8_0, 64, true), KVRotation(quant.Q8_0, 128, true), KVRotation(quant.Q4_0, 192, true),
		KVRotation(quant.Q4_0, 128, false), KVRotation(quant.F16, 128, true), KVRotation(quant.Q8_0, 96, true)}; !slices.Equal(got, []int{64, 128, 64, 64, 0, 0}) {
		t.Errorf("KVRotation: %v", got)
	}
}
