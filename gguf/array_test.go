package gguf

import (
	"path/filepath"
	"reflect"
	"testing"
)

// The typed array accessors decode straight from the mapping: every element type they accept, each element
// equal to what Value.Any decodes, and StringArray's views equal to Strings.
func TestArrayAccessors(t *testing.T) {
	arr := func(elem ValueType, vals ...Value) Value {
		v, err := NewArray(elem, vals)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	spec := Spec{KV: []KV{
		{"u8s", arr(TypeUint8, NewUint8(0), NewUint8(255))},
		{"i16s", arr(TypeInt16, NewInt16(-32768), NewInt16(7))},
		{"u32s", arr(TypeUint32, NewUint32(4000000000))},
		{"i64s", arr(TypeInt64, NewInt64(-1<<62))},
		{"u64big", arr(TypeUint64, NewUint64(1), NewUint64(1<<63))},
		{"bools", arr(TypeBool, NewBool(true), NewBool(false))},
		{"f32s", NewFloat32s([]float32{0.5, -1, 3e38})},
		{"f64s", arr(TypeFloat64, NewFloat64(-2.25), NewFloat64(1e-3))},
		{"strs", NewStrings([]string{"", "a", "ünï", "<|im_end|>"})},
		{"empty", NewStrings(nil)},
	}}
	path := filepath.Join(t.TempDir(), "arrays.gguf")
	if err := WriteFile(path, spec); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][]int64{"u8s": {0, 255}, "i16s": {-32768, 7}, "u32s": {4000000000},
		"i64s": {-1 << 62}, "bools": {1, 0}} {
		if got, err := f.Ints(key); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Ints(%s) = %v, %v; want %v", key, got, err, want)
		}
	}
	if _, err := f.Ints("u64big"); err == nil {
		t.Errorf("Ints of a uint64 above MaxInt64: no error")
	}
	for key, want := range map[string][]float32{"f32s": {0.5, -1, 3e38}, "f64s": {-2.25, float32(1e-3)}} {
		if got, err := f.Floats(key); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Floats(%s) = %v, %v; want %v", key, got, err, want)
		}
	}
	for _, key := range []string{"strs", "empty"} {
		want, _ := f.Value(key)
		anys, _ := want.Any()
		a, err := f.StringArray(key)
		if err != nil || a.Len() != len(anys.([]any)) {
			t.Fatalf("StringArray(%s): len %d, %v", key, a.Len(), err)
		}
		for i, s := range a.All() {
			if string(s) != anys.([]any)[i] || string(a.At(i)) != string(s) {
				t.Errorf("%s[%d] = %q (At %q), want %q", key, i, s, a.At(i), anys.([]any)[i])
			}
		}
		for parts := 1; parts <= 5; parts++ {
			var joined []string
			for _, p := range a.Split(parts) {
				for _, s := range p.All() {
					joined = append(joined, string(s))
				}
			}
			if len(joined) != a.Len() || (a.Len() > 0 && !reflect.DeepEqual(joined, anys2strings(anys))) {
				t.Errorf("%s split in %d: %q", key, parts, joined)
			}
		}
		if a.At(-1) != nil || a.At(a.Len()) != nil {
			t.Errorf("%s: At out of range is not nil", key)
		}
	}
	if _, err := f.StringArray("f32s"); err == nil || IsNotFound(err) {
		t.Errorf("StringArray of floats: %v", err)
	}
	if _, err := f.StringArray("nope"); !IsNotFound(err) {
		t.Errorf("StringArray of a missing key: %v", err)
	}
	if _, err := f.Floats("strs"); err == nil {
		t.Errorf("Floats of strings: no error")
	}
	f.Close()
	if _, err := f.StringArray("strs"); err == nil {
		t.Errorf("StringArray after Close: no error")
	}
	if _, err := f.Ints("u8s"); err == nil {
		t.Errorf("Ints after Close: no error")
	}
}

func anys2strings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
