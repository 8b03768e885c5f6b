package accel

import "slices"

// The ops of a mixture-of-experts layer, in the order llama.cpp's build_moe_ffn applies them: a router (a
// MatMul, optional bias, Softmax or Sigmoid), TopK of the (biased) probabilities, Pick of the chosen experts'
// weights (then optionally Softmax, DivSum and Scale), MatMulID through the chosen experts' matrices (AddID
// for their biases), the gated activation, MatMulID down, and WeightedSum of the experts' outputs. Concat
// joins the parts of multi-head latent attention's queries and keys.

// Sigmoid returns 1 / (1 + exp(-x)).
func (b *Builder) Sigmoid(x Tensor) Tensor { return b.unary(OpSigmoid, x, 0) }

// TopK returns, for each row of x (F32 [n, m]), the indices of its k largest values, largest first: I32 [n, k].
// Equal values come in the order of llama.cpp's ggml_argsort_top_k (a descending std::sort of the indices),
// so ties choose the same experts in the same order.
func (b *Builder) TopK(x Tensor, k int) Tensor {
	t, n, ok := b.op(OpTopK, x)
	if !ok {
		return t
	}
	xs := b.shapeOf(x)
	if len(xs) != 2 || b.typeOf(x) != F32 || k <= 0 || k > xs[1] {
		return b.fail(t, "top %d of %v %s: want F32 [n, m] with 0 < k ≤ m", k, xs, b.typeOf(x))
	}
	n.Type, n.Shape, n.I = I32, []int{xs[0], k}, []int{k}
	return t
}

// Pick returns y[i][j] = x[i][ids[i][j]] for x F32 [n, m] and ids I32 [n, k]: each row's values at its own
// indices (the chosen experts' probabilities).
func (b *Builder) Pick(x, ids Tensor) Tensor {
	t, n, ok := b.op(OpPick, x, ids)
	if !ok {
		return t
	}
	xs, is := b.shapeOf(x), b.shapeOf(ids)
	if len(xs) != 2 || len(is) != 2 || xs[0] != is[0] || b.typeOf(x) != F32 || b.typeOf(ids) != I32 {
		return b.fail(t, "values %v %s and indices %v %s: want F32 [n, m] and I32 [n, k]", xs, b.typeOf(x), is, b.typeOf(ids))
	}
	n.Shape = slices.Clone(is)
	return t
}

// DivSum divides every row of x (F32) by the row's sum, or by least when the sum is smaller: llama.cpp's
// normalisation of the chosen experts' weights (ggml_sum_rows in float64, ggml_clamp, ggml_div).
func (b *Builder) DivSum(x Tensor, least float32) Tensor {
	t := b.unary(OpDivSum, x, least)
	if least <= 0 && b.node(t).Shape != nil {
		return b.fail(t, "the least divisor %g must be positive", least)
	}
	return t
}

// MatMulID multiplies by the matrices of chosen experts. w holds one [out, in] matrix per expert ([experts,
// out, in], any weight type); ids (I32 [n, k]) names, for each of n rows, k experts. x is F32 [n, in] (every
// chosen expert of row i multiplies x[i]) or [n, k, in] (expert j of row i multiplies x[i][j]). The result is
// F32 [n, k, out]: y[i][j] = w[ids[i][j]] · x[i] (or x[i][j]). Backends read only the chosen experts' matrices
// and, for a batch, multiply each expert's rows together, but every element is the reference build's single
// dot product for its row (ggml_mul_mat_id), whatever else the batch holds.
//
// With an invalid ids, x is [n, experts, in] and slot j of every row uses matrix j: a matrix per head, as
// llama.cpp's ggml_mul_mat with a 3-D weight (multi-head latent attention's absorbed projections); the
// products then take the order MatMul takes for n rows.
func (b *Builder) MatMulID(w, x, ids Tensor) Tensor {
	args := []Tensor{w, x}
	if ids.Valid() {
		args = append(args, ids)
	}
	t, n, ok := b.op(OpMatMulID, args...)
	if !ok {
		return t
	}
	ws, xs := b.shapeOf(w), b.shapeOf(x)
	if len(ws) != 3 || b.typeOf(x) != F32 || (len(xs) != 2 && len(xs) != 3) || xs[len(xs)-1] != ws[2] {
		return b.fail(t, "experts %v %s times input %v %s: want [experts, out, in] · F32 [n, in] or [n, k, in]",
			ws, b.typeOf(w), xs, b.typeOf(x))
	}
	if ws[2]%b.typeOf(w).BlockElems() != 0 {
		return b.fail(t, "expert row of %d is not a whole number of %s blocks", ws[2], b.typeOf(w))
	}
	k := ws[0]
	if ids.Valid() {
		is := b.shapeOf(ids)
		if b.typeOf(ids) != I32 || len(is) != 2 || is[0] != xs[0] || (len(xs) == 3 && xs[1] != is[1]) {
			return b.fail(t, "expert ids %v %s for input %v: want I32 [n, k]", is, b.typeOf(ids), xs)
		}
		k = is[1]
	} else if len(xs) != 3 || xs[1] != ws[0] {
		return b.fail(t, "input %v without ids: want [n, %d, %d], a row per expert", xs, ws[0], ws[2])
	}
	n.Shape = []int{xs[0], k, ws[1]}
	return t
}

// AddID adds to x (F32 [n, k, d]) the bias rows (F32 [experts, d]) of each row's chosen experts ids (I32 [n, k]):
// y[i][j] = x[i][j] + bias[ids[i][j]] (ggml_add_id).
func (b *Builder) AddID(x, bias, ids Tensor) Tensor {
	t, n, ok := b.op(OpAddID, x, bias, ids)
	if !ok {
		return t
	}
	xs, bs, is := b.shapeOf(x), b.shapeOf(bias), b.shapeOf(ids)
	if b.typeOf(x) != F32 || b.typeOf(bias) != F32 || b.typeOf(ids) != I32 || len(xs) != 3 || len(bs) != 2 ||
		len(is) != 2 || bs[1] != xs[2] || !slices.Equal(is, xs[:2]) {
		return b.fail(t, "x %v, bias %v %s, ids %v: want F32 [n, k, d], F32 [experts, d], I32 [n, k]", xs, bs, b.typeOf(bias), is)
	}
	n.Shape = slices.Clone(xs)
	return t
}

// SwiGLUOAI is gpt-oss's gated activation (ggml_swiglu_oai): with g = min(gate, limit) and u = clamp(up,
// -limit, limit), g·σ(alpha·g)·(u + 1).
func (b *Builder) SwiGLUOAI(gate, up Tensor, alpha, limit float32) Tensor {
	t := b.glu(OpSwiGLUOAI, gate, up)
	if n := b.node(t); n.Shape != nil {
		if alpha <= 0 || limit <= 0 {
			return b.fail(t, "alpha %g and limit %g must be positive", alpha, limit)
		}
		n.F, n.F2 = alpha, limit
	}
	return t
}

// WeightedSum returns y[i] = Σ_j w[i][j]·x[i][j] for x F32 [n, k, d] and w F32 [n, k]: the experts' outputs
// mixed by their weights. Each product is rounded, then the products are added in order j = 0, 1, … as
// llama.cpp's ggml_mul and chain of ggml_add do.
func (b *Builder) WeightedSum(x, w Tensor) Tensor {
	t, n, ok := b.op(OpWeightedSum, x, w)
	if !ok {
		return t
	}
	xs, ws := b.shapeOf(x), b.shapeOf(w)
	if b.typeOf(x) != F32 || b.typeOf(w) != F32 || len(xs) != 3 || !slices.Equal(ws, xs[:2]) {
		return b.fail(t, "x %v and weights %v: want F32 [n, k, d] and F32 [n, k]", xs, ws)
	}
	n.Shape = []int{xs[0], xs[2]}
	return t
}

// Concat returns x and y (F32, the same shape but for the last dimension) joined along their last dimension.
func (b *Builder) Concat(x, y Tensor) Tensor {
	t, n, ok := b.op(OpConcat, x, y)
	if !ok {
		return t
	}
	xs, ys := b.shapeOf(x), b.shapeOf(y)
	if b.typeOf(x) != F32 || b.typeOf(y) != F32 || len(xs) != len(ys) || !slices.Equal(xs[:len(xs)-1], ys[:len(ys)-1]) {
		return b.fail(t, "concat of %v %s and %v %s: want F32 of one shape but the last dimension", xs, b.typeOf(x), ys, b.typeOf(y))
	}
	n.Shape = append(slices.Clone(xs[:len(xs)-1]), xs[len(xs)-1]+ys[len(ys)-1])
	return t
}
