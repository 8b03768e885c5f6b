package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Constructors of metadata values, for writing files. Each value is encoded exactly as GGUF stores it.

// NewUint8 returns a uint8 value.
func NewUint8(x uint8) Value { return Value{Type: TypeUint8, bits: uint64(x)} }

// NewInt8 returns an int8 value.
func NewInt8(x int8) Value { return Value{Type: TypeInt8, bits: uint64(int64(x))} }

// NewUint16 returns a uint16 value.
func NewUint16(x uint16) Value { return Value{Type: TypeUint16, bits: uint64(x)} }

// NewInt16 returns an int16 value.
func NewInt16(x int16) Value { return Value{Type: TypeInt16, bits: uint64(int64(x))} }

// NewUint32 returns a uint32 value.
func NewUint32(x uint32) Value { return Value{Type: TypeUint32, bits: uint64(x)} }

// NewInt32 returns an int32 value.
func NewInt32(x int32) Value { return Value{Type: TypeInt32, bits: uint64(int64(x))} }

// NewUint64 returns a uint64 value.
func NewUint64(x uint64) Value { return Value{Type: TypeUint64, bits: x} }

// NewInt64 returns an int64 value.
func NewInt64(x int64) Value { return Value{Type: TypeInt64, bits: uint64(x)} }

// NewFloat32 returns a float32 value.
func NewFloat32(x float32) Value { return Value{Type: TypeFloat32, bits: uint64(math.Float32bits(x))} }

// NewFloat64 returns a float64 value.
func NewFloat64(x float64) Value { return Value{Type: TypeFloat64, bits: math.Float64bits(x)} }

// NewBool returns a bool value.
func NewBool(x bool) Value {
	v := Value{Type: TypeBool}
	if x {
		v.bits = 1
	}
	return v
}

// NewString returns a string value.
func NewString(s string) Value { return Value{Type: TypeString, str: s} }

// NewArray returns an array whose elements all have type elem. Elements may themselves be arrays (of any element
// type each), nested up to the depth the reader accepts.
func NewArray(elem ValueType, elems []Value) (Value, error) {
	if elem > TypeFloat64 {
		return Value{}, fmt.Errorf("gguf: array of unknown value type %d", uint32(elem))
	}
	var raw []byte
	for i, e := range elems {
		if e.Type != elem {
			return Value{}, fmt.Errorf("gguf: array of %s: element %d is %s", elem, i, e.Type)
		}
		if d := e.depth(); d >= maxArrayDepth {
			return Value{}, fmt.Errorf("gguf: arrays nested deeper than %d", maxArrayDepth)
		}
		raw = appendValue(raw, e)
	}
	return Value{Type: TypeArray, arr: &array{elem: elem, n: len(elems), raw: raw}}, nil
}

// NewStrings returns an array of strings.
func NewStrings(ss []string) Value {
	n := 0
	for _, s := range ss {
		n += 8 + len(s)
	}
	raw := make([]byte, 0, n)
	for _, s := range ss {
		raw = appendString(raw, s)
	}
	return Value{Type: TypeArray, arr: &array{elem: TypeString, n: len(ss), raw: raw}}
}

// NewInt32s returns an array of int32.
func NewInt32s(xs []int32) Value {
	raw := make([]byte, 0, 4*len(xs))
	for _, x := range xs {
		raw = binary.LittleEndian.AppendUint32(raw, uint32(x))
	}
	return Value{Type: TypeArray, arr: &array{elem: TypeInt32, n: len(xs), raw: raw}}
}

// NewFloat32s returns an array of float32.
func NewFloat32s(xs []float32) Value {
	raw := make([]byte, 0, 4*len(xs))
	for _, x := range xs {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(x))
	}
	return Value{Type: TypeArray, arr: &array{elem: TypeFloat32, n: len(xs), raw: raw}}
}

// depth is the nesting depth of an array value (1 for an array of scalars), 0 for a scalar.
func (v Value) depth() int {
	if v.Type != TypeArray || v.arr == nil {
		return 0
	}
	if v.arr.elem != TypeArray {
		return 1
	}
	d := 1
	elems, err := v.arr.values()
	if err != nil {
		return maxArrayDepth + 1
	}
	for _, e := range elems {
		d = max(d, 1+e.depth())
	}
	return d
}

// appendValue appends the encoding of v without its type tag (an array: element type, count, elements).
func appendValue(dst []byte, v Value) []byte {
	switch v.Type {
	case TypeString:
		return appendString(dst, v.str)
	case TypeArray:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(v.arr.elem))
		dst = binary.LittleEndian.AppendUint64(dst, uint64(v.arr.n))
		return append(dst, v.arr.raw...)
	}
	switch v.Type.size() {
	case 1:
		return append(dst, byte(v.bits))
	case 2:
		return binary.LittleEndian.AppendUint16(dst, uint16(v.bits))
	case 4:
		return binary.LittleEndian.AppendUint32(dst, uint32(v.bits))
	}
	return binary.LittleEndian.AppendUint64(dst, v.bits)
}

func appendString(dst []byte, s string) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(s)))
	return append(dst, s...)
}
