package quant

// Float dot products in the arithmetic of llama.cpp's x86-64 AVX-512 CPU build (the reference data's):
//
// VecDotF32 / DotF32F32 and DotF16F16 are ggml_vec_dot_f32 / ggml_vec_dot_f16 with 16-float vectors: four
// accumulators of 16 lanes take steps of 64 elements with fused multiply-adds (element i goes to accumulator
// (i mod 64)/16, lane i mod 16), the accumulators are folded (0+2, 1+3, then 0+1) and the 16 lanes reduced as
// _mm512_reduce_add_ps does (halves, then quarters, then pairs). The elements after the last full step are
// added one at a time: for F16 in float64; for F32 in float32 as the reference build's compiler vectorized that
// loop (see tailF32).
//
// TiledDotF32 / DotF32F32Tiled and DotF16F16Tiled are llamafile's tinyBLAS (used for batches of two or more
// rows when the row length is a multiple of 16 and the weight's row count a multiple of 4): one 16-lane
// accumulator, element i fused into lane i mod 16, reduced as above.

// AVX-512 vectors hold 16 float32 lanes; ggml's dot products step by four of them.
const (
	f32Lanes = 16
	f32Step  = 4 * f32Lanes
)

// Reduce16 adds 16 lanes as _mm512_reduce_add_ps.
func Reduce16(l *[f32Lanes]float32) float32 {
	var t [8]float32
	for i := range t {
		t[i] = l[i] + l[i+8]
	}
	u0, u1, u2, u3 := t[0]+t[4], t[1]+t[5], t[2]+t[6], t[3]+t[7]
	return (u0 + u2) + (u1 + u3)
}

// vecDotAcc is the state of ggml_vec_dot_f32/f16's vector part.
type vecDotAcc [4][f32Lanes]float32

// fold folds the four accumulators as GGML_F32x16_REDUCE and reduces the lanes.
func (a *vecDotAcc) fold() float32 {
	for e := range a[0] {
		a[0][e] += a[2][e]
		a[1][e] += a[3][e]
	}
	for e := range a[0] {
		a[0][e] += a[1][e]
	}
	return Reduce16(&a[0])
}

// VecDotF32 is ggml_vec_dot_f32 of x and y (equal lengths).
func VecDotF32(x, y []float32) float32 {
	y = y[:len(x)]
	np := len(x) &^ (f32Step - 1)
	var acc vecDotAcc
	for i := 0; i < np; i += f32Step {
		for j := range acc {
			for e := range acc[j] {
				k := i + j*f32Lanes + e
				acc[j][e] = fma32(x[k], y[k], acc[j][e])
			}
		}
	}
	x, y = x[np:], y[np:]
	return tailF32(acc.fold(), len(x), func(i int) (float32, float32) { return x[i], y[i] })
}

// tailF32 adds the products of the n pairs at(0)…at(n-1) to sum in order, as the reference build's
// ggml_vec_dot_f32 adds the elements after its last 64-element step: GCC vectorized that loop (sumf +=
// x[i]*y[i]) into blocks of 16, then one of 8, whose products are rounded before the in-order additions, and
// used fused multiply-adds for the last n mod 8.
func tailF32(sum float32, n int, at func(i int) (float32, float32)) float32 {
	for i := 0; i < n; i++ {
		x, y := at(i)
		if i < n&^7 {
			sum += float32(x * y)
		} else {
			sum = fma32(x, y, sum)
		}
	}
	return sum
}

// TiledDotF32 is the per-element arithmetic of tinyBLAS<16> on x and y (len(x) a multiple of 16).
func TiledDotF32(x, y []float32) float32 {
	y = y[:len(x)]
	var l [f32Lanes]float32
	for i := range x {
		l[i%f32Lanes] = fma32(x[i], y[i], l[i%f32Lanes])
	}
	return Reduce16(&l)
}

// DotF32F32 is ggml_vec_dot_f32 on F32 rows.
func DotF32F32(n int, w, a []byte) float32 {
	np := n &^ (f32Step - 1)
	var acc vecDotAcc
	for i := 0; i < np; i += f32Step {
		for j := range acc {
			for e := range acc[j] {
				k := 4 * (i + j*f32Lanes + e)
				acc[j][e] = fma32(f32at(w, k), f32at(a, k), acc[j][e])
			}
		}
	}
	return tailF32(acc.fold(), n-np, func(i int) (float32, float32) {
		return f32at(w, 4*(np+i)), f32at(a, 4*(np+i))
	})
}

// DotF32F32Tiled is tinyBLAS<16> on F32 rows (n a multiple of 16).
func DotF32F32Tiled(n int, w, a []byte) float32 {
	var l [f32Lanes]float32
	for i := 0; i < n; i++ {
		l[i%f32Lanes] = fma32(f32at(w, 4*i), f32at(a, 4*i), l[i%f32Lanes])
	}
	return Reduce16(&l)
}

// DotF16F16 is ggml_vec_dot_f16 on F16 rows.
func DotF16F16(n int, w, a []byte) float32 {
	np := n &^ (f32Step - 1)
	var acc vecDotAcc
	for i := 0; i < np; i += f32Step {
		for j := range acc {
			for e := range acc[j] {
				k := 2 * (i + j*f32Lanes + e)
				acc[j][e] = fma32(f16at(w, k), f16at(a, k), acc[j][e])
			}
		}
	}
	sum := float64(acc.fold())
	for i := np; i < n; i++ {
		sum += float64(f16at(w, 2*i) * f16at(a, 2*i)) // exact product of two halves
	}
	return float32(sum)
}

// DotF16F16Tiled is tinyBLAS<16> on F16 rows (n a multiple of 16).
func DotF16F16Tiled(n int, w, a []byte) float32 {
	var l [f32Lanes]float32
	for i := 0; i < n; i++ {
		l[i%f32Lanes] = fma32(f16at(w, 2*i), f16at(a, 2*i), l[i%f32Lanes])
	}
	return Reduce16(&l)
}
