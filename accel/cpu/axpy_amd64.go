//go:build amd64 && !noasm

package cpu

import (
	"unsafe"

	"github.com/forma-llm/forma/gguf/quant"
)

// axpyFast handles the first elements of axpy (see axpy_amd64.s and axpy_avx2_amd64.s), len(x)&^15 with
// AVX-512, len(x)&^7 with AVX2; it returns how many.
func axpyFast(x, y []float32, a float32, round bool) int {
	switch n := len(x) &^ 7; {
	case hasAVX512 && n >= 16:
		n &^= 15
		_ = y[n-1]
		if round {
			axpyRoundAVX512(n, &x[0], &y[0], a)
		} else {
			axpyAVX512(n, &x[0], &y[0], a)
		}
		return n
	case hasAVX2 && n > 0:
		_ = y[n-1]
		if round {
			axpyRoundAVX2(n, &x[0], &y[0], a)
		} else {
			axpyAVX2(n, &x[0], &y[0], a)
		}
		return n
	}
	return 0
}

// axpyHFast handles the first elements of axpyH (len(x)&^15 with AVX-512, len(x)&^7 with AVX2).
func axpyHFast(x []uint16, y []float32, a float32) int {
	switch n := len(x) &^ 7; {
	case hasAVX512 && n >= 16:
		n &^= 15
		_ = y[n-1]
		axpyHRoundAVX512(n, &x[0], &y[0], a)
		return n
	case hasAVX2 && n > 0:
		_ = y[n-1]
		axpyHRoundAVX2(n, &x[0], &y[0], a)
		return n
	}
	return 0
}

// axpyQFast does all of axpyQ (len(y)/32 blocks of a Q8_0 or Q4_0 row) when the CPU has AVX-512 or AVX2.
func axpyQFast(t quant.Type, x []byte, y []float32, a float32) bool {
	nb := len(y) / 32
	if !hasAVX2 || nb == 0 {
		return false
	}
	_ = y[nb*32-1]
	if t == quant.Q8_0 {
		_ = x[nb*34-1]
		if hasAVX512 {
			axpyQ8AVX512(nb, &x[0], &y[0], a)
		} else {
			axpyQ8AVX2(nb, &x[0], &y[0], a)
		}
	} else {
		_ = x[nb*18-1]
		if hasAVX512 {
			axpyQ4AVX512(nb, &x[0], &y[0], a)
		} else {
			axpyQ4AVX2(nb, &x[0], &y[0], a)
		}
	}
	return true
}

// axpyQRowsFast does axpyQ for rows rows of x, stride bytes apart, with the weights w in turn (rows ≥ 1), when
// it has a kernel for them (Q8_0 with AVX-512 or AVX2), and reports whether it did.
func axpyQRowsFast(t quant.Type, x []byte, stride, rows int, y, w []float32) bool {
	nb := len(y) / 32
	if !hasAVX2 || nb == 0 || t != quant.Q8_0 {
		return false
	}
	_, _, _ = x[(rows-1)*stride+nb*34-1], w[rows-1], y[nb*32-1]
	if hasAVX512 {
		axpyQ8RowsAVX512(nb, &x[0], stride, rows, &w[0], &y[0])
	} else {
		axpyQ8RowsAVX2(nb, &x[0], stride, rows, &w[0], &y[0])
	}
	return true
}

// axpyHRowsFast does axpyH for rows F16 rows of x (len(y) elements each), stride bytes apart, with the
// weights w in turn (rows ≥ 1), when it has a kernel for them (len(y) a multiple of 8, AVX2; AVX-512 for
// multiples of 16), and reports whether it did.
func axpyHRowsFast(x []byte, stride, rows int, y, w []float32) bool {
	n := len(y)
	if n == 0 || n%8 != 0 || !hasAVX2 {
		return false
	}
	_, _ = x[(rows-1)*stride+2*n-1], w[rows-1]
	if hasAVX512 && n%16 == 0 {
		axpyHRowsAVX512(n, (*uint16)(unsafe.Pointer(&x[0])), stride, rows, &w[0], &y[0])
	} else {
		axpyHRowsAVX2(n, (*uint16)(unsafe.Pointer(&x[0])), stride, rows, &w[0], &y[0])
	}
	return true
}

// The AVX2 kernels (axpy_avx2_amd64.s).

//go:noescape
func axpyAVX2(n int, x, y *float32, a float32)

//go:noescape
func axpyRoundAVX2(n int, x, y *float32, a float32)

//go:noescape
func axpyHRoundAVX2(n int, x *uint16, y *float32, a float32)

//go:noescape
func axpyQ8AVX2(nb int, x *byte, y *float32, a float32)

//go:noescape
func axpyQ4AVX2(nb int, x *byte, y *float32, a float32)

//go:noescape
func axpyQ8RowsAVX2(nb int, x *byte, stride, rows int, w, y *float32)

//go:noescape
func axpyHRowsAVX2(n int, x *uint16, stride, rows int, w, y *float32)

// The AVX-512 kernels (axpy_amd64.s).

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
