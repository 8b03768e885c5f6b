package cpu

// Vector forms of the exponential-based element functions. Each has a portable loop over the scalar
// function (math.go) and, where the CPU has AVX-512, an assembly kernel (vmath_amd64.s) that computes
// ggml_v_expf in 16 lanes with the same operations, so every element is bit-identical to the scalar one;
// only expSum's float64 total is added in a different order.

// expSum sets y[i] = vexpf(x[i] − m) and returns Σ y[i] in float64. x and y may be the same slice.
func expSum(x, y []float32, m float32) float64 {
	y = y[:len(x)]
	done, sum := vexpSumFast(x, y, m)
	for i := done; i < len(x); i++ {
		e := vexpf(x[i] - m)
		y[i] = e
		sum += float64(e)
	}
	return sum
}

// siluVec sets y[i] = silu(x[i]).
func siluVec(x, y []float32) {
	y = y[:len(x)]
	for i := vsiluFast(x, y, nil); i < len(x); i++ {
		y[i] = silu(x[i])
	}
}

// swiGLUVec sets y[i] = silu(g[i])·u[i] (ggml_vec_swiglu_f32).
func swiGLUVec(g, u, y []float32) {
	y, u = y[:len(g)], u[:len(g)]
	for i := vsiluFast(g, y, u); i < len(g); i++ {
		y[i] = silu(g[i]) * u[i]
	}
}

// scaleVec multiplies y by f.
func scaleVec(y []float32, f float32) {
	for i := range y {
		y[i] *= f
	}
}

// scaleMaxVec multiplies x by f and returns the largest result (−Inf for none; NaNs may be skipped).
func scaleMaxVec(x []float32, f float32) float32 {
	done, m := scaleMaxFast(x, f)
	for i := done; i < len(x); i++ {
		v := x[i] * f
		x[i] = v
		m = max(m, v)
	}
	return m
}

// roundF16Vec rounds every element of x to the nearest F16 value (ties to even), as f16Round.
func roundF16Vec(x []float32) {
	for i := roundF16Fast(x); i < len(x); i++ {
		x[i] = f16Round(x[i])
	}
}
