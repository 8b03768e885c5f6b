package quant

import (
	"fmt"
	"testing"
)

func TestTypeTable(t *testing.T) {
	for _, ty := range Types() {
		tr := typeTraits[ty]
		if got, err := ParseType(tr.name); err != nil || got != ty {
			t.Errorf("ParseType(%q) = %v, %v", tr.name, got, err)
		}
		if n, err := ty.RowBytes(4 * tr.blockElems); err != nil || n != 4*tr.blockBytes {
			t.Errorf("%s: RowBytes = %d, %v", ty, n, err)
		}
	}
	if _, err := Q4_K.RowBytes(100); err == nil {
		t.Error("RowBytes accepted a partial block")
	}
	if _, err := ParseType("q9_z"); err == nil {
		t.Error("ParseType accepted an unknown name")
	}
	if got, _ := ParseType("q4_k"); got != Q4_K {
		t.Errorf("ParseType is not case-insensitive: %v", got)
	}
	if Type(4).Valid() || Type(4).String() != "type(4)" {
		t.Error("retired type 4 should be invalid")
	}
}

// TestTraitsRows checks that the rows agree with each other: a type with dot products has a vec-dot reference,
// a dequantizer, and an activation type that QuantizeActivation converts to, in blocks that tile the weight's.
func TestTraitsRows(t *testing.T) {
	for _, w := range Types() {
		tr := &typeTraits[w]
		for o := range numOrders {
			if tr.ref[o] != nil && tr.ref[OrderVecDot] == nil || tr.fast[o] != nil && tr.ref[o] == nil {
				t.Errorf("%s: a %s dot product without its reference or the vec-dot one", w, o)
			}
		}
		if tr.ref[OrderVecDot] == nil {
			if tr.act != F32 {
				t.Errorf("%s: activation type %s without a dot product", w, tr.act)
			}
			continue
		}
		a := &typeTraits[tr.act]
		if tr.dequantize == nil || a.fromFloat == nil || tr.blockElems%a.blockElems != 0 {
			t.Errorf("%s: dequantizer %v, activation %s with a conversion %v and blocks of %d", w,
				tr.dequantize != nil, tr.act, a.fromFloat != nil, a.blockElems)
		}
	}
	if got, want := fmt.Sprint(WeightTypes()), "[F32 F16 Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q3_K Q4_K Q5_K Q6_K IQ4_NL IQ4_XS BF16 MXFP4]"; got != want {
		t.Errorf("WeightTypes %s, want %s", got, want)
	}
}
