package quant

import "fmt"

// CanDequantize reports whether Dequantize supports t.
func CanDequantize(t Type) bool { return row(t).dequantize != nil }

// CanQuantize reports whether Quantize supports t.
func CanQuantize(t Type) bool { return row(t).quantize != nil }

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
	f := row(t).dequantize
	if f == nil {
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
	f := row(t).quantize
	if f == nil {
		return fmt.Errorf("quant: quantize: unsupported type %s", t)
	}
	return runQuantizer("quantize", f, t, src, dst)
}

// QuantizeActivation converts an activation row to t, the ActivationType of some weight type, exactly as
// llama.cpp's CPU backend does before a dot product (see QuantizeQ8_0, QuantizeQ8_1, QuantizeQ8_K).
// Supported: F32, F16, BF16, Q8_0, Q8_1, Q8_K.
func QuantizeActivation(t Type, src []float32, dst []byte) error {
	f := row(t).fromFloat
	if f == nil {
		return fmt.Errorf("quant: quantize activation: %s is not an activation type", t)
	}
	return runQuantizer("quantize activation", f, t, src, dst)
}

// ActivationQuantizer returns the conversion QuantizeActivation runs for t without its checks (len(src) a
// multiple of t's block size, dst holding the result), for callers that have checked the sizes once; nil when t
// is not an activation type.
func ActivationQuantizer(t Type) func(src []float32, dst []byte) { return row(t).fromFloat }

func runQuantizer(op string, f quantizeFunc, t Type, src []float32, dst []byte) error {
	need, err := checkSizes(op, t, len(src), len(dst))
	if err != nil {
		return err
	}
	f(src, dst[:need])
	return nil
}
