package quant

import (
	"encoding/binary"
	"math"
)

// The float Gemms multiply weight rows in place, without packing, by kernels that hold a tile of rows × columns
// of 16-lane accumulators (as tinyBLAS does):
//   - F16 in the tiled order (tinyBLAS's for F16 weights, DotF16F16Tiled), each accumulator reduced as
//     _mm512_reduce_add_ps. The activations are the F16 row widened to float32 once, so that the kernel loads
//     them as they are (4 bytes an element; the values are the F16 ones, exactly).
//   - BF16 in ggml_vec_dot_bf16's order (DotBF16BF16): two sets of lanes per pair, by VDPBF16PS itself where
//     the CPU has AVX-512 BF16, else emulated with fused multiply-adds and explicit flushes; the activations
//     are the BF16 row.

// f16tAct is the bytes of one activation element in the F16 Gemm's layout.
const f16tAct = 4

// quantizeF16T rounds src to F16 (QuantizeActivation(F16)'s values) and stores the halves as float32.
func quantizeF16T(src []float32, dst []byte) {
	dst = dst[:f16tAct*len(src)]
	done := f32RoundF16Fast(src, dst)
	for i, v := range src[done:] {
		i += done
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(F16ToF32(F32ToF16(v))))
	}
}

// f16tFromF16 widens an F16 activation row to the F16 Gemm's layout.
func f16tFromF16(ref, dst []byte) {
	n := len(ref) / 2
	dst = dst[:f16tAct*n]
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(f16at(ref, 2*i)))
	}
}

// dotF16T is DotF16F16Tiled of an F16 weight row with an activation row in the F16 Gemm's layout: the scalar
// path for the rows and lengths the kernel does not take.
func dotF16T(n int, w, a []byte) float32 {
	var l [f32Lanes]float32
	_, _ = w[2*n-1], a[4*n-1]
	for i := 0; i < n; i++ {
		x := math.Float32frombits(binary.LittleEndian.Uint32(a[4*i:]))
		l[i%f32Lanes] = fma32(f16at(w, 2*i), x, l[i%f32Lanes])
	}
	return Reduce16(&l)
}

// mulF16TRows is the F16 Gemm's product for weight rows r0… (Mul has checked the bounds) one pair at a time.
func mulF16TRows(n int, w []byte, wStride, r0, rows int, a []byte, aStride, cols int, out []float32, outStride int) {
	for r := r0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			out[c*outStride+r] = dotF16T(n, w[r*wStride:], a[c*aStride:])
		}
	}
}
