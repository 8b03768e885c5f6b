package gguf

import (
	"encoding/binary"
	"iter"
)

// StringArray is an array of strings read in place: its elements are slices of the file's mapping, so reading a
// vocabulary of 150k strings allocates nothing. The bytes are valid until the File is closed and must not be
// written; copy what must outlive the File.
type StringArray struct {
	n   int
	raw []byte // the encoded elements (each a uint64 length and its bytes), validated when the file was opened
}

// StringArray returns the array of strings of key, read in place.
func (f *File) StringArray(key string) (StringArray, error) {
	if err := f.checkOpen(); err != nil {
		return StringArray{}, err
	}
	v, err := f.lookup(key, "array of string")
	if err != nil {
		return StringArray{}, err
	}
	if elem, _, ok := v.ArrayType(); !ok || elem != TypeString {
		return StringArray{}, &KeyError{key, "array of string", typeName(v)}
	}
	return StringArray{n: v.arr.n, raw: v.arr.raw}, nil
}

// Len returns the number of strings.
func (a StringArray) Len() int { return a.n }

// All yields each string's index and bytes, in order.
func (a StringArray) All() iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		off := 0
		for i := range a.n {
			l := int(binary.LittleEndian.Uint64(a.raw[off:]))
			off += 8
			if !yield(i, a.raw[off:off+l:off+l]) {
				return
			}
			off += l
		}
	}
}

// At returns string i, or nil when i is out of range. It walks the array from its start.
func (a StringArray) At(i int) []byte {
	if i < 0 || i >= a.n {
		return nil
	}
	off := 0
	for range i {
		off += 8 + int(binary.LittleEndian.Uint64(a.raw[off:]))
	}
	l := int(binary.LittleEndian.Uint64(a.raw[off:]))
	return a.raw[off+8 : off+8+l : off+8+l]
}

// Split cuts the array into at most parts consecutive arrays of nearly equal length, to be read in parallel;
// their lengths add up to Len. An empty array is returned whole.
func (a StringArray) Split(parts int) []StringArray {
	if a.n == 0 {
		return []StringArray{a}
	}
	parts = max(min(parts, a.n), 1)
	out := make([]StringArray, parts)
	off, first := 0, 0
	for k := range out {
		start, end := off, a.n*(k+1)/parts
		for range end - first {
			off += 8 + int(binary.LittleEndian.Uint64(a.raw[off:]))
		}
		out[k] = StringArray{n: end - first, raw: a.raw[start:off:off]}
		first = end
	}
	return out
}
