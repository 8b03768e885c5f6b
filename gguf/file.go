package gguf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/osmem"
)

// DefaultAlignment is the data alignment of a file without a general.alignment key.
const DefaultAlignment = 32

// Well-known keys.
const (
	KeyAlignment    = "general.alignment"
	KeyArchitecture = "general.architecture"
	KeySplitCount   = "split.count"
	KeySplitNo      = "split.no"
	KeySplitTensors = "split.tensors.count"
)

// KV is one metadata entry.
type KV struct {
	Key   string
	Value Value
}

// TensorInfo describes one tensor. Dims are in ggml order: Dims[0] is the row length (the innermost,
// contiguous dimension), Dims[1] the number of rows, and so on.
type TensorInfo struct {
	Name   string
	Type   quant.Type
	Dims   []uint64
	Offset uint64 // from the start of its file's data section
	Size   uint64 // bytes
}

// Elements returns the number of elements.
func (t TensorInfo) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// Tensor is a tensor's description and its bytes. Data is a slice of the read-only file mapping: it is valid
// until the File is closed and must not be written.
type Tensor struct {
	TensorInfo
	Data []byte
	// Mapping is the whole read-only mapping of the file (part) that Data lies in, for backends that wrap it
	// without copying. It is valid until the File is closed.
	Mapping []byte
}

// File is an open GGUF model: one file, or every part of a split model. Metadata comes from the first part;
// tensors from all parts. A File is safe for concurrent reads; Close must not race with them.
type File struct {
	Version   uint32
	Alignment uint64 // of the first part
	KV        []KV   // in file order
	Tensors   []TensorInfo
	Paths     []string // the parts, in order
	Size      int64    // bytes of all parts together

	kvIndex map[string]int
	tIndex  map[string]int
	data    [][]byte // per tensor: its bytes in the mapping
	part    []int    // per tensor: the index of its part in maps
	maps    [][]byte // per part
	closed  bool
}

var splitRE = regexp.MustCompile(`^(.*)-(\d{5})-of-(\d{5})\.gguf$`)

// Open maps a GGUF file read-only and validates its header. A path named like "name-00001-of-00003.gguf"
// opens every part of the split model.
func Open(path string) (*File, error) {
	f := &File{kvIndex: map[string]int{}, tIndex: map[string]int{}}
	paths := []string{path}
	if m := splitRE.FindStringSubmatch(filepath.Base(path)); m != nil {
		n, _ := strconv.Atoi(m[3])
		if n < 1 || n > 9999 {
			return nil, fmt.Errorf("gguf: %s: bad split count %d", path, n)
		}
		paths = paths[:0]
		for i := 1; i <= n; i++ {
			paths = append(paths, filepath.Join(filepath.Dir(path), fmt.Sprintf("%s-%05d-of-%05d.gguf", m[1], i, n)))
		}
	}
	for i, p := range paths {
		if err := f.openPart(p, i, len(paths)); err != nil {
			f.Close()
			return nil, fmt.Errorf("gguf: %s: %w", p, err)
		}
	}
	if err := f.checkSplitTotals(len(paths)); err != nil {
		f.Close()
		return nil, fmt.Errorf("gguf: %s: %w", path, err)
	}
	return f, nil
}

// checkSplitTotals checks what the first part declares about the whole split model against what was opened.
func (f *File) checkSplitTotals(parts int) error {
	if v, ok := f.Value(KeySplitCount); ok {
		n, isInt := v.IntValue()
		if !isInt || n < 0 {
			return fmt.Errorf("%s must be an integer, got %s", KeySplitCount, typeName(v))
		}
		if n > 1 && parts == 1 {
			return fmt.Errorf("the file is one part of a model split in %d; open it by its split name "+
				"(NAME-00001-of-%05d.gguf) with all parts beside it", n, n)
		}
	}
	if v, ok := f.Value(KeySplitTensors); ok && parts > 1 {
		if n, isInt := v.IntValue(); !isInt || n != int64(len(f.Tensors)) {
			return fmt.Errorf("%s is %v but the %d parts hold %d tensors", KeySplitTensors, n, parts, len(f.Tensors))
		}
	}
	return nil
}

// OpenSection maps size bytes of the file at path from offset off and reads them as Open reads a GGUF file: a
// model carried inside another file (a forma bundle appends one to its executable). off must be a multiple of
// osmem.MapAlign and the section must lie inside the file.
func OpenSection(path string, off, size int64) (*File, error) {
	f := &File{kvIndex: map[string]int{}, tIndex: map[string]int{}}
	if err := f.mapPart(path, off, size, 0, 1); err != nil {
		f.Close()
		return nil, fmt.Errorf("gguf: %s (%d bytes at offset %d): %w", path, size, off, err)
	}
	return f, nil
}

func (f *File) openPart(path string, idx, count int) error { return f.mapPart(path, 0, -1, idx, count) }

// mapPart maps size bytes of path from off (size -1: to the end) and adds them as part idx.
func (f *File) mapPart(path string, off, size int64, idx, count int) error {
	fd, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("not a regular file")
	}
	if size < 0 {
		size = st.Size() - off
	}
	if off < 0 || size < 0 || off > st.Size() || size > st.Size()-off {
		return fmt.Errorf("the section is not inside the file's %d bytes", st.Size())
	}
	buf, err := osmem.MapFileAt(fd, off, size)
	if err != nil {
		return err
	}
	f.maps = append(f.maps, buf)
	return f.addPart(path, buf, idx, count)
}

// addPart parses one part already in memory (a mapping f owns) and adds its metadata and tensors to f.
func (f *File) addPart(path string, buf []byte, idx, count int) error {
	f.Paths = append(f.Paths, path)
	f.Size += int64(len(buf))
	h, err := parseHeader(buf, f)
	if err != nil {
		return err
	}
	if idx == 0 {
		f.Version, f.Alignment, f.KV = h.version, h.alignment, h.kv
		for i, kv := range h.kv {
			f.kvIndex[kv.Key] = i
		}
	}
	if count > 1 {
		if err := checkSplit(h, idx, count); err != nil {
			return err
		}
	}
	for _, t := range h.tensors {
		if _, dup := f.tIndex[t.Name]; dup {
			return fmt.Errorf("tensor %q appears in more than one part", t.Name)
		}
		f.tIndex[t.Name] = len(f.Tensors)
		f.Tensors = append(f.Tensors, t)
		start := h.dataStart + t.Offset
		f.data = append(f.data, buf[start:start+t.Size:start+t.Size])
		f.part = append(f.part, len(f.maps)-1)
	}
	return nil
}

func checkSplit(h *header, idx, count int) error {
	for _, kv := range h.kv {
		switch kv.Key {
		case KeySplitNo:
			if n, ok := kv.Value.IntValue(); !ok || n != int64(idx) {
				return fmt.Errorf("%s is %v, expected %d", KeySplitNo, n, idx)
			}
		case KeySplitCount:
			if n, ok := kv.Value.IntValue(); !ok || n != int64(count) {
				return fmt.Errorf("%s is %v, expected %d", KeySplitCount, n, count)
			}
		}
	}
	return nil
}

// Close unmaps every part. Tensor data and array values must not be used afterwards.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	var errs []error
	for _, m := range f.maps {
		errs = append(errs, osmem.Unmap(m))
	}
	f.maps, f.data, f.part = nil, nil, nil
	return errors.Join(errs...)
}

func (f *File) checkOpen() error {
	if f == nil || f.closed {
		return errors.New("gguf: file is closed")
	}
	return nil
}

// Tensor returns the named tensor with its bytes.
func (f *File) Tensor(name string) (Tensor, error) {
	if err := f.checkOpen(); err != nil {
		return Tensor{}, err
	}
	i, ok := f.tIndex[name]
	if !ok {
		return Tensor{}, fmt.Errorf("gguf: tensor %q not found", name)
	}
	t := Tensor{TensorInfo: f.Tensors[i], Data: f.data[i]}
	if p := f.part[i]; p >= 0 {
		t.Mapping = f.maps[p]
	}
	return t, nil
}

// HasTensor reports whether the file holds the named tensor.
func (f *File) HasTensor(name string) bool { _, ok := f.tIndex[name]; return ok }

// Value returns the metadata value of key.
func (f *File) Value(key string) (Value, bool) {
	i, ok := f.kvIndex[key]
	if !ok {
		return Value{}, false
	}
	return f.KV[i].Value, true
}

// Has reports whether the metadata holds key.
func (f *File) Has(key string) bool { _, ok := f.kvIndex[key]; return ok }

// KeyError is returned by the typed accessors: the key is missing, or holds another type than asked for.
type KeyError struct {
	Key   string
	Want  string
	Found string // "" when the key is missing
}

func (e *KeyError) Error() string {
	if e.Found == "" {
		return fmt.Sprintf("gguf: metadata key %q not found", e.Key)
	}
	return fmt.Sprintf("gguf: metadata key %q holds %s, want %s", e.Key, e.Found, e.Want)
}

// IsNotFound reports whether err says a metadata key is missing.
func IsNotFound(err error) bool {
	var ke *KeyError
	return errors.As(err, &ke) && ke.Found == ""
}

func (f *File) lookup(key, want string) (Value, error) {
	v, ok := f.Value(key)
	if !ok {
		return v, &KeyError{Key: key, Want: want}
	}
	return v, nil
}

func typeName(v Value) string {
	if elem, n, ok := v.ArrayType(); ok {
		return fmt.Sprintf("array of %d %s", n, elem)
	}
	return v.Type.String()
}

// String returns a string value.
func (f *File) String(key string) (string, error) {
	v, err := f.lookup(key, "string")
	if err != nil {
		return "", err
	}
	s, ok := v.StringValue()
	if !ok {
		return "", &KeyError{key, "string", typeName(v)}
	}
	return s, nil
}

// Int returns an integer value of any integer type.
func (f *File) Int(key string) (int64, error) {
	v, err := f.lookup(key, "integer")
	if err != nil {
		return 0, err
	}
	i, ok := v.IntValue()
	if !ok {
		return 0, &KeyError{key, "integer", typeName(v)}
	}
	return i, nil
}

// Float returns a float32 or float64 value (integers are accepted too, as llama.cpp's loader does not).
func (f *File) Float(key string) (float64, error) {
	v, err := f.lookup(key, "float")
	if err != nil {
		return 0, err
	}
	if x, ok := v.FloatValue(); ok {
		return x, nil
	}
	if i, ok := v.IntValue(); ok {
		return float64(i), nil
	}
	return 0, &KeyError{key, "float", typeName(v)}
}

// Bool returns a bool value.
func (f *File) Bool(key string) (bool, error) {
	v, err := f.lookup(key, "bool")
	if err != nil {
		return false, err
	}
	b, ok := v.BoolValue()
	if !ok {
		return false, &KeyError{key, "bool", typeName(v)}
	}
	return b, nil
}

// arrayOf returns the encoded array of key when its element type satisfies ok.
func (f *File) arrayOf(key, want string, ok func(ValueType) bool) (*array, error) {
	if err := f.checkOpen(); err != nil {
		return nil, err
	}
	v, err := f.lookup(key, want)
	if err != nil {
		return nil, err
	}
	elem, _, isArr := v.ArrayType()
	if !isArr || !ok(elem) {
		return nil, &KeyError{key, want, typeName(v)}
	}
	return v.arr, nil
}

// Strings returns an array of strings (copied out of the mapping; StringArray reads them in place).
func (f *File) Strings(key string) ([]string, error) {
	a, err := f.StringArray(key)
	if err != nil {
		return nil, err
	}
	out := make([]string, a.Len())
	for i, s := range a.All() {
		out[i] = string(s)
	}
	return out, nil
}

// Ints returns an array of any integer type (bools count as 0/1).
func (f *File) Ints(key string) ([]int64, error) {
	a, err := f.arrayOf(key, "array of integer", func(t ValueType) bool { return t.isInt() || t == TypeBool })
	if err != nil {
		return nil, err
	}
	out := make([]int64, a.n)
	sz := a.elem.size()
	for i := range out {
		bits := scalarBits(a.elem, a.raw[i*sz:])
		if a.elem == TypeUint64 && bits > math.MaxInt64 {
			return nil, fmt.Errorf("gguf: metadata key %q: element %d overflows int64", key, i)
		}
		out[i] = int64(bits)
	}
	return out, nil
}

// Floats returns an array of float32 or float64 as float32.
func (f *File) Floats(key string) ([]float32, error) {
	a, err := f.arrayOf(key, "array of float", func(t ValueType) bool { return t == TypeFloat32 || t == TypeFloat64 })
	if err != nil {
		return nil, err
	}
	out := make([]float32, a.n)
	for i := range out {
		if a.elem == TypeFloat32 {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.raw[4*i:]))
		} else {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(a.raw[8*i:])))
		}
	}
	return out, nil
}

// Architecture returns general.architecture.
func (f *File) Architecture() (string, error) { return f.String(KeyArchitecture) }

func sortInts(x []int, less func(a, b int) bool) {
	sort.Slice(x, func(i, j int) bool { return less(x[i], x[j]) })
}
