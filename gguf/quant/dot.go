package quant

// Reference dot products between one weight row and one activation row, as llama.cpp's CPU backend computes
// them for matrix multiplication: the activation row is first converted to ActivationType(weight) (with
// QuantizeActivation), then DotFunc(weight) combines the two. The Dot* functions reproduce the arithmetic of
// the x86-64 build that made forma's reference data (its AVX2 kernels for the block types, see
// dot_blocks32.go; its AVX2 kernels for the K-quants and IQ4_XS, see dot_kquants.go; its AVX-512 kernels for
// F32, F16 and BF16, see dot_float.go and DotBF16BF16; ggml's generic order for MXFP4) — exact integer sums
// inside each block, then float32 accumulation in that order — so they are the reference that faster
// implementations must reproduce bit for bit.

import (
	"fmt"
	"math"
)

// DotFn is the signature of the per-type dot products: n elements (a multiple of the weight's block size)
// of weight row w and activation row a, both in their storage formats.
type DotFn func(n int, w, a []byte) float32

// ActivationType returns the type llama.cpp converts activations to for a matrix multiply with weights of
// type w (ggml's vec_dot_type). For a weight type without a dot product here (DotFunc(w) == nil) it returns
// F32: such weights have to be dequantized and multiplied in float32.
func ActivationType(w Type) Type {
	return row(w).act
}

// Order is one of the accumulation orders in which the reference build multiplies a weight matrix by
// activation rows. The integer sums inside a block are exact in any order; the float32 arithmetic around
// them differs between llama.cpp's kernels, and the CPU backend picks the order the reference build uses
// for the shape at hand (see accel/cpu).
type Order uint8

const (
	// OrderVecDot is ggml_vec_dot_<w>_<a>, the single-row dot product; every type with a dot product has it.
	OrderVecDot Order = iota
	// OrderTiled is llamafile's tinyBLAS for F32 and F16 weights (one 16-lane accumulator).
	OrderTiled
	// OrderRepacked is the x86 build's kernels for weights interleaved 8 rows at a time: repacked Q4_0,
	// IQ4_NL, Q4_K and Q2_K (q4_0_8x8 …: for Q4_0 and IQ4_NL per block one fused multiply-add of the whole
	// integer block sum, for Q4_K per pair of groups and for Q2_K per half super-block, the order of their
	// batch kernels) and IQ4_XS's panel gemm (per super-block).
	OrderRepacked
	numOrders
)

func (o Order) String() string {
	switch o {
	case OrderVecDot:
		return "vecdot"
	case OrderTiled:
		return "tiled"
	case OrderRepacked:
		return "repacked"
	}
	return fmt.Sprintf("Order(%d)", uint8(o))
}

// RefDot returns the scalar reference dot product of weight type w in order o, or nil when the reference
// build has no such kernel.
func RefDot(w Type, o Order) DotFn {
	if o >= numOrders {
		return nil
	}
	return row(w).ref[o]
}

// Dot returns the fastest dot product of weight type w in order o on this CPU: a SIMD kernel where there is
// one, which returns RefDot(w, o)'s bits for every input, else the reference itself (always with the noasm
// build tag). nil when RefDot(w, o) is nil.
func Dot(w Type, o Order) DotFn {
	if o >= numOrders {
		return nil
	}
	if f := row(w).fast[o]; f != nil {
		return f
	}
	return row(w).ref[o]
}

// DotFunc is Dot(w, OrderVecDot): the single-row dot product of weight type w (its activation type is
// ActivationType(w)), or nil when there is none.
func DotFunc(w Type) DotFn { return Dot(w, OrderVecDot) }

// RowsDotFn computes out[i·outRow + r] = Dot(w, o)(n, wRows[r·wRow:], acts[i·aRow:]) for r < rows and i < m:
// m activation rows against rows weight rows, with that dot product's bits.
type RowsDotFn func(n int, wRows []byte, wRow, rows int, acts []byte, aRow, m int, out []float32, outRow int)

// DotRows returns Dot(w, o) over several weight and activation rows: the CPU's kernel for it where there is
// one (F16 in ggml_vec_dot's order on amd64, whose float64 tails run in the lanes of registers, several rows
// and activations at a time), a loop over Dot(w, o) otherwise; nil where Dot(w, o) is nil.
func DotRows(w Type, o Order) RowsDotFn {
	if f := row(w).rows; f != nil && o == OrderVecDot {
		return f
	}
	dot := Dot(w, o)
	if dot == nil {
		return nil
	}
	return func(n int, wRows []byte, wRow, rows int, acts []byte, aRow, m int, out []float32, outRow int) {
		for i := 0; i < m; i++ {
			a := acts[i*aRow:]
			for r := 0; r < rows; r++ {
				out[i*outRow+r] = dot(n, wRows[r*wRow:], a)
			}
		}
	}
}

// RefDotFunc is RefDot(w, OrderVecDot), the scalar reference of DotFunc.
func RefDotFunc(w Type) DotFn { return RefDot(w, OrderVecDot) }

// VecDot checks the arguments and returns DotFunc(w)(n, wRow, aRow): n elements, a multiple of w's block
// size, of a weight row of type w and an activation row of type ActivationType(w).
func VecDot(w Type, n int, wRow, aRow []byte) (float32, error) {
	f := DotFunc(w)
	if f == nil {
		return 0, fmt.Errorf("quant: vec dot: no dot product for weight type %s", w)
	}
	a := ActivationType(w)
	wn, err := checkSizes("vec dot weight", w, n, len(wRow))
	if err != nil {
		return 0, err
	}
	an, err := checkSizes("vec dot activation", a, n, len(aRow))
	if err != nil {
		return 0, err
	}
	return f(n, wRow[:wn], aRow[:an]), nil
}

// bfAt returns element i of a BF16 row.
func bfAt(b []byte, i int) float32 { return BF16ToF32(uint16(b[2*i]) | uint16(b[2*i+1])<<8) }

// bfDAZ returns f with a denormal taken as a zero of its sign.
func bfDAZ(f float32) float32 {
	if math.Float32bits(f)&0x7f800000 == 0 {
		return math.Float32frombits(math.Float32bits(f) & 0x80000000)
	}
	return f
}

// BF16MulAdd returns acc + w·a as each of VDPBF16PS's two additions computes it on x86 (AVX-512 BF16, whose
// DAZ, FTZ and round-to-nearest-even hold whatever MXCSR says; tested against the instruction on AMD Zen 4,
// TestBFStepInsn): denormal operands (w, a and the accumulator) taken as zeros of their signs, the product
// exact (neither rounded nor limited to float32's range), the sum rounded once to nearest even, and a result
// that is tiny after that rounding (under 2^-126 with an unbounded exponent) flushed to a zero of its sign.
// A NaN in gives a NaN out; its payload is not the instruction's (which takes the product's NaN before the
// accumulator's, the weight's before the activation's). The float64 sum rounded again to float32 has the bits
// of one rounding (53 ≥ 2·24+2 bits, both terms having at most 24 significant bits); float32 would round a
// tiny sum at the denormals' coarser step, so 2^64 times it, rounded, tells which side of 2^-126 the
// instruction's rounding falls (2^-126 − 2^-152 rounds up to 2^-126 and stays).
func BF16MulAdd(acc, w, a float32) float32 {
	s := float64(bfDAZ(acc)) + float64(bfDAZ(w))*float64(bfDAZ(a))
	if math.Abs(s) < 0x1p-100 && math.Abs(float64(float32(s*0x1p64))) < 0x1p-62 {
		return float32(math.Copysign(0, s))
	}
	return float32(s)
}

// bfStep adds the 32 elements from off into the 16 lanes as VDPBF16PS does: lane j adds the product of
// element 2j+1 and, after that, the product of element 2j, each by BF16MulAdd.
func bfStep(l *[f32Lanes]float32, w, a []byte, off int) {
	for j := range l {
		acc := BF16MulAdd(l[j], bfAt(w, off+2*j+1), bfAt(a, off+2*j+1))
		l[j] = BF16MulAdd(acc, bfAt(w, off+2*j), bfAt(a, off+2*j))
	}
}

// DotBF16BF16 is ggml_vec_dot_bf16 of the reference build (AVX-512 BF16): per 64 elements, the first 32 into
// one set of 16 lanes and the next 32 into another (VDPBF16PS, bfStep); each set reduced as
// _mm512_reduce_add_ps, the two added in float64, then the products of the elements after the last 64 added
// one at a time in float64.
func DotBF16BF16(n int, w, a []byte) float32 {
	var l1, l2 [f32Lanes]float32
	np := n &^ 63
	for off := 0; off < np; off += 64 {
		bfStep(&l1, w, a, off)
		bfStep(&l2, w, a, off+32)
	}
	sum := float64(Reduce16(&l1)) + float64(Reduce16(&l2))
	for i := np; i < n; i++ {
		sum += float64(bfAt(w, i) * bfAt(a, i))
	}
	return float32(sum)
}
