//go:build !amd64 || noasm

package cpu

// hasAttnLanes is false: attention runs attnStep.head per (query, head) pair.
const hasAttnLanes = false

func attnScoresF16(size int, qT *float32, k *byte, kStride int, n int, s *float32, kbuf *float32) {
	panic("unreachable")
}

func attnSoftmaxF16(n int, s *float32, c0 int, lohi *int32, scale float32, tmp *float32) {
	panic("unreachable")
}

func attnScoresF16Y(size int, qT *float32, k *byte, kStride int, n int, s *float32, kbuf *float32) {
	panic("unreachable")
}

func attnSoftmaxF16Y(n int, s *float32, c0 int, lohi *int32, scale float32, tmp *float32) {
	panic("unreachable")
}

func attnValue4F16(n int, p *float32, v *byte, vStride int, vsize int, acc *float32) {
	panic("unreachable")
}

func attnValue1F16(n int, p *float32, v *byte, vStride int, vsize int, acc *float32) {
	panic("unreachable")
}

func dotsF16Fast(q []float32, k []uint16, stride int, out []float32) int { return 0 }

func valueF16Fast(out, p []float32, v []uint16, stride int) bool { return false }

// hasAVX2 is false: head's F16 loops run in Go.
const hasAVX2 = false

func scaleMaxFast(x []float32, scale, m float32) (int, float32) { return 0, m }

func sum16Fast(x []float32, sum float64) (int, float64) { return 0, sum }

func mulRoundF16Fast(x []float32, s float32) int { return 0 }
