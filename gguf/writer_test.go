package gguf

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/forma-llm/forma/gguf/quant"
)

func TestWriteReadAllTypes(t *testing.T) {
	spec := sampleSpec(t)
	path := filepath.Join(t.TempDir(), "all.gguf")
	if err := WriteFile(path, spec); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Version != Version || f.Alignment != 64 || len(f.KV) != len(spec.KV) {
		t.Fatalf("version %d alignment %d, %d KVs", f.Version, f.Alignment, len(f.KV))
	}
	want := map[string]any{
		"t.u8": int64(200), "t.i8": int64(-100), "t.u16": int64(60000), "t.i16": int64(-30000),
		"t.u32": int64(4000000000), "t.i32": int64(-2000000000), "t.f32": 1.5, "t.bool": true, "t.str": "hello",
		"t.u64": uint64(1 << 63), "t.i64": int64(-1 << 62), "t.f64": -2.25,
		"t.strs": []any{"x", "yz"}, "t.i32s": []any{int64(1), int64(-2), int64(3)}, "t.f32s": []any{0.5, -1.0},
		"t.nested": []any{[]any{int64(-3), int64(7)}, []any{"a", "", "ünï"}}, "t.bools": []any{true, false},
	}
	for i, kv := range f.KV {
		if kv.Key != spec.KV[i].Key || kv.Value.Type != spec.KV[i].Value.Type {
			t.Errorf("KV %d: %s %s, want %s %s", i, kv.Key, kv.Value.Type, spec.KV[i].Key, spec.KV[i].Value.Type)
		}
		w, ok := want[kv.Key]
		if !ok {
			continue
		}
		if got, err := kv.Value.Any(); err != nil || !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %#v, %v; want %#v", kv.Key, got, err, w)
		}
	}
	if ss, err := f.Strings("t.strs"); err != nil || !reflect.DeepEqual(ss, []string{"x", "yz"}) {
		t.Errorf("Strings: %q, %v", ss, err)
	}
	if xs, err := f.Floats("t.f32s"); err != nil || !reflect.DeepEqual(xs, []float32{0.5, -1}) {
		t.Errorf("Floats: %v, %v", xs, err)
	}
	if _, err := f.Strings("t.i32s"); err == nil || IsNotFound(err) {
		t.Errorf("Strings of an int array: %v", err)
	}
	for i, ti := range f.Tensors {
		tn, err := f.Tensor(ti.Name)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		spec.Tensors[i].Data(&b)
		if ti.Offset%64 != 0 || !bytes.Equal(tn.Data, b.Bytes()) || !reflect.DeepEqual(ti.Dims, spec.Tensors[i].Dims) {
			t.Errorf("tensor %s: offset %d dims %v, bytes equal %v", ti.Name, ti.Offset, ti.Dims, bytes.Equal(tn.Data, b.Bytes()))
		}
	}
	if st, _ := os.Stat(path); st.Size()%64 != 0 {
		t.Errorf("file of %d bytes is not padded to the alignment", st.Size())
	}
}

func TestWriteErrors(t *testing.T) {
	ok := func() Spec { return sampleSpec(t) }
	cases := []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"duplicate key", func(s *Spec) { s.KV = append(s.KV, s.KV[0]) }, "duplicate metadata key"},
		{"alignment", func(s *Spec) { s.KV[1].Value = NewUint32(3) }, "power-of-two"},
		{"version", func(s *Spec) { s.Version = 1 }, "cannot write version 1"},
		{"duplicate tensor", func(s *Spec) { s.Tensors = append(s.Tensors, s.Tensors[0]) }, `duplicate tensor name "a"`},
		{"no data", func(s *Spec) { s.Tensors[0].Data = nil }, `tensor "a" has no Data`},
		{"dims", func(s *Spec) { s.Tensors[1].Dims = []uint64{48, 2} }, `tensor "b": row length 48`},
		{"type", func(s *Spec) { s.Tensors[1].Type = 5 }, `tensor "b": unknown tensor type 5`},
		{"short", func(s *Spec) { s.Tensors[2].Data = BytesData(make([]byte, 47)) }, `tensor "c": Data wrote 47 of the tensor's 48 bytes`},
		{"long", func(s *Spec) { s.Tensors[2].Data = ReaderData(strings.NewReader(strings.Repeat("x", 49))) }, `tensor "c": Data wrote more`},
		{"data error", func(s *Spec) { s.Tensors[3].Data = func(io.Writer) error { return io.ErrUnexpectedEOF } }, `tensor "d": unexpected EOF`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ok()
			c.edit(&s)
			path := filepath.Join(t.TempDir(), "x.gguf")
			err := WriteFile(path, s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v; want %q", err, c.want)
			}
			if _, serr := os.Stat(path); serr == nil {
				t.Error("a failed WriteFile left its file behind")
			}
		})
	}
}

// A model split in parts (llama.cpp's gguf-split naming and split.* keys) opens as one File.
func TestSplitModel(t *testing.T) {
	dir := t.TempDir()
	all := sampleSpec(t).Tensors
	parts := [][]WriteTensor{all[:2], all[2:3], all[3:]}
	for i, ts := range parts {
		kv := []KV{{KeySplitNo, NewUint16(uint16(i))}, {KeySplitCount, NewUint16(3)},
			{KeySplitTensors, NewInt32(int32(len(all)))}}
		if i == 0 {
			kv = append(kv, KV{KeyArchitecture, NewString("llama")})
		}
		if err := WriteFile(filepath.Join(dir, fmt.Sprintf("m-%05d-of-00003.gguf", i+1)), Spec{KV: kv, Tensors: ts}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Open(filepath.Join(dir, "m-00001-of-00003.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if arch, _ := f.Architecture(); arch != "llama" || len(f.Tensors) != 4 || len(f.Paths) != 3 {
		t.Errorf("arch %q, %d tensors, %d parts", arch, len(f.Tensors), len(f.Paths))
	}
	if err := walk(f); err != nil {
		t.Error(err)
	}
	// Each tensor's Mapping is its own part's page-aligned mapping, holding its Data.
	for i, ti := range f.Tensors {
		tn, _ := f.Tensor(ti.Name)
		base, data := uintptr(unsafe.Pointer(unsafe.SliceData(tn.Mapping))), uintptr(unsafe.Pointer(unsafe.SliceData(tn.Data)))
		st, _ := os.Stat(f.Paths[[]int{0, 0, 1, 2}[i]])
		if int64(len(tn.Mapping)) != st.Size() || base%uintptr(os.Getpagesize()) != 0 || data < base ||
			data+uintptr(len(tn.Data)) > base+uintptr(len(tn.Mapping)) {
			t.Errorf("tensor %s: mapping of %d bytes at %#x, data at %#x (part of %d bytes)", ti.Name, len(tn.Mapping), base, data, st.Size())
		}
	}
	f.Close()
	if _, err := f.Tensor("a"); err == nil {
		t.Error("Tensor after Close")
	}

	// A missing part, a part out of order and a lone part are errors.
	os.Rename(filepath.Join(dir, "m-00003-of-00003.gguf"), filepath.Join(dir, "x.gguf"))
	if _, err := Open(filepath.Join(dir, "m-00001-of-00003.gguf")); err == nil || !strings.Contains(err.Error(), "m-00003-of-00003") {
		t.Errorf("missing part: %v", err)
	}
	os.Rename(filepath.Join(dir, "m-00002-of-00003.gguf"), filepath.Join(dir, "m-00003-of-00003.gguf"))
	os.Rename(filepath.Join(dir, "x.gguf"), filepath.Join(dir, "m-00002-of-00003.gguf"))
	if _, err := Open(filepath.Join(dir, "m-00001-of-00003.gguf")); err == nil || !strings.Contains(err.Error(), "split.no") {
		t.Errorf("parts out of order: %v", err)
	}
	lone := filepath.Join(dir, "lone.gguf")
	os.Rename(filepath.Join(dir, "m-00001-of-00003.gguf"), lone)
	if _, err := Open(lone); err == nil || !strings.Contains(err.Error(), "one part of a model split in 3") {
		t.Errorf("lone part: %v", err)
	}
}

func ExampleWriteFile() {
	dir, _ := os.MkdirTemp("", "gguf-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tiny.gguf")
	weights := make([]byte, 4*8) // 8 float32 zeros
	err := WriteFile(path, Spec{
		KV: []KV{
			{KeyArchitecture, NewString("llama")},
			{"tokenizer.ggml.tokens", NewStrings([]string{"<unk>", "<s>", "</s>"})},
		},
		Tensors: []WriteTensor{{Name: "w", Type: quant.F32, Dims: []uint64{4, 2}, Data: BytesData(weights)}},
	})
	if err != nil {
		panic(err)
	}
	f, err := Open(path)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	toks, _ := f.Strings("tokenizer.ggml.tokens")
	w, _ := f.Tensor("w")
	fmt.Println(f.Version, toks, w.Type, w.Dims, len(w.Data))
	// Output: 3 [<unk> <s> </s>] F32 [4 2] 32
}
