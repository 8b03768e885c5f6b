//go:build amd64 && !noasm

package quant

// The F16 and BF16 Gemms (gemm_float.go, gemm_float_amd64.s): with AVX-512F, 32 registers hold a tile of
// 16-lane accumulators with the tile's weight and activation vectors (F16 4 × 4, BF16 4 × 2); with AVX2 only,
// F16 in 2 × 2 tiles of two 8-float registers per accumulator, BF16 in tiles of 2 × 4 (gemm4BF16AVX2).
func init() {
	if !hasAVX2 {
		return
	}
	typeTraits[F16].gemm[OrderTiled] = &Gemm{w: F16, o: OrderTiled, actBlock: f16tAct, quantize: quantizeF16T,
		fromRef: f16tFromF16, direct: mulF16T}
	switch {
	case !hasAVX512: // AVX2: 16 registers hold 2 × 2 tiles (F16), 2 × 4 of one set of 8 lanes (BF16)
		f16tRows, f16tTile, f16tDot = 2, gemm2F16TAVX2, dotF16TAAVX2
		bf16Path = bf16AVX2
	case hasBF16:
		bf16Path = bf16Insn
	}
	typeTraits[BF16].gemm[OrderVecDot] = &Gemm{w: BF16, o: OrderVecDot, actBlock: 2, quantize: QuantizeBF16,
		fromRef: func(ref, dst []byte) { copy(dst, ref) }, direct: mulBF16}
}

// f16tMinCols is the fewest activation rows the tiles take; fewer (decoding) stream the weight rows one at a
// time, which reads memory faster than four rows at once (tinyllama F16 decode 10.0 against 11.9 t/s).
const f16tMinCols = 4

// f16tCols is the activation rows the F16 kernel takes per call: with n = 2048, 512 KiB of them, which stay in
// the L2 cache while the kernel runs over a group of 16 weight rows (64 KiB).
const f16tCols = 64

// mulF16T multiplies rows F16 weight rows with cols activation rows (Mul has checked the bounds): f16tRows
// rows at a time by the kernel where n is a multiple of 16 (for f16tMinCols columns or more), by groups of 16 rows against blocks of f16tCols
// activation rows; the rows past the last four, one pair at a time.
func mulF16T(n int, w []byte, wStride, rows int, a []byte, aStride, cols int, out []float32, outStride int) {
	tiled := 0
	if n%f32Lanes == 0 && cols < f16tMinCols {
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				out[c*outStride+r] = f16tDot(n, &w[r*wStride], &a[c*aStride])
			}
		}
		return
	}
	if n%f32Lanes == 0 {
		tiled = rows / f16tRows * f16tRows
	}
	for r0 := 0; r0 < tiled; r0 += GemmRows {
		r1 := min(tiled, r0+GemmRows)
		for c0 := 0; c0 < cols; c0 += f16tCols {
			nc := min(f16tCols, cols-c0)
			for r := r0; r < r1; r += f16tRows {
				f16tTile(n, &w[r*wStride], wStride, &a[c0*aStride], aStride, nc, &out[c0*outStride+r], outStride)
			}
		}
	}
	mulF16TRows(n, w, wStride, tiled, rows, a, aStride, cols, out, outStride)
}

// The F16 kernels this CPU runs (set by init): the tile kernel, its rows, and the one-row dot.
var (
	f16tRows = 4
	f16tTile = gemm4F16T
	f16tDot  = dotF16TA
)

// gemm4F16T sets out[c·outStride + r] for r < 4, c < cols to DotF16F16Tiled of F16 weight row r (n halves at
// w + r·wStride bytes) with activation row c (n float32 at a + c·aStride bytes); n is a positive multiple of 16.
//
//go:noescape
func dotF16TA(n int, w, a *byte) float32

// gemm2F16TAVX2 and dotF16TAAVX2 are gemm4F16T (for two rows) and dotF16TA with AVX2.
//
//go:noescape
func gemm2F16TAVX2(n int, w *byte, wStride int, a *byte, aStride, cols int, out *float32, outStride int)

//go:noescape
func dotF16TAAVX2(n int, w, a *byte) float32

//go:noescape
func gemm4F16T(n int, w *byte, wStride int, a *byte, aStride, cols int, out *float32, outStride int)

// bf16MagCols is the activation rows whose smallest magnitudes mulBF16 finds once per call (later ones, once
// per group of weight rows); a multiple of f16tCols.
const bf16MagCols = 2048

// bf16MinCols is the fewest activation rows the BF16 tiles take; fewer (decoding) take dotBF16Fast a pair at a
// time, one weight row streamed at a time.
const bf16MinCols = 4

// mulBF16 multiplies rows BF16 weight rows with cols activation rows (Mul has checked the bounds): by the
// kernel four rows at a time (for bf16MinCols columns or more), which gives each pair's vector part, then the
// elements after the last 64 in float64 here, as DotBF16BF16; the other rows and few columns a pair at a time.
func mulBF16(n int, w []byte, wStride, rows int, a []byte, aStride, cols int, out []float32, outStride int) {
	steps, tiled := n/64, 0
	if steps > 0 && cols >= bf16MinCols {
		tiled = rows &^ 3
	}
	var sums [4 * f16tCols]float64
	// The columns' smallest magnitudes (for bf16AVX2): the first bf16MagCols, then a block's at a time.
	var colMag [bf16MagCols + f16tCols]uint16
	if bf16Path == bf16AVX2 && tiled > 0 {
		for c := 0; c < min(cols, bf16MagCols); c++ {
			colMag[c] = bfMinMagAVX2(64*steps, &a[c*aStride])
		}
	}
	for r0 := 0; r0 < tiled; r0 += GemmRows {
		r1 := min(tiled, r0+GemmRows)
		for c0 := 0; c0 < cols; c0 += f16tCols {
			nc := min(f16tCols, cols-c0)
			mags := colMag[min(c0, bf16MagCols):][:nc]
			if bf16Path == bf16AVX2 && c0 >= bf16MagCols {
				for c := range mags {
					mags[c] = bfMinMagAVX2(64*steps, &a[(c0+c)*aStride])
				}
			}
			for r := r0; r < r1; r += 4 {
				exact := false // the tile's sums are the reference's (else the tile takes DotBF16BF16)
				switch {       // direct calls: through a func value, sums would move to the heap
				case bf16Path == bf16Insn:
					exact = gemm4BF16BF16(steps, &w[r*wStride], wStride, &a[c0*aStride], aStride, nc, &sums[0])
				case bf16Path == bf16AVX512:
					exact = gemm4BF16(steps, &w[r*wStride], wStride, &a[c0*aStride], aStride, nc, &sums[0])
				case bf16Flushless(steps, w[r*wStride:], wStride, mags):
					exact = gemm4BF16AVX2(steps, &w[r*wStride], wStride, &a[c0*aStride], aStride, nc, &sums[0])
				}
				if exact && n == 64*steps { // no elements after the steps: the sums are the dots
					for c := 0; c < nc; c++ {
						o, s := out[(c0+c)*outStride+r:][:4], sums[4*c:][:4]
						o[0], o[1], o[2], o[3] = float32(s[0]), float32(s[1]), float32(s[2]), float32(s[3])
					}
					continue
				}
				for c := 0; c < nc; c++ {
					for i := 0; i < 4; i++ {
						if !exact {
							out[(c0+c)*outStride+r+i] = DotBF16BF16(n, w[(r+i)*wStride:], a[(c0+c)*aStride:])
							continue
						}
						sum, wr, ar := sums[4*c+i], w[(r+i)*wStride:], a[(c0+c)*aStride:]
						for k := 64 * steps; k < n; k++ {
							sum += float64(bfAt(wr, k) * bfAt(ar, k))
						}
						out[(c0+c)*outStride+r+i] = float32(sum)
					}
				}
			}
		}
	}
	for r := tiled; r < rows; r++ {
		for c := 0; c < cols; c++ {
			out[c*outStride+r] = dotBF16Fast(n, w[r*wStride:r*wStride+2*n], a[c*aStride:c*aStride+2*n])
		}
	}
}

// bf16Path is the BF16 Gemm's kernel on this CPU (init): VDPBF16PS itself where the CPU has AVX-512 BF16,
// else its emulation with AVX-512F, else with AVX2 (exact only where bf16Flushless holds).
var bf16Path = bf16AVX512

const (
	bf16AVX512 = iota // gemm4BF16
	bf16Insn          // gemm4BF16BF16
	bf16AVX2          // gemm4BF16AVX2
)

// bf16Flushless reports whether no partial sum of the vector part (64·steps elements) of four weight rows
// (w, wStride bytes apart) with columns of smallest magnitudes colMag can land where VDPBF16PS flushes (a
// magnitude in (0, 2^-126]), so that fused multiply-adds give its bits. A product of bf16 elements of
// exponents e_w and e_a is a multiple of 2^(e_w+e_a−14), and so is every partial sum (rounding to float32
// keeps a multiple of that power of two): if the smallest such step exceeds 2^-126 (with biased exponents,
// E_w + E_a ≥ 143 for the rows' and columns' smallest nonzero magnitudes, none denormal), every nonzero sum
// does too.
func bf16Flushless(steps int, w []byte, wStride int, colMag []uint16) bool {
	rowE := 511
	for i := 0; i < 4; i++ {
		rowE = min(rowE, int(bfMinMagAVX2(64*steps, &w[i*wStride])>>7))
	}
	for _, m := range colMag {
		if e := int(m >> 7); rowE == 0 || e == 0 || rowE+e < 143 {
			return false
		}
	}
	return true
}

// gemm4BF16 sets sums[4c + r] for r < 4, c < cols to DotBF16BF16's vector part (the two sets of lanes reduced
// and added in float64) over the first 64·steps elements of BF16 weight row r (at w + r·wStride bytes) and
// activation row c (at a + c·aStride bytes); steps is positive. It returns false where a sum may not be the
// instruction's (a lane landed on ±2^-126, gemm_float_amd64.s): the caller then takes the reference.
//
//go:noescape
func gemm4BF16(steps int, w *byte, wStride int, a *byte, aStride, cols int, sums *float64) (exact bool)

// gemm4BF16BF16 is gemm4BF16 by VDPBF16PS itself (AVX-512 BF16).
//
//go:noescape
func gemm4BF16BF16(steps int, w *byte, wStride int, a *byte, aStride, cols int, sums *float64) (exact bool)

// gemm4BF16AVX2 (gemm_bf16_avx2_amd64.s) is gemm4BF16 with AVX2 and FMA, for tiles where bf16Flushless holds.
//
//go:noescape
func gemm4BF16AVX2(steps int, w *byte, wStride int, a *byte, aStride, cols int, sums *float64) (exact bool)

// bfMinMagAVX2 (gemm_bf16_avx2_amd64.s) returns the smallest magnitude of the nonzero BF16 elements of x (n a
// positive multiple of 16), 0xffff if there are none.
//
//go:noescape
func bfMinMagAVX2(n int, x *byte) uint16
