//go:build amd64 && !noasm

package cpu

import "unsafe"

// sumSquares4Fast continues rmsNorm4's sums over the first cols&^7 elements of its four rows (norm_amd64.s);
// it returns how many.
func sumSquares4Fast(x []float32, cols int, sums *[4]float64) int {
	n := cols &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	_ = x[3*cols+n-1]
	sumSquares4AVX2(n/8, &x[0], int(unsafe.Sizeof(float32(0)))*cols, sums)
	return n
}

// scaleFast sets y = x·s for the first len(x)&^7 elements; it returns how many.
func scaleFast(x, y []float32, s float32) int {
	n := len(x) &^ 7
	if !hasAVX2 || n == 0 {
		return 0
	}
	_ = y[n-1]
	scaleAVX2(n/8, &x[0], &y[0], s)
	return n
}

//go:noescape
func sumSquares4AVX2(n8 int, x *float32, stride int, sums *[4]float64)

//go:noescape
func scaleAVX2(n8 int, x, y *float32, s float32)
