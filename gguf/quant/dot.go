package quant

// Reference dot products between one weight row and one activation row, as llama.cpp's CPU backend computes
// them for matrix multiplication: the activation row is first converted to ActivationType(weight) (with
// QuantizeActivation), then DotFunc(weight) combines the two. The Dot* functions reproduce the arithmetic of
// the x86-64 build that made forma's reference data (its AVX2 kernels for the block types, see
// dot_blocks32.go; its AVX2 kernels for the K-quants and IQ4_XS, see dot_kquants.go; its AVX-512 kernels for
// F32, F16 and BF16, see dot_float.go and DotBF16BF16; ggml's generic order for MXFP4) — exact integer sums
// inside each block, then float32 accumulation in that order — so they are the reference that faster
// implementations must reproduce bit for bit.

import "fmt"

// DotFn is the signature of the per-type dot products: n elements (a multiple of the weight's block size)
// of weight row w and activation row a, both in their storage formats.
type DotFn func(n int, w, a []byte) float32

var activationTypes = map[Type]Type{
	F32:    F32,
	F16:    F16,
	BF16:   BF16,
	Q4_0:   Q8_0,
	Q4_1:   Q8_1,
	Q5_0:   Q8_0,
	Q5_1:   Q8_1,
	Q8_0:   Q8_0,
	Q2_K:   Q8_K,
	Q3_K:   Q8_K,
	Q4_K:   Q8_K,
	Q5_K:   Q8_K,
	Q6_K:   Q8_K,
	IQ4_NL: Q8_0,
	IQ4_XS: Q8_K,
	MXFP4:  Q8_0,
}

var dotFuncs = map[Type]DotFn{
	F32:    DotF32F32,
	F16:    DotF16F16,
	BF16:   DotBF16BF16,
	Q4_0:   DotQ4_0Q8_0,
	Q4_1:   DotQ4_1Q8_1,
	Q5_0:   DotQ5_0Q8_0,
	Q5_1:   DotQ5_1Q8_1,
	Q8_0:   DotQ8_0Q8_0,
	Q2_K:   DotQ2_KQ8_K,
	Q3_K:   DotQ3_KQ8_K,
	Q4_K:   DotQ4_KQ8_K,
	Q5_K:   DotQ5_KQ8_K,
	Q6_K:   DotQ6_KQ8_K,
	IQ4_NL: DotIQ4_NLQ8_0,
	IQ4_XS: DotIQ4_XSQ8_K,
	MXFP4:  DotMXFP4Q8_0,
}

// ActivationType returns the type llama.cpp converts activations to for a matrix multiply with weights of
// type w (ggml's vec_dot_type). For a weight type without a dot product here (DotFunc(w) == nil) it returns
// F32: such weights have to be dequantized and multiplied in float32.
func ActivationType(w Type) Type {
	if a, ok := activationTypes[w]; ok {
		return a
	}
	return F32
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

// refDots are the scalar references per order, indexed by weight type.
var refDots = [numOrders]map[Type]DotFn{
	OrderVecDot: dotFuncs,
	OrderTiled:  {F32: DotF32F32Tiled, F16: DotF16F16Tiled},
	OrderRepacked: {Q4_0: DotQ4_0Q8_0Interleaved, Q4_K: DotQ4_KQ8_KRepacked, Q2_K: DotQ2_KQ8_KRepacked,
		IQ4_NL: DotIQ4_NLQ8_0Interleaved, IQ4_XS: DotIQ4_XSQ8_KPanel},
}

// fastDots holds, per order, the fastest implementation this CPU has: initially the references, replaced
// during initialisation by SIMD kernels (dot_amd64.go, dot_arm64.go) that return the same bits. Read-only
// after init.
var fastDots = func() (f [numOrders]map[Type]DotFn) {
	for o, m := range refDots {
		f[o] = make(map[Type]DotFn, len(m))
		for t, d := range m {
			f[o][t] = d
		}
	}
	return f
}()

// setFast installs a SIMD kernel for weight type w in order o; it must return RefDot(w, o)'s bits.
func setFast(w Type, o Order, f DotFn) {
	if refDots[o][w] == nil {
		panic(fmt.Sprintf("quant: no reference %s dot product for %s", o, w))
	}
	fastDots[o][w] = f
}

// RefDot returns the scalar reference dot product of weight type w in order o, or nil when the reference
// build has no such kernel.
func RefDot(w Type, o Order) DotFn {
	if o >= numOrders {
		return nil
	}
	return refDots[o][w]
}

// Dot returns the fastest dot product of weight type w in order o on this CPU: a SIMD kernel where there is
// one, which returns RefDot(w, o)'s bits for every input, else the reference itself (always with the noasm
// build tag). nil when RefDot(w, o) is nil.
func Dot(w Type, o Order) DotFn {
	if o >= numOrders {
		return nil
	}
	return fastDots[o][w]
}

// DotFunc is Dot(w, OrderVecDot): the single-row dot product of weight type w (its activation type is
// ActivationType(w)), or nil when there is none.
func DotFunc(w Type) DotFn { return Dot(w, OrderVecDot) }

// RefDotFunc is RefDot(w, OrderVecDot), the scalar reference of DotFunc.
func RefDotFunc(w Type) DotFn { return dotFuncs[w] }

// VecDot checks the arguments and returns DotFunc(w)(n, wRow, aRow): n elements, a multiple of w's block
// size, of a weight row of type w and an activation row of type ActivationType(w).
func VecDot(w Type, n int, wRow, aRow []byte) (float32, error) {
	f, ok := fastDots[OrderVecDot][w]
	if !ok {
		return 0, fmt.Errorf("quant: vec dot: no dot product for weight type %s", w)
	}
	a := activationTypes[w]
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

// bfStep adds the 32 elements from off into the 16 lanes as VDPBF16PS does: lane j takes element 2j+1 then
// 2j, each exact product added with one rounding.
func bfStep(l *[f32Lanes]float32, w, a []byte, off int) {
	for j := range l {
		l[j] += float32(bfAt(w, off+2*j+1) * bfAt(a, off+2*j+1))
		l[j] += float32(bfAt(w, off+2*j) * bfAt(a, off+2*j))
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
