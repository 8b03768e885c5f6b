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

// traits describes the storage of one type: elements per block and bytes per block.
type traits struct {
	name       string
	blockElems int
	blockBytes int
}

// QK is the block length of the 32-element quant families; QKK that of the K-quants ("super-blocks").
const (
	QK  = 32
	QKK = 256
)

var typeTraits = map[Type]traits{
	F32:     {"F32", 1, 4},
	F16:     {"F16", 1, 2},
	Q4_0:    {"Q4_0", QK, 18},
	Q4_1:    {"Q4_1", QK, 20},
	Q5_0:    {"Q5_0", QK, 22},
	Q5_1:    {"Q5_1", QK, 24},
	Q8_0:    {"Q8_0", QK, 34},
	Q8_1:    {"Q8_1", QK, 36},
	Q2_K:    {"Q2_K", QKK, 84},
	Q3_K:    {"Q3_K", QKK, 110},
	Q4_K:    {"Q4_K", QKK, 144},
	Q5_K:    {"Q5_K", QKK, 176},
	Q6_K:    {"Q6_K", QKK, 210},
	Q8_K:    {"Q8_K", QKK, 292},
	IQ2_XXS: {"IQ2_XXS", QKK, 66},
	IQ2_XS:  {"IQ2_XS", QKK, 74},
	IQ3_XXS: {"IQ3_XXS", QKK, 98},
	IQ1_S:   {"IQ1_S", QKK, 50},
	IQ4_NL:  {"IQ4_NL", QK, 18},
	IQ3_S:   {"IQ3_S", QKK, 110},
	IQ2_S:   {"IQ2_S", QKK, 82},
	IQ4_XS:  {"IQ4_XS", QKK, 136},
	I8:      {"I8", 1, 1},
	I16:     {"I16", 1, 2},
	I32:     {"I32", 1, 4},
	I64:     {"I64", 1, 8},
	F64:     {"F64", 1, 8},
	IQ1_M:   {"IQ1_M", QKK, 56},
	BF16:    {"BF16", 1, 2},
	TQ1_0:   {"TQ1_0", QKK, 54},
	TQ2_0:   {"TQ2_0", QKK, 66},
	MXFP4:   {"MXFP4", QK, 17},
}

// Valid reports whether t is a type ggml defines (whether or not forma computes with it).
func (t Type) Valid() bool { _, ok := typeTraits[t]; return ok }

// String returns ggml's name of the type, e.g. "Q4_K", or "type(N)" for an unknown number.
func (t Type) String() string {
	if tr, ok := typeTraits[t]; ok {
		return tr.name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// BlockElems is the number of elements in one block (1 for plain types).
func (t Type) BlockElems() int { return typeTraits[t].blockElems }

// BlockBytes is the size of one block in bytes.
func (t Type) BlockBytes() int { return typeTraits[t].blockBytes }

// RowBytes returns the bytes of a row of n elements, or an error when n is not a whole number of blocks.
func (t Type) RowBytes(n int) (int, error) {
	tr, ok := typeTraits[t]
	if !ok {
		return 0, fmt.Errorf("unknown tensor type %d", uint32(t))
	}
	if n < 0 || n%tr.blockElems != 0 {
		return 0, fmt.Errorf("row of %d elements is not a multiple of the %s block size %d", n, tr.name, tr.blockElems)
	}
	return n / tr.blockElems * tr.blockBytes, nil
}

// ParseType returns the type named s (case-insensitive, e.g. "q4_k" or "F16").
func ParseType(s string) (Type, error) {
	for t, tr := range typeTraits {
		if equalFold(tr.name, s) {
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
