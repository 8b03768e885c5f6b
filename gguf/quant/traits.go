package quant

// The facts of every type live in one table, typeTraits, as ggml's type_traits: a row per type with its
// name, block, activation type, dot products per order, conversions and the kernels this CPU runs for it.
// Everything else (ActivationType, Dot, Dequantize, CanQuantize, WeightTypes, the backends' type lists)
// reads the rows.

// Signatures of the per-type row conversions.
type (
	dequantizeFunc func(src []byte, dst []float32)
	quantizeFunc   func(src []float32, dst []byte)
)

// traits are the facts of one type. Only the rows of types ggml defines have a name.
type traits struct {
	name       string
	blockElems int
	blockBytes int
	// act is the type activations are converted to for a dot product with this weight type (ggml's
	// vec_dot_type); F32 (the zero value) for a type without dot products.
	act        Type
	dequantize dequantizeFunc // to float32, bit-exact with ggml's dequantize_row_*; nil: not supported
	quantize   quantizeFunc   // ggml's reference quantizer (writing model files); nil: not supported
	// fromFloat is, for the activation types, the conversion llama.cpp's CPU backend applies to activation
	// rows (from_float, with SIMD where this CPU has it); it returns quantize's bits.
	fromFloat quantizeFunc
	// ref are the scalar reference dot products with act, per order (see Order); nil where the reference
	// build has no such kernel. ref[OrderVecDot] is set for every type with dot products.
	ref [numOrders]DotFn
	// fast are the SIMD kernels this CPU runs in place of ref, set during initialisation by the
	// architecture's files (dot_amd64.go, dot_arm64.go) through setFast; nil: ref is the fastest.
	fast [numOrders]DotFn
	// rows is fast[OrderVecDot] over several weight rows and one activation row, where this CPU has a kernel
	// that beats calling it row by row (set with fast); nil: DotRows loops over the rows.
	rows RowsDotFn
	// gemm are the batched kernels this CPU has, set during initialisation (gemm_amd64.go); nil: none.
	gemm [numOrders]*Gemm
}

// numTypes bounds the type numbers; typeTraits has a row for each number below it.
const numTypes = MXFP4 + 1

// QK is the block length of the 32-element quant families; QKK that of the K-quants ("super-blocks").
const (
	QK  = 32
	QKK = 256
)

// vecDot is the dots of a type whose only order is ggml_vec_dot's.
func vecDot(f DotFn) [numOrders]DotFn { return [numOrders]DotFn{OrderVecDot: f} }

// repacked is the dots of a type with ggml_vec_dot's order and the repacked (batch) order.
func repacked(vec, rep DotFn) [numOrders]DotFn {
	return [numOrders]DotFn{OrderVecDot: vec, OrderRepacked: rep}
}

// typeTraits is indexed by Type; read-only after initialisation.
var typeTraits = [numTypes]traits{
	F32: {name: "F32", blockElems: 1, blockBytes: 4, act: F32, dequantize: DequantizeF32, quantize: QuantizeF32,
		fromFloat: QuantizeF32, ref: [numOrders]DotFn{OrderVecDot: DotF32F32, OrderTiled: DotF32F32Tiled}},
	F16: {name: "F16", blockElems: 1, blockBytes: 2, act: F16, dequantize: DequantizeF16, quantize: QuantizeF16,
		fromFloat: QuantizeF16, ref: [numOrders]DotFn{OrderVecDot: DotF16F16, OrderTiled: DotF16F16Tiled}},
	BF16: {name: "BF16", blockElems: 1, blockBytes: 2, act: BF16, dequantize: DequantizeBF16, quantize: QuantizeBF16,
		fromFloat: QuantizeBF16, ref: vecDot(DotBF16BF16)},
	Q4_0: {name: "Q4_0", blockElems: QK, blockBytes: 18, act: Q8_0, dequantize: DequantizeQ4_0, quantize: QuantizeQ4_0,
		ref: repacked(DotQ4_0Q8_0, DotQ4_0Q8_0Interleaved)},
	Q4_1: {name: "Q4_1", blockElems: QK, blockBytes: 20, act: Q8_1, dequantize: DequantizeQ4_1, quantize: QuantizeQ4_1,
		ref: vecDot(DotQ4_1Q8_1)},
	Q5_0: {name: "Q5_0", blockElems: QK, blockBytes: 22, act: Q8_0, dequantize: DequantizeQ5_0, quantize: QuantizeQ5_0,
		ref: vecDot(DotQ5_0Q8_0)},
	Q5_1: {name: "Q5_1", blockElems: QK, blockBytes: 24, act: Q8_1, dequantize: DequantizeQ5_1, quantize: QuantizeQ5_1,
		ref: vecDot(DotQ5_1Q8_1)},
	Q8_0: {name: "Q8_0", blockElems: QK, blockBytes: 34, act: Q8_0, dequantize: DequantizeQ8_0, quantize: QuantizeQ8_0Ref,
		fromFloat: QuantizeQ8_0, ref: vecDot(DotQ8_0Q8_0)},
	Q8_1: {name: "Q8_1", blockElems: QK, blockBytes: 36, dequantize: DequantizeQ8_1, quantize: QuantizeQ8_1Ref,
		fromFloat: QuantizeQ8_1},
	Q2_K: {name: "Q2_K", blockElems: QKK, blockBytes: 84, act: Q8_K, dequantize: DequantizeQ2_K, quantize: QuantizeQ2_K,
		ref: repacked(DotQ2_KQ8_K, DotQ2_KQ8_KRepacked)},
	Q3_K: {name: "Q3_K", blockElems: QKK, blockBytes: 110, act: Q8_K, dequantize: DequantizeQ3_K, quantize: QuantizeQ3_K,
		ref: vecDot(DotQ3_KQ8_K)},
	Q4_K: {name: "Q4_K", blockElems: QKK, blockBytes: 144, act: Q8_K, dequantize: DequantizeQ4_K, quantize: QuantizeQ4_K,
		ref: repacked(DotQ4_KQ8_K, DotQ4_KQ8_KRepacked)},
	Q5_K: {name: "Q5_K", blockElems: QKK, blockBytes: 176, act: Q8_K, dequantize: DequantizeQ5_K, quantize: QuantizeQ5_K,
		ref: vecDot(DotQ5_KQ8_K)},
	Q6_K: {name: "Q6_K", blockElems: QKK, blockBytes: 210, act: Q8_K, dequantize: DequantizeQ6_K, quantize: QuantizeQ6_K,
		ref: vecDot(DotQ6_KQ8_K)},
	Q8_K: {name: "Q8_K", blockElems: QKK, blockBytes: 292, dequantize: DequantizeQ8_K, quantize: QuantizeQ8_K,
		fromFloat: QuantizeQ8_K},
	IQ2_XXS: {name: "IQ2_XXS", blockElems: QKK, blockBytes: 66},
	IQ2_XS:  {name: "IQ2_XS", blockElems: QKK, blockBytes: 74},
	IQ3_XXS: {name: "IQ3_XXS", blockElems: QKK, blockBytes: 98},
	IQ1_S:   {name: "IQ1_S", blockElems: QKK, blockBytes: 50},
	IQ4_NL: {name: "IQ4_NL", blockElems: QK, blockBytes: 18, act: Q8_0, dequantize: DequantizeIQ4_NL,
		quantize: QuantizeIQ4_NL, ref: repacked(DotIQ4_NLQ8_0, DotIQ4_NLQ8_0Interleaved)},
	IQ3_S: {name: "IQ3_S", blockElems: QKK, blockBytes: 110},
	IQ2_S: {name: "IQ2_S", blockElems: QKK, blockBytes: 82},
	IQ4_XS: {name: "IQ4_XS", blockElems: QKK, blockBytes: 136, act: Q8_K, dequantize: DequantizeIQ4_XS,
		quantize: QuantizeIQ4_XS, ref: vecDot(DotIQ4_XSQ8_K)},
	I8:    {name: "I8", blockElems: 1, blockBytes: 1},
	I16:   {name: "I16", blockElems: 1, blockBytes: 2},
	I32:   {name: "I32", blockElems: 1, blockBytes: 4},
	I64:   {name: "I64", blockElems: 1, blockBytes: 8},
	F64:   {name: "F64", blockElems: 1, blockBytes: 8},
	IQ1_M: {name: "IQ1_M", blockElems: QKK, blockBytes: 56},
	TQ1_0: {name: "TQ1_0", blockElems: QKK, blockBytes: 54},
	TQ2_0: {name: "TQ2_0", blockElems: QKK, blockBytes: 66},
	MXFP4: {name: "MXFP4", blockElems: QK, blockBytes: 17, act: Q8_0, dequantize: DequantizeMXFP4, quantize: QuantizeMXFP4,
		ref: vecDot(DotMXFP4Q8_0)},
}

// noTraits is the row of the numbers past the table: no name, nothing supported.
var noTraits traits

// row returns the facts of t (a row without a name for a number ggml does not define).
func row(t Type) *traits {
	if t >= numTypes {
		return &noTraits
	}
	return &typeTraits[t]
}

// Types lists every type ggml defines, in GGUF order.
func Types() []Type {
	var ts []Type
	for t := range numTypes {
		if typeTraits[t].name != "" {
			ts = append(ts, t)
		}
	}
	return ts
}

// WeightTypes lists, in GGUF order, the types forma multiplies by: those with a dot product (and so an
// activation type whose conversion QuantizeActivation has) and a dequantizer.
func WeightTypes() []Type {
	var ts []Type
	for _, t := range Types() {
		if tr := &typeTraits[t]; tr.ref[OrderVecDot] != nil && tr.dequantize != nil {
			ts = append(ts, t)
		}
	}
	return ts
}

// setFast installs a SIMD kernel for weight type w in order o; it must return RefDot(w, o)'s bits.
func setFast(w Type, o Order, f DotFn) {
	tr := &typeTraits[w]
	if tr.ref[o] == nil {
		panic("quant: no reference " + o.String() + " dot product for " + w.String())
	}
	tr.fast[o] = f
}
