//go:build amd64 && !noasm

package quant

// dotF16Tail adds the products of n halves (n a multiple of 4) at w and a to sum in order, as DotF16F16's
// scalar tail (dotf_amd64.s).
//
//go:noescape
func dotF16Tail(n int, w, a *byte, sum float64) float64

// dotF16Tail4 adds, for the four rows at w, w+wStride, w+2·wStride and w+3·wStride, the products of their n
// halves (n a multiple of 4) with those at a to sums[r] in order: dotF16Tail's additions for four rows at
// once, row r in lane r, whose chains of float64 additions would otherwise run one after the other.
//
//go:noescape
func dotF16Tail4(n int, w *byte, wStride int, a *byte, sums *[4]float64)

// dotF16Tail8 is dotF16Tail4 for eight rows, in two chains that overlap.
//
//go:noescape
func dotF16Tail8(n int, w *byte, wStride int, a *byte, sums *[8]float64)

// dotF16Rows is dotF16Vec for several rows (a RowsDotFn): the whole steps of 64 of each row in the kernel, the
// tails of eight or four rows at a time in dotF16Tail8 and dotF16Tail4, the last elements (fewer than 4) and
// rows one by one.
func dotF16Rows(n int, wRows []byte, wRow int, a []byte, out []float32) {
	if n <= 0 {
		clear(out)
		return
	}
	np := n &^ (f32Step - 1)
	t := (n - np) &^ 3
	if t == 0 || len(out) < 4 {
		for r := range out {
			out[r] = dotF16Vec(n, wRows[r*wRow:], a)
		}
		return
	}
	_ = a[2*n-1]
	var sums [8]float64
	r := 0
	for r+4 <= len(out) {
		k := 4
		if r+8 <= len(out) {
			k = 8
		}
		_ = wRows[(r+k-1)*wRow+2*n-1]
		for j := range k {
			sums[j] = 0
			if np > 0 {
				sums[j] = float64(dotF16VecAVX2(np, &wRows[(r+j)*wRow], &a[0]))
			}
		}
		if k == 8 {
			dotF16Tail8(t, &wRows[r*wRow+2*np], wRow, &a[2*np], &sums)
		} else {
			dotF16Tail4(t, &wRows[r*wRow+2*np], wRow, &a[2*np], (*[4]float64)(sums[:4]))
		}
		for j := range k {
			w := wRows[(r+j)*wRow:]
			for i := np + t; i < n; i++ {
				sums[j] += float64(f16at(w, 2*i) * f16at(a, 2*i))
			}
			out[r+j] = float32(sums[j])
		}
		r += k
	}
	for ; r < len(out); r++ {
		out[r] = dotF16Vec(n, wRows[r*wRow:], a)
	}
}
