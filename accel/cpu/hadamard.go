package cpu

import (
	"math"
	"sync"

	"github.com/forma-llm/forma/gguf/quant"
)

// llama.cpp rotates the queries, keys and values of a quantized KV cache by an orthonormal Hadamard matrix
// (accel.AttentionParams.RotK/RotV): a graph mul_mat of the F32 matrix with the rows cut in blocks of its
// size. The reference computes a batch of blocks with tinyBLAS (16 lanes, element k fused into lane k mod 16,
// reduced as _mm512_reduce_add_ps: quant.TiledDotF32) and a single block with ggml_vec_dot_f32
// (quant.VecDotF32). Here the order follows the blocks of one token's row (all its heads), so that a token's
// result does not depend on its batch: a token of one block (one head of 64, say) takes the single-row order.

// hadamards holds the matrices by size, built on first use (a table of constants, like geluTable).
var hadamards sync.Map // int -> []float32

// hadamard returns the n×n orthonormal Hadamard matrix (n a power of two) as llama.cpp builds it: the Sylvester
// construction from a first element 1/sqrtf(n), each doubling copying the block and negating its last quarter.
func hadamard(n int) []float32 {
	if h, ok := hadamards.Load(n); ok {
		return h.([]float32)
	}
	h := make([]float32, n*n)
	h[0] = 1 / float32(math.Sqrt(float64(float32(n))))
	for s := 1; s < n; s *= 2 {
		for i := 0; i < s; i++ {
			for j := 0; j < s; j++ {
				v := h[i*n+j]
				h[(i+s)*n+j], h[i*n+j+s], h[(i+s)*n+j+s] = v, v, -v
			}
		}
	}
	got, _ := hadamards.LoadOrStore(n, h)
	return got.([]float32)
}

// rotate writes H·x block by block (blocks of n elements, h the n×n matrix) into y; len(y) = len(x), a
// multiple of n. single selects the single-row order (the token's row is one block). x and y must not overlap.
func rotate(h, x, y []float32, n int, single bool) {
	dot := quant.TiledDotF32
	if single {
		dot = quant.VecDotF32
	}
	for b := 0; b < len(x); b += n {
		xb := x[b : b+n]
		for i := 0; i < n; i++ {
			y[b+i] = dot(h[i*n:(i+1)*n], xb)
		}
	}
}
