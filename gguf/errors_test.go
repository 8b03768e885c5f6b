package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

// raw encodes a file as given, without the writer's checks: offsets, dims and types are taken as they are, and
// dataLen bytes of data follow the aligned header.
func raw(version uint32, kvs []KV, infos []TensorInfo, dataLen int) []byte {
	var buf bytes.Buffer
	e := &encoder{w: &buf}
	e.header(version, kvs, infos)
	e.pad(DefaultAlignment)
	e.bytes(make([]byte, dataLen))
	return buf.Bytes()
}

func f32(name string, n, off uint64) TensorInfo {
	return TensorInfo{Name: name, Type: quant.F32, Dims: []uint64{n}, Offset: off}
}

var arch = []KV{{KeyArchitecture, NewString("llama")}}

func TestOpenErrors(t *testing.T) {
	bigEndian := raw(3, nil, nil, 0)
	binary.BigEndian.PutUint32(bigEndian[4:], 3)
	badType := f32("w", 4, 0)
	badType.Type = 4 // retired Q4_2
	cases := []struct {
		name string
		file []byte
		want string // in the error
	}{
		{"empty", nil, "not a GGUF file"},
		{"magic", []byte("GGML\x03\x00\x00\x00"), "not a GGUF file"},
		{"v1", raw(1, nil, nil, 0), "version 1 is not supported"},
		{"big-endian", bigEndian, "big-endian"},
		{"v4", raw(4, nil, nil, 0), "unsupported GGUF version 4"},
		{"truncated header", raw(3, arch, nil, 0)[:20], "needs"},
		{"duplicate key", raw(3, append(arch, arch...), nil, 0), `duplicate metadata key "general.architecture"`},
		{"alignment type", raw(3, []KV{{KeyAlignment, NewUint64(64)}}, nil, 0), "power-of-two uint32"},
		{"alignment value", raw(3, []KV{{KeyAlignment, NewUint32(48)}}, nil, 0), "power-of-two uint32"},
		{"5 dims", raw(3, arch, []TensorInfo{{Name: "w", Type: quant.F32, Dims: []uint64{1, 1, 1, 1, 1}}}, 32),
			`tensor "w": has 5 dimensions`},
		{"0 dims", raw(3, arch, []TensorInfo{{Name: "w", Type: quant.F32}}, 32), `tensor "w": has 0 dimensions`},
		{"zero dim", raw(3, arch, []TensorInfo{{Name: "w", Type: quant.F32, Dims: []uint64{4, 0}}}, 32),
			`tensor "w": dimensions [4 0] are empty`},
		{"overflow", raw(3, arch, []TensorInfo{{Name: "w", Type: quant.F32, Dims: []uint64{1 << 32, 1 << 32}}}, 32),
			`tensor "w": dimensions`},
		{"size overflow", raw(3, arch, []TensorInfo{{Name: "w", Type: quant.F32, Dims: []uint64{1 << 62}}}, 32),
			`tensor "w": size of dimensions`},
		{"unknown type", raw(3, arch, []TensorInfo{badType}, 32), `tensor "w": unknown tensor type 4`},
		{"block size", raw(3, arch, []TensorInfo{{Name: "w", Type: quant.Q4_0, Dims: []uint64{16}}}, 32),
			`tensor "w": row length 16 is not a multiple of the Q4_0 block size 32`},
		{"duplicate tensor", raw(3, arch, []TensorInfo{f32("w", 4, 0), f32("w", 4, 32)}, 64),
			`duplicate tensor name "w"`},
		{"misaligned", raw(3, arch, []TensorInfo{f32("w", 4, 16)}, 64), `tensor "w": offset 16 is not aligned to 32`},
		{"outside", raw(3, arch, []TensorInfo{f32("w", 16, 32)}, 64), `tensor "w": bytes [32, 96) of the data section`},
		{"offset past end", raw(3, arch, []TensorInfo{f32("w", 1, 1<<62)}, 64), `tensor "w": bytes`},
		{"overlap", raw(3, arch, []TensorInfo{f32("a", 16, 0), f32("b", 8, 32)}, 96), `tensor "b" overlaps tensor "a"`},
		{"array type", append(raw(3, nil, nil, 0)[:24:24], kvArrayOf(99)...), "array of unknown value type 99"},
		{"array count", append(raw(3, nil, nil, 0)[:24:24], kvArrayCount(1<<40)...), "needs more bytes"},
		{"value type", append(raw(3, nil, nil, 0)[:24:24], kvOfType(13)...), "unknown value type 13"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "array type" || c.name == "array count" || c.name == "value type" {
				binary.LittleEndian.PutUint64(c.file[16:], 1) // one KV
			}
			p := filepath.Join(t.TempDir(), "m.gguf")
			if err := os.WriteFile(p, c.file, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(p)
			if err == nil {
				f.Close()
				t.Fatalf("opened; want an error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %q; want it to name the file and contain %q", err, c.want)
			}
		})
	}
}

// kvArrayOf encodes one KV "k" holding an array of element type et and no elements.
func kvArrayOf(et uint32) []byte {
	b := appendString(nil, "k")
	b = binary.LittleEndian.AppendUint32(b, uint32(TypeArray))
	b = binary.LittleEndian.AppendUint32(b, et)
	return binary.LittleEndian.AppendUint64(b, 0)
}

func kvArrayCount(n uint64) []byte {
	b := appendString(nil, "k")
	b = binary.LittleEndian.AppendUint32(b, uint32(TypeArray))
	b = binary.LittleEndian.AppendUint32(b, uint32(TypeString))
	return binary.LittleEndian.AppendUint64(b, n)
}

func kvOfType(vt uint32) []byte {
	b := appendString(nil, "k")
	return binary.LittleEndian.AppendUint32(b, vt)
}

// Arrays nest up to maxArrayDepth; deeper nesting is refused by NewArray and by the reader.
func TestNestedArrayDepth(t *testing.T) {
	v := NewInt32s([]int32{1})
	var err error
	for d := 1; d < maxArrayDepth; d++ {
		if v, err = NewArray(TypeArray, []Value{v}); err != nil {
			t.Fatalf("depth %d: %v", d+1, err)
		}
	}
	f, err := parseMem(encode(t, Spec{KV: []KV{{"deep", v}}}))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := f.KV[0].Value.Any()
	if s := fmt.Sprint(got); s != "[[[[1]]]]" {
		t.Errorf("decoded %s", s)
	}
	if _, err := NewArray(TypeArray, []Value{v}); err == nil {
		t.Error("NewArray nested one level too deep")
	}
	// Build the too-deep file by hand: wrap the encoding once more.
	body := appendString(nil, "deep")
	body = binary.LittleEndian.AppendUint32(body, uint32(TypeArray))
	body = binary.LittleEndian.AppendUint32(body, uint32(TypeArray))
	body = binary.LittleEndian.AppendUint64(body, 1)
	body = appendValue(body, v)
	file := append(raw(3, nil, nil, 0)[:24:24], body...)
	binary.LittleEndian.PutUint64(file[16:], 1)
	if _, err := parseMem(file); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("too-deep array: %v", err)
	}
}
