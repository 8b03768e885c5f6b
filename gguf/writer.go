package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/forma-llm/forma/gguf/quant"
)

// Version is the GGUF version Write produces unless told otherwise.
const Version = 3

// WriteTensor is one tensor to write: its description and where its bytes come from.
type WriteTensor struct {
	Name string
	Type quant.Type
	Dims []uint64 // ggml order: Dims[0] is the row length
	// Data writes the tensor's bytes, exactly Size() of them, to w. Write calls it once per tensor, in order,
	// so a tensor can be generated, converted or copied when its turn comes instead of being held in memory.
	Data func(w io.Writer) error
}

// Size returns the tensor's bytes, or an error when its shape or type is invalid.
func (t WriteTensor) Size() (uint64, error) {
	ti := TensorInfo{Name: t.Name, Type: t.Type, Dims: t.Dims}
	return ti.size()
}

// BytesData returns a WriteTensor.Data that writes b.
func BytesData(b []byte) func(io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(b); return err }
}

// ReaderData returns a WriteTensor.Data that copies r to its end.
func ReaderData(r io.Reader) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.Copy(w, r); return err }
}

// Spec is the content of a GGUF file to write.
type Spec struct {
	Version uint32 // 2 or 3; 0 means Version
	// KV is the metadata, in file order. Its general.alignment entry (a power-of-two uint32), if any, sets the
	// alignment of the data section; otherwise it is DefaultAlignment.
	KV      []KV
	Tensors []WriteTensor // in file order; offsets are assigned in this order, each aligned
}

// WriteFile writes spec to a new file at path (replacing any file there). On error the file is removed.
func WriteFile(path string, spec Spec) (err error) {
	fd, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := fd.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	bw := bufio.NewWriterSize(fd, 1<<20)
	if _, err = Write(bw, spec); err != nil {
		return err
	}
	return bw.Flush()
}

// Write encodes spec to w: header, metadata, tensor infos, then each tensor's bytes padded with zeros to the
// alignment, as llama.cpp's writer lays a file out (so a file read with Open and written back with the same
// metadata and tensors is byte-for-byte the original). A file without tensors ends right after its metadata.
// It returns the number of bytes written.
func Write(w io.Writer, spec Spec) (int64, error) {
	version := spec.Version
	if version == 0 {
		version = Version
	}
	if version != 2 && version != 3 {
		return 0, fmt.Errorf("gguf: cannot write version %d (2 and 3 are supported)", version)
	}
	align, err := checkKVs(spec.KV)
	if err != nil {
		return 0, err
	}
	infos, err := layoutTensors(spec.Tensors, align)
	if err != nil {
		return 0, err
	}
	e := &encoder{w: w}
	e.header(version, spec.KV, infos)
	if len(infos) > 0 {
		// llama.cpp's C writer pads here even without tensors, its Python writer (which made the vocab-only
		// files llama.cpp ships) does not; both read the same.
		e.pad(align)
	}
	for i, t := range spec.Tensors {
		if e.err != nil {
			break
		}
		if err := e.tensor(t, infos[i].Size); err != nil {
			return e.n, fmt.Errorf("gguf: tensor %q: %w", t.Name, err)
		}
		e.pad(align)
	}
	return e.n, e.err
}

// checkKVs validates metadata for writing and returns the alignment it sets.
func checkKVs(kvs []KV) (uint64, error) {
	align := uint64(DefaultAlignment)
	seen := make(map[string]bool, len(kvs))
	for _, kv := range kvs {
		if seen[kv.Key] {
			return 0, fmt.Errorf("gguf: duplicate metadata key %q", kv.Key)
		}
		seen[kv.Key] = true
		if len(kv.Key) > maxKeyLen {
			return 0, fmt.Errorf("gguf: metadata key of %d bytes exceeds the limit of %d", len(kv.Key), maxKeyLen)
		}
		v := kv.Value
		if v.Type > TypeFloat64 || (v.Type == TypeArray && v.arr == nil) {
			return 0, fmt.Errorf("gguf: metadata %q: invalid value of type %s", kv.Key, v.Type)
		}
		if v.Type == TypeString && len(v.str) > maxStringLen {
			return 0, fmt.Errorf("gguf: metadata %q: string of %d bytes exceeds the limit", kv.Key, len(v.str))
		}
		if kv.Key == KeyAlignment {
			a, _ := v.IntValue()
			if v.Type != TypeUint32 || a <= 0 || a&(a-1) != 0 || a > 1<<20 {
				return 0, fmt.Errorf("gguf: metadata %q must be a power-of-two uint32, got %s %v", kv.Key, v.Type, a)
			}
			align = uint64(a)
		}
	}
	return align, nil
}

// layoutTensors validates the tensors and assigns each an aligned offset, in order.
func layoutTensors(ts []WriteTensor, align uint64) ([]TensorInfo, error) {
	infos := make([]TensorInfo, len(ts))
	seen := make(map[string]bool, len(ts))
	off := uint64(0)
	for i, t := range ts {
		if seen[t.Name] {
			return nil, fmt.Errorf("gguf: duplicate tensor name %q", t.Name)
		}
		seen[t.Name] = true
		if len(t.Name) > maxKeyLen {
			return nil, fmt.Errorf("gguf: tensor name of %d bytes exceeds the limit of %d", len(t.Name), maxKeyLen)
		}
		if t.Data == nil {
			return nil, fmt.Errorf("gguf: tensor %q has no Data", t.Name)
		}
		ti := TensorInfo{Name: t.Name, Type: t.Type, Dims: t.Dims, Offset: off}
		size, err := ti.size()
		if err != nil {
			return nil, fmt.Errorf("gguf: tensor %q: %w", t.Name, err)
		}
		ti.Size = size
		padded := alignUp(size, align)
		if padded < size || off > math.MaxInt64-padded {
			return nil, fmt.Errorf("gguf: tensor %q: data section overflows", t.Name)
		}
		off += padded
		infos[i] = ti
	}
	return infos, nil
}

// size validates the shape and type and returns the tensor's bytes (the same rules as the reader's).
func (t TensorInfo) size() (uint64, error) {
	if len(t.Dims) == 0 || len(t.Dims) > maxDims {
		return 0, fmt.Errorf("has %d dimensions (1 to %d allowed)", len(t.Dims), maxDims)
	}
	if !t.Type.Valid() {
		return 0, fmt.Errorf("unknown tensor type %d", uint32(t.Type))
	}
	return shapeBytes(t.Dims, t.Type)
}

// shapeBytes checks dims (non-zero, no overflow, rows whole blocks of typ) and returns the bytes they take.
func shapeBytes(dims []uint64, typ quant.Type) (uint64, error) {
	elems := uint64(1)
	for d, n := range dims {
		if n == 0 || n > math.MaxInt64/elems {
			return 0, fmt.Errorf("dimensions %v are empty or overflow", dims[:d+1])
		}
		elems *= n
	}
	be, bb := uint64(typ.BlockElems()), uint64(typ.BlockBytes())
	if dims[0]%be != 0 {
		return 0, fmt.Errorf("row length %d is not a multiple of the %s block size %d", dims[0], typ, be)
	}
	blocks := elems / be
	if blocks > math.MaxInt64/bb {
		return 0, fmt.Errorf("size of dimensions %v overflows", dims)
	}
	return blocks * bb, nil
}

// header writes the magic, version, counts, metadata and tensor infos, as given.
func (e *encoder) header(version uint32, kvs []KV, infos []TensorInfo) {
	e.bytes([]byte(magic))
	e.u32(version)
	e.u64(uint64(len(infos)))
	e.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		e.str(kv.Key)
		e.u32(uint32(kv.Value.Type))
		e.value(kv.Value)
	}
	for _, ti := range infos {
		e.str(ti.Name)
		e.u32(uint32(len(ti.Dims)))
		for _, d := range ti.Dims {
			e.u64(d)
		}
		e.u32(uint32(ti.Type))
		e.u64(ti.Offset)
	}
}

// encoder writes little-endian fields, remembering the first error and the bytes written.
type encoder struct {
	w       io.Writer
	n       int64
	err     error
	scratch [8]byte
}

func (e *encoder) bytes(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	e.n += int64(n)
	e.err = err
}

func (e *encoder) u32(x uint32) {
	binary.LittleEndian.PutUint32(e.scratch[:4], x)
	e.bytes(e.scratch[:4])
}

func (e *encoder) u64(x uint64) {
	binary.LittleEndian.PutUint64(e.scratch[:8], x)
	e.bytes(e.scratch[:8])
}

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	if e.err == nil {
		n, err := io.WriteString(e.w, s)
		e.n += int64(n)
		e.err = err
	}
}

// value writes v without its type tag. Arrays are written from their encoded elements without a copy.
func (e *encoder) value(v Value) {
	switch v.Type {
	case TypeString:
		e.str(v.str)
	case TypeArray:
		e.u32(uint32(v.arr.elem))
		e.u64(uint64(v.arr.n))
		e.bytes(v.arr.raw)
	default:
		e.bytes(appendValue(e.scratch[:0], v))
	}
}

var zeros [256]byte

// pad writes zeros up to the next multiple of align.
func (e *encoder) pad(align uint64) {
	for n := alignUp(uint64(e.n), align) - uint64(e.n); n > 0 && e.err == nil; {
		k := min(n, uint64(len(zeros)))
		e.bytes(zeros[:k])
		n -= k
	}
}

// tensor writes one tensor's bytes through its Data callback, checking it writes exactly size bytes.
func (e *encoder) tensor(t WriteTensor, size uint64) error {
	lw := &limitWriter{w: e.w, left: size}
	err := t.Data(lw)
	e.n += int64(size - lw.left)
	switch {
	case lw.over:
		return fmt.Errorf("Data wrote more than the tensor's %d bytes", size)
	case err != nil:
		return err
	case lw.left != 0:
		return fmt.Errorf("Data wrote %d of the tensor's %d bytes", size-lw.left, size)
	}
	return nil
}

var errTooMuch = errors.New("write past the end of the tensor")

// limitWriter passes at most left bytes to w and fails a write that would exceed them.
type limitWriter struct {
	w    io.Writer
	left uint64
	over bool
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if uint64(len(p)) > l.left {
		l.over = true
		return 0, errTooMuch
	}
	n, err := l.w.Write(p)
	l.left -= uint64(n)
	return n, err
}
