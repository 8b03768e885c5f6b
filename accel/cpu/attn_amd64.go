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
