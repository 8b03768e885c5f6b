//go:build amd64 && !noasm

package cpu

import (
	"unsafe"

	"github.com/forma-llm/forma/gguf/quant"
)

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

// axpyQFast does all of axpyQ (len(y)/32 blocks of a Q8_0 or Q4_0 row) when the CPU has AVX-512.
func axpyQFast(t quant.Type, x []byte, y []float32, a float32) bool {
	nb := len(y) / 32
	if !hasAVX512 || nb == 0 {
		return false
	}
	if t == quant.Q8_0 {
		_ = x[nb*34-1]
		axpyQ8AVX512(nb, &x[0], &y[0], a)
	} else {
		_ = x[nb*18-1]
		axpyQ4AVX512(nb, &x[0], &y[0], a)
	}
	return true
}

// axpyQRowsFast does axpyQ for rows rows of x, stride bytes apart, with the weights w in turn (rows ≥ 1), when
// it has a kernel for them (Q8_0 with AVX-512), and reports whether it did.
func axpyQRowsFast(t quant.Type, x []byte, stride, rows int, y, w []float32) bool {
	nb := len(y) / 32
	if !hasAVX512 || nb == 0 || t != quant.Q8_0 {
		return false
	}
	_, _ = x[(rows-1)*stride+nb*34-1], w[rows-1]
	axpyQ8RowsAVX512(nb, &x[0], stride, rows, &w[0], &y[0])
	return true
}

// axpyHRowsFast does axpyH for rows F16 rows of x (len(y) elements each), stride bytes apart, with the
// weights w in turn (rows ≥ 1), when it has a kernel for them (len(y) a multiple of 16, AVX-512), and reports
// whether it did.
func axpyHRowsFast(x []byte, stride, rows int, y, w []float32) bool {
	n := len(y)
	if !hasAVX512 || n == 0 || n%16 != 0 {
		return false
	}
	_, _ = x[(rows-1)*stride+2*n-1], w[rows-1]
	axpyHRowsAVX512(n, (*uint16)(unsafe.Pointer(&x[0])), stride, rows, &w[0], &y[0])
	return true
}

//go:noescape
func axpyHRowsAVX512(n int, x *uint16, stride, rows int, w, y *float32)

//go:noescape
func axpyQ8RowsAVX512(nb int, x *byte, stride, rows int, w, y *float32)

//go:noescape
func axpyQ4AVX512(nb int, x *byte, y *float32, a float32)

//go:noescape
func axpyQ8AVX512(nb int, x *byte, y *float32, a float32)

//go:noescape
func axpyAVX512(n int, x, y *float32, a float32)

//go:noescape
func axpyRoundAVX512(n int, x, y *float32, a float32)

//go:noescape
func axpyHRoundAVX512(n int, x *uint16, y *float32, a float32)
