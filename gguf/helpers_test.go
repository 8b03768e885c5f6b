package gguf

import (
	"bytes"
	"compress/bzip2"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/forma-llm/forma/internal/testdir"
)

// modelPaths returns every .gguf under testdata models/, or skips the test when the folder is absent.
func modelPaths(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(testdir.Sub(t, "models"), "*.gguf"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no models in testdata models/: %v", err)
	}
	sort.Strings(paths)
	return paths
}

// vocabRaw holds the decompressed vocab GGUFs (name → bytes), decompressed once per test binary.
var vocabRaw struct {
	once  sync.Once
	names []string
	data  map[string][]byte
	err   error
}

// vocabPaths decompresses every tokenizer/*.gguf.bz2 into dir and returns the paths of the GGUFs.
func vocabPaths(t testing.TB, dir string) []string {
	t.Helper()
	tok := testdir.Sub(t, "tokenizer")
	vocabRaw.once.Do(func() {
		srcs, err := filepath.Glob(filepath.Join(tok, "*.gguf.bz2"))
		if err != nil || len(srcs) == 0 {
			vocabRaw.err = fmt.Errorf("no vocab GGUFs in testdata tokenizer/ (%v)", err)
			return
		}
		sort.Strings(srcs)
		vocabRaw.data = map[string][]byte{}
		for _, src := range srcs {
			b, err := os.ReadFile(src)
			if err != nil {
				vocabRaw.err = err
				return
			}
			raw, err := io.ReadAll(bzip2.NewReader(bytes.NewReader(b)))
			if err != nil {
				vocabRaw.err = fmt.Errorf("%s: %w", src, err)
				return
			}
			name := strings.TrimSuffix(filepath.Base(src), ".bz2")
			vocabRaw.names = append(vocabRaw.names, name)
			vocabRaw.data[name] = raw
		}
	})
	if vocabRaw.err != nil {
		t.Fatal(vocabRaw.err)
	}
	var out []string
	for _, name := range vocabRaw.names {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, vocabRaw.data[name], 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// parseMem parses buf as a one-part GGUF file, as Open does after mapping it.
func parseMem(buf []byte) (*File, error) {
	f := &File{kvIndex: map[string]int{}, tIndex: map[string]int{}, maps: [][]byte{buf}}
	if err := f.addPart("mem", buf, 0, 1); err != nil {
		return nil, err
	}
	return f, nil
}

// walk checks an open File independently of the reader's own checks: every tensor's bytes are its declared size,
// aligned and inside a part, no two overlap; every metadata value and array element decodes. It stands for what
// a user of the File would touch.
func walk(f *File) error { return walkOpt(f, true) }

// walkOpt is walk; with deep false, arrays are decoded to Values but not converted by Any (cheaper for the
// 150k-string vocabularies).
func walkOpt(f *File, deep bool) error {
	for _, kv := range f.KV {
		var err error
		if deep || kv.Value.Type != TypeArray {
			_, err = kv.Value.Any()
		} else {
			err = decodeAll(kv.Value)
		}
		if err != nil {
			return fmt.Errorf("metadata %q: %w", kv.Key, err)
		}
	}
	type span struct{ lo, hi uintptr }
	var spans []span
	for _, ti := range f.Tensors {
		tn, err := f.Tensor(ti.Name)
		if err != nil {
			return err
		}
		if uint64(len(tn.Data)) != ti.Size || ti.Size != mustSize(ti) {
			return fmt.Errorf("tensor %q: %d bytes, declared %d", ti.Name, len(tn.Data), ti.Size)
		}
		if len(ti.Dims) == 0 || len(ti.Dims) > maxDims || !ti.Type.Valid() {
			return fmt.Errorf("tensor %q: bad shape or type", ti.Name)
		}
		if len(tn.Data) == 0 {
			continue
		}
		inside := false
		for _, m := range f.maps {
			if len(m) == 0 {
				continue
			}
			lo := addr(m)
			if p := addr(tn.Data); p >= lo && p+uintptr(len(tn.Data)) <= lo+uintptr(len(m)) {
				inside = true
			}
		}
		if !inside {
			return fmt.Errorf("tensor %q: bytes outside the mapping", ti.Name)
		}
		_ = tn.Data[0] + tn.Data[len(tn.Data)-1] // the ends are readable (the span check above proves the rest)
		spans = append(spans, span{addr(tn.Data), addr(tn.Data) + uintptr(len(tn.Data))})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].lo < spans[j].lo })
	for i := 1; i < len(spans); i++ {
		if spans[i].lo < spans[i-1].hi {
			return fmt.Errorf("two tensors overlap")
		}
	}
	return nil
}

func mustSize(ti TensorInfo) uint64 {
	n, err := ti.size()
	if err != nil {
		return ^uint64(0)
	}
	return n
}

func addr(b []byte) uintptr {
	if len(b) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}

// specOf returns a Spec that writes f back: the same metadata, and tensors copied from f's mapping.
func specOf(f *File) Spec {
	s := Spec{Version: f.Version, KV: f.KV}
	for _, ti := range f.Tensors {
		tn, _ := f.Tensor(ti.Name)
		s.Tensors = append(s.Tensors, WriteTensor{Name: ti.Name, Type: ti.Type, Dims: ti.Dims, Data: BytesData(tn.Data)})
	}
	return s
}

// decodeAll decodes every element of an array, nested ones too. Arrays of more than 4096 elements (the 150k-token
// vocabularies) are walked with the reader's validating skip instead, which reads the same bounds without
// allocating a string per element.
func decodeAll(v Value) error {
	if v.arr.n > 4096 {
		r := reader{buf: v.arr.raw}
		switch sz := v.arr.elem.size(); {
		case sz > 0:
			r.off = sz * v.arr.n
		case v.arr.elem == TypeString:
			if err := r.skipStrings(uint64(v.arr.n)); err != nil {
				return err
			}
		default:
			for i := 0; i < v.arr.n; i++ {
				if err := r.skip(v.arr.elem, 1); err != nil {
					return err
				}
			}
		}
		if r.off != len(v.arr.raw) {
			return fmt.Errorf("array of %d elements ends at %d of its %d bytes", v.arr.n, r.off, len(v.arr.raw))
		}
		return nil
	}
	elems, err := v.arr.values()
	if err != nil {
		return err
	}
	if v.arr.elem == TypeArray {
		for _, e := range elems {
			if err := decodeAll(e); err != nil {
				return err
			}
		}
	}
	return nil
}
