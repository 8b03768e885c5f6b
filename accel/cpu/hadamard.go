package cpu

import "math"

// llama.cpp rotates the queries, keys and values of a quantized KV cache by the orthonormal Hadamard matrix
// (accel.AttentionParams.RotK/RotV): a graph mul_mat of the matrix with the rows cut in blocks of its size,
// marked GGML_HINT_SRC0_IS_HADAMARD, which the CPU backend computes as a fast Walsh-Hadamard transform
// (ggml_compute_forward_fwht_f32): each block is scaled by 1/sqrtf(n) first, then log2(n) butterfly passes
// replace each pair (u, v) at distance 1, 2, 4, … by (u+v, u-v), float32 throughout. (Builds without that hint
// multiply by the matrix; the golden cases cannot tell the two apart, as the quantization of the rotated rows
// absorbs their last-bit differences, and both are exact on them.)

// rotate writes H·x block by block (blocks of n elements, a power of two) into y; len(y) = len(x), a multiple of
// n.
func rotate(x, y []float32, n int) {
	scale := 1 / float32(math.Sqrt(float64(float32(n))))
	for b := 0; b < len(x); b += n {
		yb := y[b : b+n]
		for j, v := range x[b : b+n] {
			yb[j] = v * scale
		}
		for l := 1; l < n; l <<= 1 {
			for i := 0; i < n; i += 2 * l {
				for j := i; j < i+l; j++ {
					u, v := yb[j], yb[j+l]
					yb[j], yb[j+l] = u+v, u-v
				}
			}
		}
	}
}
