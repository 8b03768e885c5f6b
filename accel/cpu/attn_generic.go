//go:build !amd64 || noasm

package cpu

// laneWidthFor is 0: attention runs attnStep.head per (query, head) pair.
func laneWidthFor(size, vsize int) int { return 0 }

// laneWidths is empty: there are no lane kernels.
func laneWidths() []int { return nil }

func laneKernelsFor(lw, nl int) *laneKernels { panic("unreachable") }

func dotsF16Fast(q []float32, k []uint16, stride int, out []float32) int { return 0 }

func valueF16Fast(out, p []float32, v []uint16, stride int) bool { return false }

// hasAVX2 is false: head's F16 loops run in Go.
const hasAVX2 = false

func scaleMaxFast(x []float32, scale, m float32) (int, float32) { return 0, m }

func sum16Fast(x []float32, sum float64) (int, float64) { return 0, sum }

func mulRoundF16Fast(x []float32, s float32) int { return 0 }
