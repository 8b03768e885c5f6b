package accel

import (
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

type fakeWeight struct{ d TensorDesc }

func (w *fakeWeight) Desc() TensorDesc { return w.d }

// TestPlanRowsOfWeightOffsets checks that a Rows view of a weight is placed in the weight's own storage units:
// a Q8_0 row of 64 elements is two 34-byte blocks, a BF16 element 2 bytes — not 4-byte scratch elements.
func TestPlanRowsOfWeightOffsets(t *testing.T) {
	cases := []struct {
		typ  DType
		cols int
		want int64 // byte offset of rows [3, 5)
	}{
		{F32, 64, 3 * 64 * 4},
		{F16, 64, 3 * 64 * 2},
		{quant.BF16, 64, 3 * 64 * 2},
		{quant.Q8_0, 64, 3 * 2 * 34},
		{quant.Q4_K, 256, 3 * 144},
	}
	for _, c := range cases {
		b := NewBuilder()
		w := b.Weight(&fakeWeight{TensorDesc{Name: "w", Type: c.typ, Shape: []int{8, c.cols}}})
		r := b.Output(b.Rows(w, 3, 2))
		g, err := b.Build()
		if err != nil {
			t.Fatalf("%s: %v", c.typ, err)
		}
		p, err := NewPlan(g, 64)
		if err != nil {
			t.Fatal(err)
		}
		if loc := p.Loc[r.ID()]; loc.Kind != LocWeight || loc.Root != w || loc.Offset != c.want {
			t.Errorf("%s: rows [3,5) at %+v, want weight offset %d", c.typ, loc, c.want)
		}
	}
}

func TestBuilderRejectsPartialBlocks(t *testing.T) {
	b := NewBuilder()
	w := b.Weight(&fakeWeight{TensorDesc{Name: "w", Type: quant.Q8_0, Shape: []int{4, 64}}})
	b.Rows(b.Reshape(w, 16, 16), 1, 2)
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "block") {
		t.Errorf("reshape of Q8_0 into 16-element rows: err = %v, want a block error", err)
	}
	b = NewBuilder()
	w = b.Weight(&fakeWeight{TensorDesc{Name: "w", Type: quant.Q8_0, Shape: []int{256}}})
	b.Rows(w, 16, 32)
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "block") {
		t.Errorf("rows [16, 48) of a Q8_0 vector: err = %v, want a block error", err)
	}
}
