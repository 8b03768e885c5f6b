// Package libm reproduces C library math functions, bit for bit, as the reference build (llama.cpp on
// x86-64 GNU/Linux, GNU libc 2.36) gets them from its C library where ggml calls them rather than its own
// vector code: the results of GNU libc's implementations, which are not always the correctly rounded ones
// that rounding Go's float64 math gives.
//
// Each function is checked against values of the C library in its tests.
package libm
