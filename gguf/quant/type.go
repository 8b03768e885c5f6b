package quant

import "fmt"

// Type is a ggml tensor element type, numbered as in GGUF files (ggml's enum ggml_type).
// Numbers that ggml retired (4, 5, 31–33, 36–38) are not valid types.
type Type uint32

// The ggml types. Every type a GGUF file may hold has a name and a block size here, so that files can be
// validated even where forma cannot compute with a type; CanDequantize and CanQuantize report which ones
// it can convert.
const (
	F32     Type = 0
	F16     Type = 1
	Q4_0    Type = 2
	Q4_1    Type = 3
	Q5_0    Type = 6
	Q5_1    Type = 7
	Q8_0    Type = 8
	Q8_1    Type = 9
	Q2_K    Type = 10
	Q3_K    Type = 11
	Q4_K    Type = 12
	Q5_K    Type = 13
	Q6_K    Type = 14
	Q8_K    Type = 15
	IQ2_XXS Type = 16
	IQ2_XS  Type = 17
	IQ3_XXS Type = 18
	IQ1_S   Type = 19
	IQ4_NL  Type = 20
	IQ3_S   Type = 21
	IQ2_S   Type = 22
	IQ4_XS  Type = 23
	I8      Type = 24
	I16     Type = 25
	I32     Type = 26
	I64     Type = 27
	F64     Type = 28
	IQ1_M   Type = 29
	BF16    Type = 30
	TQ1_0   Type = 34
	TQ2_0   Type = 35
	MXFP4   Type = 39
)

// Valid reports whether t is a type ggml defines (whether or not forma computes with it).
func (t Type) Valid() bool { return row(t).name != "" }

// String returns ggml's name of the type, e.g. "Q4_K", or "type(N)" for an unknown number.
func (t Type) String() string {
	if tr := row(t); tr.name != "" {
		return tr.name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// BlockElems is the number of elements in one block (1 for plain types).
func (t Type) BlockElems() int { return row(t).blockElems }

// BlockBytes is the size of one block in bytes.
func (t Type) BlockBytes() int { return row(t).blockBytes }

// RowBytes returns the bytes of a row of n elements, or an error when n is not a whole number of blocks.
func (t Type) RowBytes(n int) (int, error) {
	tr := row(t)
	if tr.name == "" {
		return 0, fmt.Errorf("unknown tensor type %d", uint32(t))
	}
	if n < 0 || n%tr.blockElems != 0 {
		return 0, fmt.Errorf("row of %d elements is not a multiple of the %s block size %d", n, tr.name, tr.blockElems)
	}
	return n / tr.blockElems * tr.blockBytes, nil
}

// ParseType returns the type named s (case-insensitive, e.g. "q4_k" or "F16").
func ParseType(s string) (Type, error) {
	for _, t := range Types() {
		if equalFold(typeTraits[t].name, s) {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown tensor type %q", s)
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
