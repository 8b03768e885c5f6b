//go:build amd64 && !noasm

package cpu

// hasAttnLanes reports whether the F16 attention kernels of attn_amd64.s (AVX-512F and DQ) can run.
var hasAttnLanes = hasAVX512

//go:noescape
func attnScoresF16(size int, qT *float32, k *byte, kStride int, n int, s *float32, kbuf *float32)

//go:noescape
func attnSoftmaxF16(n int, s *float32, c0 int, lohi *int32, scale float32, tmp *float32)

//go:noescape
func attnValue4F16(n int, p *float32, v *byte, vStride int, vsize int, acc *float32)

//go:noescape
func attnValue1F16(n int, p *float32, v *byte, vStride int, vsize int, acc *float32)

// attnScoresF16Y and attnSoftmaxF16Y are the two above for lanes 0…7 only, in 256-bit registers: the lane
// kernels for blocks of at most 8 lanes.
//
//go:noescape
func attnScoresF16Y(size int, qT *float32, k *byte, kStride int, n int, s *float32, kbuf *float32)

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
