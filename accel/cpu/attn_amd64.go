//go:build amd64 && !noasm

package cpu

// laneWidthFor returns the lane width of the lane kernels for heads of size and vsize: 16 with AVX-512F and
// DQ (attn_amd64.s), 8 with AVX2, FMA and F16C alone where both sizes are multiples of 8
// (attn_lanes_avx2_amd64.s), else 0 (attnStep.head).
func laneWidthFor(size, vsize int) int {
	switch {
	case hasAVX512:
		return 16
	case hasAVX2 && size%8 == 0 && vsize%8 == 0:
		return 8
	}
	return 0
}

// laneWidths lists the lane widths whose kernels can run on this CPU (the tests run them all).
func laneWidths() []int {
	var w []int
	if hasAVX512 {
		w = append(w, 16)
	}
	if hasAVX2 {
		w = append(w, 8)
	}
	return w
}

var (
	lanes16 = laneKernels{attnScoresF16, nil, attnSoftmaxF16, cvtRowsF16, attnValue4F32, attnValue8F16, attnValue16T,
		attnUntranspose16T, nil}
	lanes16Y = laneKernels{attnScoresF16Y, nil, attnSoftmaxF16Y, cvtRowsF16, attnValue4F32, attnValue8F16, nil, nil,
		attnValue2F16AVX2}
	lanes8 = laneKernels{attnScoresF16AVX2, attnScores2F16AVX2, attnSoftmaxF16AVX2, cvtRowsF16, attnValue4F32AVX2,
		attnValue8F16, nil, nil, attnValue2F16AVX2}
)

// laneKernelsFor returns the kernels of lane width lw for a block of nl lanes.
func laneKernelsFor(lw, nl int) *laneKernels {
	switch {
	case lw == 8:
		return &lanes8
	case nl <= 8: // lanes 0…7 only, at twice the rate where 512-bit operations are split in two
		return &lanes16Y
	}
	return &lanes16
}

//go:noescape
func attnScoresF16(size int, qT *float32, k *byte, kStride int, n int, s *float32, kbuf *float32, pf int)

//go:noescape
func attnSoftmaxF16(n int, s *float32, c0 int, lohi *int32, scale float32, tmp *float32)

//go:noescape
func attnValue4F32(n int, p *float32, vbuf *float32, vsize int, acc *float32)

//go:noescape
func attnValue16T(n int, p *float32, v *byte, vStride int, accT *float32, vbuf *float32)

//go:noescape
func attnUntranspose16T(accT, acc *float32)

// attnScoresF16Y and attnSoftmaxF16Y are the two above for lanes 0…7 only, in 256-bit registers: the lane
// kernels for blocks of at most 8 lanes.
//
//go:noescape
func attnScoresF16Y(size int, qT *float32, k *byte, kStride int, n int, s *float32, kbuf *float32, pf int)

//go:noescape
func attnSoftmaxF16Y(n int, s *float32, c0 int, lohi *int32, scale float32, tmp *float32)

// scaleMaxFast multiplies the first len(x)&^7 scores by scale and returns how many and the largest of m and
// them; the caller does the rest.
func scaleMaxFast(x []float32, scale, m float32) (int, float32) {
	n := len(x) &^ 7
	if !hasAVX2 || n == 0 {
		return 0, m
	}
	return n, attnScaleMaxAVX2(n, &x[0], scale, m)
}

// sum16Fast adds the first len(x)/16 groups of 16 values to sum as softmaxExp does for groups aligned at x[0],
// and returns how many values it took and the sum.
func sum16Fast(x []float32, sum float64) (int, float64) {
	n16 := len(x) / 16
	if !hasAVX2 || n16 == 0 {
		return 0, sum
	}
	return 16 * n16, attnSum16AVX2(n16, &x[0], sum)
}

// mulRoundF16Fast sets x[j] = f16Round(x[j]·s) for the first len(x)&^7 values and returns how many.
func mulRoundF16Fast(x []float32, s float32) int {
	n := len(x) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	attnMulRoundF16AVX2(n, &x[0], s)
	return n
}

//go:noescape
func attnScaleMaxAVX2(n int, x *float32, scale, m float32) float32

//go:noescape
func attnSum16AVX2(n16 int, x *float32, sum float64) float64

//go:noescape
func attnMulRoundF16AVX2(n int, x *float32, s float32)
