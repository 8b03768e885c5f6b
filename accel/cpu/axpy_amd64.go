//go:build amd64 && !noasm

package cpu

// axpyFast handles the first len(x)&^15 elements of axpy (see axpy_amd64.s); it returns how many.
func axpyFast(x, y []float32, a float32, round bool) int {
	n := len(x) &^ 15
	if !hasAVX512 || n == 0 {
		return 0
	}
	_ = y[n-1]
	if round {
		axpyRoundAVX512(n, &x[0], &y[0], a)
	} else {
		axpyAVX512(n, &x[0], &y[0], a)
	}
	return n
}

// axpyHFast handles the first len(x)&^15 elements of axpyH.
func axpyHFast(x []uint16, y []float32, a float32) int {
	n := len(x) &^ 15
	if !hasAVX512 || n == 0 {
		return 0
	}
	_ = y[n-1]
	axpyHRoundAVX512(n, &x[0], &y[0], a)
	return n
}

//go:noescape
func axpyAVX512(n int, x, y *float32, a float32)

//go:noescape
func axpyRoundAVX512(n int, x, y *float32, a float32)

//go:noescape
func axpyHRoundAVX512(n int, x *uint16, y *float32, a float32)
