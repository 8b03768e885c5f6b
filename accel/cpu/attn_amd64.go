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
