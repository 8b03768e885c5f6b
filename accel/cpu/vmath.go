package cpu

// Vector forms of the exponential-based element functions. Each has a portable loop over the scalar
// function (math.go) and, where the CPU has AVX-512, an assembly kernel (vmath_amd64.s) that computes
// ggml_v_expf in 16 lanes with the same operations (scalef included), so every element is bit-identical
// to the scalar one.

// vexpVec sets y[i] = vexpf(x[i] − m). x and y may be the same slice.
func vexpVec(x, y []float32, m float32) {
	y = y[:len(x)]
	for i := vexpFast(x, y, m); i < len(x); i++ {
		y[i] = vexpf(x[i] - m)
	}
}

// siluVec sets y[i] = silu(x[i]).
func siluVec(x, y []float32) {
	y = y[:len(x)]
	for i := vsiluFast(x, y, nil); i < len(x); i++ {
		y[i] = silu(x[i])
	}
}

// swiGLUVec sets y[i] = silu(g[i])·u[i] (ggml_vec_swiglu_f32's vector part).
func swiGLUVec(g, u, y []float32) {
	y, u = y[:len(g)], u[:len(g)]
	for i := vsiluFast(g, y, u); i < len(g); i++ {
		y[i] = silu(g[i]) * u[i]
	}
}

// roundF16Vec rounds every element of x to the nearest F16 value (ties to even), as f16Round.
func roundF16Vec(x []float32) {
	for i := roundF16Fast(x); i < len(x); i++ {
		x[i] = f16Round(x[i])
	}
}

// segment returns the end of the first part of the element range [lo, hi) of rows of length cols that lies
// on one side of where ggml's vector loops end, and whether that part is in a row's vector part (its first
// cols − cols mod 16 elements) rather than in its scalar tail.
func segment(lo, hi, cols int) (end int, vec bool) {
	row := lo / cols * cols
	if vecEnd := row + cols - cols%f32Lanes; lo < vecEnd {
		return min(hi, vecEnd), true
	}
	return min(hi, row+cols), false
}
