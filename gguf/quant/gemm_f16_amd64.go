//go:build amd64 && !noasm

package quant

// The F16 Gemm (gemm_f16.go) needs AVX-512F: 32 registers hold a 4×4 tile of 16-lane accumulators with the
// tile's weight and activation vectors (gemm_f16_amd64.s).
func init() {
	if !hasAVX512 {
		return
	}
	typeTraits[F16].gemm[OrderTiled] = &Gemm{w: F16, o: OrderTiled, actBlock: f16tAct, quantize: quantizeF16T,
		fromRef: f16tFromF16, direct: mulF16T}
}

// f16tMinCols is the fewest activation rows the tiles take; fewer (decoding) stream the weight rows one at a
// time, which reads memory faster than four rows at once (tinyllama F16 decode 10.0 against 11.9 t/s).
const f16tMinCols = 4

// f16tCols is the activation rows the F16 kernel takes per call: with n = 2048, 512 KiB of them, which stay in
// the L2 cache while the kernel runs over a group of 16 weight rows (64 KiB).
const f16tCols = 64

// mulF16T multiplies rows F16 weight rows with cols activation rows (Mul has checked the bounds): four rows
// at a time by the kernel where n is a multiple of 16 (for f16tMinCols columns or more), by groups of 16 rows against blocks of f16tCols
// activation rows; the rows past the last four, one pair at a time.
func mulF16T(n int, w []byte, wStride, rows int, a []byte, aStride, cols int, out []float32, outStride int) {
	tiled := 0
	if n%f32Lanes == 0 && cols < f16tMinCols {
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				out[c*outStride+r] = dotF16TA(n, &w[r*wStride], &a[c*aStride])
			}
		}
		return
	}
	if n%f32Lanes == 0 {
		tiled = rows &^ 3
	}
	for r0 := 0; r0 < tiled; r0 += GemmRows {
		r1 := min(tiled, r0+GemmRows)
		for c0 := 0; c0 < cols; c0 += f16tCols {
			nc := min(f16tCols, cols-c0)
			for r := r0; r < r1; r += 4 {
				gemm4F16T(n, &w[r*wStride], wStride, &a[c0*aStride], aStride, nc, &out[c0*outStride+r], outStride)
			}
		}
	}
	mulF16TRows(n, w, wStride, tiled, rows, a, aStride, cols, out, outStride)
}

// gemm4F16T sets out[c·outStride + r] for r < 4, c < cols to DotF16F16Tiled of F16 weight row r (n halves at
// w + r·wStride bytes) with activation row c (n float32 at a + c·aStride bytes); n is a positive multiple of 16.
//
//go:noescape
func dotF16TA(n int, w, a *byte) float32

//go:noescape
func gemm4F16T(n int, w *byte, wStride int, a *byte, aStride, cols int, out *float32, outStride int)
