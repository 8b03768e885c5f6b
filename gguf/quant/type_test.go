package quant

import "testing"

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
