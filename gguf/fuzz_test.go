package gguf

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

// sampleSpec is a small file using every value type, nested arrays, several tensor types and a non-default
// alignment.
func sampleSpec(t testing.TB) Spec {
	t.Helper()
	inner1, err := NewArray(TypeInt16, []Value{NewInt16(-3), NewInt16(7)})
	if err != nil {
		t.Fatal(err)
	}
	inner2 := NewStrings([]string{"a", "", "ünï"})
	nested, err := NewArray(TypeArray, []Value{inner1, inner2})
	if err != nil {
		t.Fatal(err)
	}
	bools, err := NewArray(TypeBool, []Value{NewBool(true), NewBool(false)})
	if err != nil {
		t.Fatal(err)
	}
	kv := []KV{
		{"general.architecture", NewString("llama")},
		{KeyAlignment, NewUint32(64)},
		{"t.u8", NewUint8(200)}, {"t.i8", NewInt8(-100)}, {"t.u16", NewUint16(60000)}, {"t.i16", NewInt16(-30000)},
		{"t.u32", NewUint32(4000000000)}, {"t.i32", NewInt32(-2000000000)}, {"t.f32", NewFloat32(1.5)},
		{"t.bool", NewBool(true)}, {"t.str", NewString("hello")}, {"t.u64", NewUint64(1 << 63)},
		{"t.i64", NewInt64(-1 << 62)}, {"t.f64", NewFloat64(-2.25)},
		{"t.strs", NewStrings([]string{"x", "yz"})}, {"t.i32s", NewInt32s([]int32{1, -2, 3})},
		{"t.f32s", NewFloat32s([]float32{0.5, -1})}, {"t.nested", nested}, {"t.bools", bools},
	}
	data := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i * 7)
		}
		return b
	}
	ts := []WriteTensor{
		{Name: "a", Type: quant.F32, Dims: []uint64{3}, Data: BytesData(data(12))},
		{Name: "b", Type: quant.Q4_0, Dims: []uint64{64, 2}, Data: BytesData(data(72))},
		{Name: "c", Type: quant.F16, Dims: []uint64{2, 3, 4, 1}, Data: BytesData(data(48))},
		{Name: "d", Type: quant.Q4_K, Dims: []uint64{256}, Data: BytesData(data(144))},
	}
	return Spec{KV: kv, Tensors: ts}
}

func encode(t testing.TB, s Spec) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := Write(&buf, s); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzOpen feeds arbitrary bytes to Open. A file either fails with an error or opens into a File whose every
// value and tensor can be used, and which the writer can write back into a file that opens the same.
func FuzzOpen(f *testing.F) {
	f.Add(encode(f, sampleSpec(f)))
	f.Add(encode(f, Spec{Version: 2, KV: []KV{{"k", NewString("v")}}}))
	f.Add([]byte("GGUF\x03\x00\x00\x00"))
	// Real metadata and tensor tables from testdata, with each tensor shrunk to one block so that inputs stay
	// small (whole files make every execution write and map hundreds of kilobytes).
	for _, p := range testdataSeeds() {
		gf, err := Open(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(encode(f, shrunk(gf)))
		gf.Close()
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(t.TempDir(), "f.gguf")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		gf, err := Open(path)
		if err != nil {
			return
		}
		defer gf.Close()
		if err := walk(gf); err != nil {
			t.Fatalf("opened file fails the walk: %v", err)
		}
		var out bytes.Buffer
		if _, err := Write(&out, specOf(gf)); err != nil {
			t.Fatalf("cannot write back an opened file: %v", err)
		}
		back, err := parseMem(out.Bytes())
		if err != nil {
			t.Fatalf("written-back file does not open: %v", err)
		}
		if len(back.KV) != len(gf.KV) || len(back.Tensors) != len(gf.Tensors) {
			t.Fatalf("written-back file has %d KVs, %d tensors; want %d, %d",
				len(back.KV), len(back.Tensors), len(gf.KV), len(gf.Tensors))
		}
	})
}

// testdataSeeds returns one testdata model of each architecture, if the folder is there
// (no skip: the fuzz target has seeds of its own).
func testdataSeeds() []string {
	dir := os.Getenv("FORMA_TESTDATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "testdata") // the package folder is one below the module root
	}
	var out []string
	for _, name := range []string{"stories260K-Q4_0", "rand-qwen2-q8_0", "rand-qwen3-q6_k", "rand-gemma3-f16",
		"rand-phi3-q5_k"} {
		p := filepath.Join(dir, "models", name+".gguf")
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// shrunk returns f's metadata and tensor table with every tensor reduced to a single row of one block.
func shrunk(f *File) Spec {
	s := Spec{Version: f.Version, KV: f.KV}
	for _, ti := range f.Tensors {
		dims := []uint64{uint64(ti.Type.BlockElems())}
		s.Tensors = append(s.Tensors, WriteTensor{Name: ti.Name, Type: ti.Type, Dims: dims,
			Data: BytesData(make([]byte, ti.Type.BlockBytes()))})
	}
	return s
}
