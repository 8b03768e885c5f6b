package quant

import "fmt"

// Signatures of the per-type row conversions.
type (
	dequantizeFunc func(src []byte, dst []float32)
	quantizeFunc   func(src []float32, dst []byte)
)

var dequantizers = map[Type]dequantizeFunc{
	F32:    DequantizeF32,
	F16:    DequantizeF16,
	BF16:   DequantizeBF16,
	Q4_0:   DequantizeQ4_0,
	Q4_1:   DequantizeQ4_1,
	Q5_0:   DequantizeQ5_0,
	Q5_1:   DequantizeQ5_1,
	Q8_0:   DequantizeQ8_0,
	Q8_1:   DequantizeQ8_1,
	Q2_K:   DequantizeQ2_K,
	Q3_K:   DequantizeQ3_K,
	Q4_K:   DequantizeQ4_K,
	Q5_K:   DequantizeQ5_K,
	Q6_K:   DequantizeQ6_K,
	Q8_K:   DequantizeQ8_K,
	IQ4_NL: DequantizeIQ4_NL,
	IQ4_XS: DequantizeIQ4_XS,
	MXFP4:  DequantizeMXFP4,
}

// quantizers are the weight quantizers: ggml's reference (file-writing) conversions.
var quantizers = map[Type]quantizeFunc{
	F32:    QuantizeF32,
	F16:    QuantizeF16,
	BF16:   QuantizeBF16,
	Q4_0:   QuantizeQ4_0,
	Q4_1:   QuantizeQ4_1,
	Q5_0:   QuantizeQ5_0,
	Q5_1:   QuantizeQ5_1,
	Q8_0:   QuantizeQ8_0Ref,
	Q8_1:   QuantizeQ8_1Ref,
	Q2_K:   QuantizeQ2_K,
	Q3_K:   QuantizeQ3_K,
	Q4_K:   QuantizeQ4_K,
	Q5_K:   QuantizeQ5_K,
	Q6_K:   QuantizeQ6_K,
	Q8_K:   QuantizeQ8_K,
	IQ4_NL: QuantizeIQ4_NL,
	IQ4_XS: QuantizeIQ4_XS,
	MXFP4:  QuantizeMXFP4,
}

// activationQuantizers are what llama.cpp's CPU backend uses on the activation side of a dot product.
var activationQuantizers = map[Type]quantizeFunc{
	F32:  QuantizeF32,
	F16:  QuantizeF16,
	BF16: QuantizeBF16,
	Q8_0: QuantizeQ8_0,
	Q8_1: QuantizeQ8_1,
	Q8_K: QuantizeQ8_K,
}

// CanDequantize reports whether Dequantize supports t.
func CanDequantize(t Type) bool { _, ok := dequantizers[t]; return ok }

// CanQuantize reports whether Quantize supports t.
func CanQuantize(t Type) bool { _, ok := quantizers[t]; return ok }

// checkSizes validates a conversion of n elements of type t held in nbytes bytes and returns the byte count
// the n elements occupy.
func checkSizes(op string, t Type, n, nbytes int) (int, error) {
	need, err := t.RowBytes(n)
	if err != nil {
		return 0, fmt.Errorf("quant: %s %s: %w", op, t, err)
	}
	if nbytes < need {
		return 0, fmt.Errorf("quant: %s %s: %d elements need %d bytes, have %d", op, t, n, need, nbytes)
	}
	return need, nil
}

// Dequantize converts the first len(dst) elements stored in src as type t to float32, bit-exact with ggml's
// dequantize_row_*. len(dst) must be a multiple of t's block size and src must hold at least the bytes of
// len(dst) elements (extra bytes are ignored).
func Dequantize(t Type, src []byte, dst []float32) error {
	f, ok := dequantizers[t]
	if !ok {
		return fmt.Errorf("quant: dequantize: unsupported type %s", t)
	}
	need, err := checkSizes("dequantize", t, len(dst), len(src))
	if err != nil {
		return err
	}
	f(src[:need], dst)
	return nil
}

// Quantize converts src to type t into dst, as ggml's reference quantizers do when writing a model file
// (ggml_quantize_chunk without an importance matrix). len(src) must be a multiple of t's block size and dst
// must have room for the result; the bytes after it are left untouched.
func Quantize(t Type, src []float32, dst []byte) error {
	f, ok := quantizers[t]
	if !ok {
		return fmt.Errorf("quant: quantize: unsupported type %s", t)
	}
	return runQuantizer("quantize", f, t, src, dst)
}

// QuantizeActivation converts an activation row to t, the ActivationType of some weight type, exactly as
// llama.cpp's CPU backend does before a dot product (see QuantizeQ8_0, QuantizeQ8_1, QuantizeQ8_K).
// Supported: F32, F16, BF16, Q8_0, Q8_1, Q8_K.
func QuantizeActivation(t Type, src []float32, dst []byte) error {
	f, ok := activationQuantizers[t]
	if !ok {
		return fmt.Errorf("quant: quantize activation: %s is not an activation type", t)
	}
	return runQuantizer("quantize activation", f, t, src, dst)
}

func runQuantizer(op string, f quantizeFunc, t Type, src []float32, dst []byte) error {
	need, err := checkSizes(op, t, len(src), len(dst))
	if err != nil {
		return err
	}
	f(src, dst[:need])
	return nil
}
