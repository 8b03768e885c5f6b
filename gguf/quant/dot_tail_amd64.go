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

// dotF16Tail4x4 adds, for the four rows at w + r·wStride and four activation tails at a + i·aStride (bytes,
// the halves converted to float64 by f16ToF64), the products of their 4·n4 elements to sums[4i + r] in order:
// the rows' conversions and transposes shared by the four activations, four chains of additions.
//
//go:noescape
func dotF16Tail4x4(n4 int, w *byte, wStride int, a *float64, aStride int, sums *[16]float64)

// dotF16Tail8x4 is dotF16Tail4x4 for the eight rows at w + r·wStride, sums[8i + r] (AVX-512): eight rows a
// register, so that the chains, bound by the additions' latency, cover twice the rows a call.
//
//go:noescape
func dotF16Tail8x4(n4 int, w *byte, wStride int, a *float64, aStride int, sums *[32]float64)

// dotF16x4AVX512 sets out[r] to dotF16VecAVX2(n, w + r·wStride, a) for the four rows r < 4 (n a positive
// multiple of 64), in 512-bit registers with the four rows' folds interleaved.
//
//go:noescape
func dotF16x4AVX512(n int, w *byte, wStride int, a *byte, out *[4]float32)

// dotF16x16 sets sums[i·sStride bytes + j] to float64(dotF16VecAVX2(n, w + j·wStride, activation i)) for
// the four rows at w and the four activation rows widened to float32 at a + i·aStride bytes (n a positive
// multiple of 64): each step's weights converted once for the four activations, Reduce16 on the sixteen pairs
// at once (AVX-512).
//
//go:noescape
func dotF16x16(n int, w *byte, wStride int, a *float32, aStride int, sums *float64, sStride int)

// f16ToF32x16 widens 16·n16 halves at src to float32 at dst (AVX-512).
//
//go:noescape
func f16ToF32x16(n16 int, src *byte, dst *float32)

// actF32Max is the longest vector part (elements) whose activations dotF16Rows widens to float32 once, four
// rows on the stack (4 KB), for dotF16x16; longer ones are converted with each row (dotF16Vec4).
const actF32Max = 256

// dotF16Vec4 sets sums[j] to float64(dotF16VecAVX2(np, row j, a)) for the four rows at w, wRow bytes apart.
func dotF16Vec4(np int, w []byte, wRow int, a []byte, sums []float64) {
	if np == 0 {
		clear(sums[:4])
		return
	}
	if hasAVX512 {
		var o [4]float32
		dotF16x4AVX512(np, &w[0], wRow, &a[0], &o)
		sums[0], sums[1], sums[2], sums[3] = float64(o[0]), float64(o[1]), float64(o[2]), float64(o[3])
		return
	}
	for j := range 4 {
		sums[j] = float64(dotF16VecAVX2(np, &w[j*wRow], &a[0]))
	}
}

// f16ToF64 converts 4·n4 halves at src to float64 at dst.
//
//go:noescape
func f16ToF64(n4 int, src *byte, dst *float64)

// dotF16Rows is dotF16Vec for several rows and activation rows (a RowsDotFn). For one activation row, or
// lengths without a tail of four after the last step of 64, dotF16Rows1 per activation row. Else, per group of
// four activation rows, their tails converted to float64 once, and per eight weight rows with AVX-512 (then
// four): the steps of 64 of each pair in a kernel (dotF16x16 on four weight rows and the group's activations
// widened to float32 once, where the group has three rows or more and the steps are at most actF32Max
// elements; else dotF16Vec4), the tails of the pairs in dotF16Tail8x4 (dotF16Tail4x4), the last elements
// (fewer than 4) one by one; rows past the last four one by one.
func dotF16Rows(n int, wRows []byte, wRow, rows int, acts []byte, aRow, m int, out []float32, outRow int) {
	np := n &^ (f32Step - 1)
	t := (n - np) &^ 3
	if n <= 0 || t == 0 || rows < 4 || m < 2 {
		for i := 0; i < m; i++ {
			dotF16Rows1(n, wRows, wRow, acts[i*aRow:], out[i*outRow:i*outRow+rows])
		}
		return
	}
	var at [4 * f32Step]float64   // the tails of four activation rows, t floats apart
	var af [4 * actF32Max]float32 // their steps widened, np floats apart (wide)
	var sums [32]float64
	for i0 := 0; i0 < m; i0 += 4 {
		mi := min(4, m-i0)
		wide := hasAVX512 && np > 0 && np <= actF32Max && mi > 2 // for fewer rows dotF16x16 does more work than it saves
		clear(at[mi*t:])
		for i := 0; i < mi; i++ {
			a := acts[(i0+i)*aRow:]
			_ = a[2*n-1]
			f16ToF64(t/4, &a[2*np], &at[i*t])
			if wide {
				f16ToF32x16(np/16, &a[0], &af[i*np])
			}
		}
		if wide {
			clear(af[mi*np : 4*np])
		}
		r := 0
		for k := 8; k >= 4; k -= 4 {
			if k == 8 && !hasAVX512 {
				continue
			}
			for ; r+k <= rows; r += k {
				_ = wRows[(r+k-1)*wRow+2*n-1]
				clear(sums[:])
				for j := 0; wide && j < k; j += 4 {
					dotF16x16(np, &wRows[(r+j)*wRow], wRow, &af[0], 4*np, &sums[j], 8*k)
				}
				for i := 0; !wide && i < mi; i++ {
					for j := 0; j < k; j += 4 {
						dotF16Vec4(np, wRows[(r+j)*wRow:], wRow, acts[(i0+i)*aRow:], sums[k*i+j:k*i+j+4])
					}
				}
				if k == 8 {
					dotF16Tail8x4(t/4, &wRows[r*wRow+2*np], wRow, &at[0], 8*t, &sums)
				} else {
					dotF16Tail4x4(t/4, &wRows[r*wRow+2*np], wRow, &at[0], 8*t, (*[16]float64)(sums[:16]))
				}
				for i := 0; i < mi; i++ {
					o, sm := out[(i0+i)*outRow+r:][:k], sums[k*i:][:k]
					for j := 0; np+t < n && j < k; j++ {
						w, a := wRows[(r+j)*wRow:], acts[(i0+i)*aRow:]
						for e := np + t; e < n; e++ {
							sm[j] += float64(f16at(w, 2*e) * f16at(a, 2*e))
						}
					}
					for j, s := range sm {
						o[j] = float32(s)
					}
				}
			}
		}
		for ; r < rows; r++ {
			for i := 0; i < mi; i++ {
				out[(i0+i)*outRow+r] = dotF16Vec(n, wRows[r*wRow:], acts[(i0+i)*aRow:])
			}
		}
	}
}

// dotF16Rows1 is dotF16Vec for several rows and one activation row: the whole steps of 64 of each row in the
// kernel, the tails of eight or four rows at a time in dotF16Tail8 and dotF16Tail4, the last elements (fewer
// than 4) and rows one by one. With AVX2 alone and rows of whole steps (heads of 64, 128, 256: flash
// attention's keys) one call takes all the rows, where a call a row through dotF16Vec cost a third of the
// scores.
func dotF16Rows1(n int, wRows []byte, wRow int, a []byte, out []float32) {
	if n <= 0 {
		clear(out)
		return
	}
	np := n &^ (f32Step - 1)
	t := (n - np) &^ 3
	if np == n && len(out) > 0 && !hasAVX512 && hasAVX2 { // whole steps: the rows in one call
		_, _ = wRows[(len(out)-1)*wRow+2*n-1], a[2*n-1]
		dotF16RowsVecAVX2(n, &wRows[0], wRow, len(out), &a[0], &out[0])
		return
	}
	if t == 0 && (np == 0 || !hasAVX512) || len(out) < 4 {
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
		for j := 0; j < k; j += 4 {
			dotF16Vec4(np, wRows[(r+j)*wRow:], wRow, a, sums[j:j+4])
		}
		switch {
		case t == 0:
		case k == 8:
			dotF16Tail8(t, &wRows[r*wRow+2*np], wRow, &a[2*np], &sums)
		default:
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
