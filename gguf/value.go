package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
)

// ValueType is the type tag of a metadata value, numbered as in the GGUF specification.
type ValueType uint32

// The 13 metadata value types.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

var valueTypeNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool",
	"string", "array", "uint64", "int64", "float64"}

func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("valuetype(%d)", uint32(t))
}

// size is the encoded size of a fixed-size scalar type, 0 for strings and arrays.
func (t ValueType) size() int {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

func (t ValueType) isInt() bool {
	switch t {
	case TypeUint8, TypeInt8, TypeUint16, TypeInt16, TypeUint32, TypeInt32, TypeUint64, TypeInt64:
		return true
	}
	return false
}

// Value is one metadata value. Scalars are decoded when the file is opened; arrays keep a reference to their
// encoded bytes and are decoded by the accessor that asks for them (a vocabulary of 150k strings costs nothing
// until the tokenizer reads it).
type Value struct {
	Type ValueType
	bits uint64 // integer (sign-extended), bool and float scalars (a float's own IEEE bits, kept exact for writing)
	str  string // TypeString
	arr  *array // TypeArray
}

// array is an encoded GGUF array: elem is the element type, n the count, raw its encoded elements.
type array struct {
	elem ValueType
	n    int
	raw  []byte
	f    *File // for the closed check when raw points into a mapping; nil for arrays built by NewArray
}

// ArrayType returns the element type and length of an array value.
func (v Value) ArrayType() (elem ValueType, n int, ok bool) {
	if v.Type != TypeArray || v.arr == nil {
		return 0, 0, false
	}
	return v.arr.elem, v.arr.n, true
}

// IntValue returns an integer scalar (of any integer type) as int64. uint64 values above MaxInt64 fail.
func (v Value) IntValue() (int64, bool) {
	if !v.Type.isInt() {
		return 0, false
	}
	if v.Type == TypeUint64 && v.bits > math.MaxInt64 {
		return 0, false
	}
	return int64(v.bits), true
}

// FloatValue returns a float32/float64 scalar as float64.
func (v Value) FloatValue() (float64, bool) {
	switch v.Type {
	case TypeFloat32:
		return float64(math.Float32frombits(uint32(v.bits))), true
	case TypeFloat64:
		return math.Float64frombits(v.bits), true
	}
	return 0, false
}

// BoolValue returns a bool scalar.
func (v Value) BoolValue() (bool, bool) { return v.bits != 0, v.Type == TypeBool }

// StringValue returns a string scalar.
func (v Value) StringValue() (string, bool) { return v.str, v.Type == TypeString }

// Any returns the value as a Go value: int64, uint64 (above MaxInt64 only), float64, bool, string, or []any for
// arrays (elements decoded the same way). It is meant for printing (forma info --json), not for hot paths.
func (v Value) Any() (any, error) {
	switch {
	case v.Type == TypeUint64 && v.bits > math.MaxInt64:
		return v.bits, nil
	case v.Type.isInt():
		i, _ := v.IntValue()
		return i, nil
	case v.Type == TypeFloat32 || v.Type == TypeFloat64:
		f, _ := v.FloatValue()
		return f, nil
	case v.Type == TypeBool:
		return v.bits != 0, nil
	case v.Type == TypeString:
		return v.str, nil
	case v.Type != TypeArray || v.arr == nil:
		return nil, fmt.Errorf("gguf: invalid value of type %s", v.Type)
	}
	elems, err := v.arr.values()
	if err != nil {
		return nil, err
	}
	out := make([]any, len(elems))
	for i, e := range elems {
		if out[i], err = e.Any(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// values decodes every element of an array. The bytes were validated when the file was opened.
func (a *array) values() ([]Value, error) {
	if a.f != nil {
		if err := a.f.checkOpen(); err != nil {
			return nil, err
		}
	}
	r := reader{buf: a.raw, f: a.f}
	out := make([]Value, a.n)
	for i := range out {
		v, err := r.value(a.elem, 1)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func scalarBits(t ValueType, b []byte) uint64 {
	switch t {
	case TypeUint8, TypeBool:
		return uint64(b[0])
	case TypeInt8:
		return uint64(int64(int8(b[0])))
	case TypeUint16:
		return uint64(binary.LittleEndian.Uint16(b))
	case TypeInt16:
		return uint64(int64(int16(binary.LittleEndian.Uint16(b))))
	case TypeUint32:
		return uint64(binary.LittleEndian.Uint32(b))
	case TypeInt32:
		return uint64(int64(int32(binary.LittleEndian.Uint32(b))))
	case TypeFloat32:
		return uint64(binary.LittleEndian.Uint32(b))
	default: // 64-bit types
		return binary.LittleEndian.Uint64(b)
	}
}
