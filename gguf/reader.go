package gguf

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/forma-llm/forma/gguf/quant"
)

// Limits on what a file may declare. They bound work and memory before anything is allocated; a real model is
// far inside them.
const (
	maxDims        = 4
	maxArrayDepth  = 4       // nested arrays deeper than this are refused
	maxKeyLen      = 1 << 16 // bytes in a metadata key or tensor name
	maxStringLen   = 1 << 30 // bytes in one string value
	maxTensorCount = 1 << 24
	maxKVCount     = 1 << 24
	// maxPrealloc caps capacity hints taken from counts in the file: a count is only plausible, not proven, until
	// its entries have been read, so memory grows with what the file really holds.
	maxPrealloc = 1 << 12
)

// reader decodes little-endian GGUF fields from buf, checking every length against what is left.
type reader struct {
	buf []byte
	off int
	f   *File
}

func (r *reader) need(n uint64, what string) ([]byte, error) {
	if n > uint64(len(r.buf)-r.off) {
		return nil, fmt.Errorf("%s needs %d bytes at offset %d but the file has %d left", what, n, r.off, len(r.buf)-r.off)
	}
	b := r.buf[r.off : r.off+int(n)]
	r.off += int(n)
	return b, nil
}

func (r *reader) u32(what string) (uint32, error) {
	b, err := r.need(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (r *reader) u64(what string) (uint64, error) {
	b, err := r.need(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// str reads a length-prefixed string of at most max bytes. Its bytes are not required to be UTF-8 (vocabularies
// hold raw byte pieces); keys are checked by the caller.
func (r *reader) str(what string, max uint64) (string, error) {
	n, err := r.u64(what + " length")
	if err != nil {
		return "", err
	}
	if n > max {
		return "", fmt.Errorf("%s length %d exceeds the limit of %d bytes", what, n, max)
	}
	b, err := r.need(n, what)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// value reads one value of type t. Arrays are walked to validate them and kept as raw bytes; depth counts nesting.
func (r *reader) value(t ValueType, depth int) (Value, error) {
	switch {
	case t.size() > 0:
		b, err := r.need(uint64(t.size()), t.String())
		if err != nil {
			return Value{}, err
		}
		return Value{Type: t, bits: scalarBits(t, b)}, nil
	case t == TypeString:
		s, err := r.str("string", maxStringLen)
		return Value{Type: t, str: s}, err
	case t == TypeArray:
		return r.array(depth)
	}
	return Value{}, fmt.Errorf("unknown value type %d", uint32(t))
}

// skip validates one value of type t and moves past it without decoding it (no allocation for strings).
func (r *reader) skip(t ValueType, depth int) error {
	switch {
	case t.size() > 0:
		_, err := r.need(uint64(t.size()), t.String())
		return err
	case t == TypeString:
		n, err := r.u64("string length")
		if err != nil {
			return err
		}
		if n > maxStringLen {
			return fmt.Errorf("string length %d exceeds the limit of %d bytes", n, maxStringLen)
		}
		_, err = r.need(n, "string")
		return err
	case t == TypeArray:
		_, err := r.array(depth)
		return err
	}
	return fmt.Errorf("unknown value type %d", uint32(t))
}

// skipStrings validates n consecutive strings: the check skip does per string, in one tight loop (a
// vocabulary holds hundreds of thousands).
func (r *reader) skipStrings(n uint64) error {
	buf, off := r.buf, r.off
	for i := uint64(0); i < n; i++ {
		if len(buf)-off < 8 {
			r.off = off
			return fmt.Errorf("array element %d: string length needs 8 bytes at offset %d but the file has %d left",
				i, off, len(buf)-off)
		}
		l := binary.LittleEndian.Uint64(buf[off:])
		off += 8
		if l > maxStringLen || l > uint64(len(buf)-off) {
			r.off = off
			return fmt.Errorf("array element %d: string of %d bytes at offset %d exceeds the limit or the file "+
				"(%d bytes left)", i, l, off, len(buf)-off)
		}
		off += int(l)
	}
	r.off = off
	return nil
}

func (r *reader) array(depth int) (Value, error) {
	if depth > maxArrayDepth {
		return Value{}, fmt.Errorf("arrays nested deeper than %d", maxArrayDepth)
	}
	et, err := r.u32("array element type")
	if err != nil {
		return Value{}, err
	}
	elem := ValueType(et)
	if elem > TypeFloat64 {
		return Value{}, fmt.Errorf("array of unknown value type %d", et)
	}
	n, err := r.u64("array length")
	if err != nil {
		return Value{}, err
	}
	start := r.off
	if sz := elem.size(); sz > 0 {
		if n > uint64(len(r.buf)-r.off)/uint64(sz) {
			return Value{}, fmt.Errorf("array of %d %s needs more bytes than the file has", n, elem)
		}
		r.off += int(n) * sz
	} else {
		// Every string or array element takes at least 8 bytes: refuse counts the file cannot hold before walking.
		if n > uint64(len(r.buf)-r.off)/8 {
			return Value{}, fmt.Errorf("array of %d %s elements needs more bytes than the file has", n, elem)
		}
		if elem == TypeString {
			if err := r.skipStrings(n); err != nil {
				return Value{}, err
			}
		} else {
			for i := uint64(0); i < n; i++ {
				if err := r.skip(elem, depth+1); err != nil {
					return Value{}, fmt.Errorf("array element %d: %w", i, err)
				}
			}
		}
	}
	return Value{Type: TypeArray, arr: &array{elem: elem, n: int(n), raw: r.buf[start:r.off], f: r.f}}, nil
}

// header is the decoded start of one GGUF file: metadata, tensor infos and where the data section begins.
type header struct {
	version   uint32
	kv        []KV
	tensors   []TensorInfo
	alignment uint64
	dataStart uint64
}

const magic = "GGUF"

func parseHeader(buf []byte, f *File) (*header, error) {
	r := &reader{buf: buf, f: f}
	m, err := r.need(4, "magic")
	if err != nil {
		return nil, fmt.Errorf("not a GGUF file: %w", err)
	}
	if string(m) != magic {
		return nil, fmt.Errorf("not a GGUF file (magic %q)", m)
	}
	h := &header{alignment: DefaultAlignment}
	if h.version, err = r.u32("version"); err != nil {
		return nil, err
	}
	switch {
	case h.version == 1:
		return nil, fmt.Errorf("GGUF version 1 is not supported (re-convert the model with a current llama.cpp)")
	case h.version&0xffff == 0 && h.version != 0:
		return nil, fmt.Errorf("big-endian GGUF files are not supported (version field reads %#x)", h.version)
	case h.version != 2 && h.version != 3:
		return nil, fmt.Errorf("unsupported GGUF version %d (2 and 3 are supported)", h.version)
	}
	nt, err := r.u64("tensor count")
	if err != nil {
		return nil, err
	}
	nkv, err := r.u64("metadata count")
	if err != nil {
		return nil, err
	}
	if nt > maxTensorCount || nt > uint64(len(buf))/24 {
		return nil, fmt.Errorf("tensor count %d is impossible for a file of %d bytes", nt, len(buf))
	}
	if nkv > maxKVCount || nkv > uint64(len(buf))/13 {
		return nil, fmt.Errorf("metadata count %d is impossible for a file of %d bytes", nkv, len(buf))
	}
	if err := h.readKV(r, int(nkv)); err != nil {
		return nil, err
	}
	if err := h.readTensorInfos(r, int(nt)); err != nil {
		return nil, err
	}
	h.dataStart = alignUp(uint64(r.off), h.alignment)
	if h.dataStart > uint64(len(buf)) && len(h.tensors) > 0 {
		return nil, fmt.Errorf("data section starts at %d, past the end of the file (%d bytes)", h.dataStart, len(buf))
	}
	return h, h.checkTensors(uint64(len(buf)))
}

func (h *header) readKV(r *reader, n int) error {
	seen := make(map[string]bool, min(n, maxPrealloc))
	h.kv = make([]KV, 0, min(n, maxPrealloc))
	for i := 0; i < n; i++ {
		key, err := r.str(fmt.Sprintf("metadata key %d", i), maxKeyLen)
		if err != nil {
			return err
		}
		if !utf8.ValidString(key) {
			return fmt.Errorf("metadata key %d is not valid UTF-8", i)
		}
		if seen[key] {
			return fmt.Errorf("duplicate metadata key %q", key)
		}
		seen[key] = true
		t, err := r.u32("value type of " + key)
		if err != nil {
			return err
		}
		v, err := r.value(ValueType(t), 1)
		if err != nil {
			return fmt.Errorf("metadata %q: %w", key, err)
		}
		h.kv = append(h.kv, KV{Key: key, Value: v})
		if key == KeyAlignment {
			a, ok := v.IntValue()
			if !ok || v.Type != TypeUint32 || a <= 0 || a&(a-1) != 0 || a > 1<<20 {
				return fmt.Errorf("metadata %q must be a power-of-two uint32, got %s %v", key, v.Type, a)
			}
			h.alignment = uint64(a)
		}
	}
	return nil
}

func (h *header) readTensorInfos(r *reader, n int) error {
	seen := make(map[string]bool, min(n, maxPrealloc))
	h.tensors = make([]TensorInfo, 0, min(n, maxPrealloc))
	for i := 0; i < n; i++ {
		name, err := r.str(fmt.Sprintf("tensor %d name", i), maxKeyLen)
		if err != nil {
			return err
		}
		if seen[name] {
			return fmt.Errorf("duplicate tensor name %q", name)
		}
		seen[name] = true
		ti, err := readTensorInfo(r, name)
		if err != nil {
			return fmt.Errorf("tensor %q: %w", name, err)
		}
		h.tensors = append(h.tensors, ti)
	}
	return nil
}

func readTensorInfo(r *reader, name string) (TensorInfo, error) {
	ti := TensorInfo{Name: name}
	nd, err := r.u32("dimension count")
	if err != nil {
		return ti, err
	}
	if nd == 0 || nd > maxDims {
		return ti, fmt.Errorf("has %d dimensions (1 to %d allowed)", nd, maxDims)
	}
	ti.Dims = make([]uint64, nd)
	for d := range ti.Dims {
		if ti.Dims[d], err = r.u64("dimension"); err != nil {
			return ti, err
		}
	}
	t, err := r.u32("type")
	if err != nil {
		return ti, err
	}
	ti.Type = quant.Type(t)
	if !ti.Type.Valid() {
		return ti, fmt.Errorf("unknown tensor type %d", t)
	}
	if ti.Size, err = shapeBytes(ti.Dims, ti.Type); err != nil {
		return ti, err
	}
	ti.Offset, err = r.u64("offset")
	return ti, err
}

// checkTensors verifies that every tensor lies inside the data section, is aligned and overlaps no other.
func (h *header) checkTensors(fileSize uint64) error {
	dataLen := uint64(0)
	if fileSize > h.dataStart {
		dataLen = fileSize - h.dataStart
	}
	byOffset := make([]int, len(h.tensors))
	for i, t := range h.tensors {
		byOffset[i] = i
		if t.Offset%h.alignment != 0 {
			return fmt.Errorf("tensor %q: offset %d is not aligned to %d", t.Name, t.Offset, h.alignment)
		}
		if t.Offset > dataLen || t.Size > dataLen-t.Offset {
			return fmt.Errorf("tensor %q: bytes [%d, %d) of the data section lie outside it (%d bytes; file truncated?)",
				t.Name, t.Offset, t.Offset+t.Size, dataLen)
		}
	}
	sortInts(byOffset, func(a, b int) bool { return h.tensors[a].Offset < h.tensors[b].Offset })
	for i := 1; i < len(byOffset); i++ {
		prev, cur := h.tensors[byOffset[i-1]], h.tensors[byOffset[i]]
		if prev.Offset+prev.Size > cur.Offset {
			return fmt.Errorf("tensor %q overlaps tensor %q", cur.Name, prev.Name)
		}
	}
	return nil
}

func alignUp(n, a uint64) uint64 { return (n + a - 1) / a * a }
