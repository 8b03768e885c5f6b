//go:build amd64 && !noasm

package quant

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// archVariants are every amd64 kernel, not only those Dot picks on this CPU.
func archVariants() []dotVariant {
	return []dotVariant{
		{F32, OrderVecDot, "avx2", dotF32Vec, hasAVX2},
		{F16, OrderVecDot, "avx2", dotF16Vec, hasAVX2},
		{F32, OrderTiled, "avx2", dotF32Tiled, hasAVX2},
		{F16, OrderTiled, "avx2", dotF16Tiled, hasAVX2},
		{Q4_0, OrderVecDot, "avx2", dotQ4_0Fast, hasAVX2},
		{Q4_1, OrderVecDot, "avx2", dotQ4_1Fast, hasAVX2},
		{Q5_0, OrderVecDot, "avx2", dotQ5_0Fast, hasAVX2},
		{Q5_1, OrderVecDot, "avx2", dotQ5_1Fast, hasAVX2},
		{Q8_0, OrderVecDot, "avx2", dotQ8_0Fast, hasAVX2},
		{Q8_0, OrderVecDot, "vnni", dotQ8_0FastVNNI, hasVNNI},
		{Q4_0, OrderRepacked, "avx2", dotQ4_0RepackedFast, hasAVX2},
		{Q2_K, OrderVecDot, "avx2", dotQ2_KFast, hasAVX2},
		{Q3_K, OrderVecDot, "avx2", dotQ3_KFast, hasAVX2},
		{Q4_K, OrderVecDot, "avx2", dotQ4_KFast, hasAVX2},
		{Q5_K, OrderVecDot, "avx2", dotQ5_KFast, hasAVX2},
		{Q6_K, OrderVecDot, "avx2", dotQ6_KFast, hasAVX2},
		{IQ4_NL, OrderVecDot, "avx2", dotIQ4_NLFast, hasAVX2},
		{IQ4_XS, OrderVecDot, "avx2", dotIQ4_XSFast, hasAVX2},
		{BF16, OrderVecDot, "avx2", dotBF16AVX2, hasAVX2},
		{BF16, OrderVecDot, "bf16", dotBF16Insn, hasBF16},
	}
}

// TestDotBF16Order checks that the BF16 kernel adds the products in the reference's order. Random rows
// rarely tell: the float64 sum is rounded to float32 at the end. Here products of ±2^60 cancel each other
// between small ones, which survive only while the running sum is near zero, so any other order of the
// additions changes the result.
func TestDotBF16Order(t *testing.T) {
	if !hasAVX2 {
		t.Skip("not on this CPU")
	}
	r := rand.New(rand.NewPCG(7, 8))
	put := func(b []byte, i int, f float32) {
		h := F32ToBF16(f)
		b[2*i], b[2*i+1] = byte(h), byte(h>>8)
	}
	for trial := 0; trial < 2000; trial++ {
		n := 1 + r.IntN(100)
		w, a := make([]byte, 2*n), make([]byte, 2*n)
		for i := 0; i < n; i++ {
			switch r.IntN(3) {
			case 0:
				put(w, i, 1<<30)
				put(a, i, float32(1-2*r.IntN(2))*(1<<30))
			default:
				put(w, i, 1+r.Float32())
				put(a, i, float32(1-2*r.IntN(2))*(1+r.Float32())*float32(int(1)<<r.IntN(9)))
			}
		}
		for _, f := range []struct {
			name string
			dot  DotFn
			ok   bool
		}{{"avx2", dotBF16AVX2, true}, {"bf16", dotBF16Insn, hasBF16}} {
			if got, want := f.dot(n, w, a), DotBF16BF16(n, w, a); f.ok && !sameBits(got, want) {
				t.Fatalf("%s, n=%d: %v, reference %v", f.name, n, got, want)
			}
		}
	}
}

// TestGemvQ4_KWithoutVBMI runs the Q4_K Gemm as on a CPU without AVX-512 VBMI: quants in Q8_K's order, the
// AVX2 kernel for the vector path.
func TestGemvQ4_KWithoutVBMI(t *testing.T) {
	g := GemmFor(Q4_K, OrderRepacked)
	if g == nil {
		t.Skip("no Q4_K Gemm on this CPU")
	}
	saved := q8kwPermute
	q8kwPermute = false
	defer func() { q8kwPermute = saved }()
	r := rand.New(rand.NewPCG(25, 26))
	for trial := 0; trial < 10; trial++ {
		n, rows := QKK*(1+r.IntN(6)), 1+r.IntN(40)
		checkGemm(t, g, n, rows, 1, randScaled(r, Q4_K, n*rows/QKK), randScaled(r, Q8_K, n/QKK),
			fmt.Sprintf("random bytes %d", trial))
	}
}

// TestDotBF16AVX2Detects checks that the AVX2 BF16 kernel hands the reference only the rows where a flush of
// VDPBF16PS may matter: never ordinary rows (zeros included), always rows where a denormal meets a nonzero
// value or a sum lands in (0, 2^-126].
func TestDotBF16AVX2Detects(t *testing.T) {
	if !hasAVX2 {
		t.Skip("not on this CPU")
	}
	r := rand.New(rand.NewPCG(9, 10))
	const n = 256
	exact := func(w, a []byte) bool {
		_, ok := dotBF16VecAVX2(n, &w[0], &a[0])
		return ok
	}
	for trial := 0; trial < 100; trial++ {
		w, a := randFloats(r, BF16, n), randFloats(r, BF16, n)
		for i := 0; i < n; i += 7 { // zeros, and a denormal beside each zero
			w[2*i], w[2*i+1], a[2*i], a[2*i+1] = 0, 0, 3, 0
		}
		if !exact(w, a) {
			t.Fatalf("trial %d: an ordinary row (zeros beside denormals) was not exact", trial)
		}
		den := randFloats(r, BF16, n)
		k := r.IntN(n)
		den[2*k], den[2*k+1] = byte(1+r.IntN(127)), byte(r.IntN(2)<<7)
		if exact(den, a) && a[2*k]|a[2*k+1]&0x7f != 0 {
			t.Fatalf("trial %d: a denormal weight beside a nonzero activation went undetected", trial)
		}
	}
	for _, b := range []int{1, 3, 385, 387, 449} { // high bytes: elements 0, 1, and 192, 193, 224 of the last step
		w, a := make([]byte, 2*n), make([]byte, 2*n)
		w[b], a[b] = 0x20, 0x1f // 2^-63 · 2^-65 = 2^-128: a tiny sum
		if exact(w, a) {
			t.Fatalf("a sum of 2^-128 from element %d went undetected", b/2)
		}
	}
	// A tiny first sum that the second add makes normal again: 2^-128, then + 2^-110 (the instruction's 2^-110,
	// the FMAs' 2^-110 + 2^-128).
	w, a := make([]byte, 2*n), make([]byte, 2*n)
	w[387], a[387], w[385], a[385] = 0x20, 0x1f, 0x24, 0x24
	if exact(w, a) {
		t.Fatal("a tiny first sum went undetected")
	}
	if got, want := dotBF16AVX2(n, w, a), DotBF16BF16(n, w, a); got != want || want != 0x1p-110 {
		t.Fatalf("%g, reference %g, want 2^-110", got, want)
	}
}
