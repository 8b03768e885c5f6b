package tokenizer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/forma-llm/forma/gguf"
)

// A minimal GGUF v3 writer for crafted test vocabularies: metadata only, no tensors.

type kv struct {
	key string
	val any // string, uint32, int32, bool, []string, []int32, []float32
}

func writeGGUF(tb testing.TB, kvs []kv) *gguf.File {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "v.gguf")
	if err := os.WriteFile(p, encodeGGUF(kvs), 0o644); err != nil {
		tb.Fatal(err)
	}
	f, err := gguf.Open(p)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}

// encodeGGUF returns the bytes of a GGUF v3 file holding kvs and no tensors.
func encodeGGUF(kvs []kv) []byte {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { w(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	w(uint32(3))
	w(uint64(0))
	w(uint64(len(kvs)))
	for _, e := range kvs {
		str(e.key)
		switch v := e.val.(type) {
		case string:
			w(uint32(gguf.TypeString))
			str(v)
		case uint32:
			w(uint32(gguf.TypeUint32))
			w(v)
		case int32:
			w(uint32(gguf.TypeInt32))
			w(v)
		case bool:
			w(uint32(gguf.TypeBool))
			if v {
				w(uint8(1))
			} else {
				w(uint8(0))
			}
		case []string:
			w(uint32(gguf.TypeArray))
			w(uint32(gguf.TypeString))
			w(uint64(len(v)))
			for _, s := range v {
				str(s)
			}
		case []int32:
			w(uint32(gguf.TypeArray))
			w(uint32(gguf.TypeInt32))
			w(uint64(len(v)))
			for _, x := range v {
				w(x)
			}
		case []float32:
			w(uint32(gguf.TypeArray))
			w(uint32(gguf.TypeFloat32))
			w(uint64(len(v)))
			for _, x := range v {
				w(math.Float32bits(x))
			}
		default:
			panic(fmt.Sprintf("encodeGGUF: unsupported %T", v))
		}
	}
	for b.Len()%32 != 0 {
		b.WriteByte(0)
	}
	return b.Bytes()
}
