package accel

import (
	"math"
	"slices"
)

// TempScale multiplies each row x[i] (F32 [n, …]) by the attention temperature of position pos[i] (I32 [n]):
//
//	1 + scale·ln(⌊pos/floor⌋ + 1)
//
// llama.cpp's attention temperature tuning of q (llm_graph_input_attn_temp with offset 0: mistral3): 1 within
// the first floor − 1 positions, then growing by steps of floor positions. The factor is TempFactor's.
func (b *Builder) TempScale(x, pos Tensor, scale float32, floor int) Tensor {
	t, n, ok := b.op(OpTempScale, x, pos)
	if !ok {
		return t
	}
	xs, ps := b.shapeOf(x), b.shapeOf(pos)
	if len(xs) == 0 || len(ps) != 1 || ps[0] != xs[0] || b.typeOf(x) != F32 || b.typeOf(pos) != I32 {
		return b.fail(t, "values %v %s and positions %v %s: want F32 [n, …] and I32 [n]", xs, b.typeOf(x), ps,
			b.typeOf(pos))
	}
	if floor <= 0 || scale == 0 || math.IsNaN(float64(scale)) {
		return b.fail(t, "temperature scale %g and floor %d: want a nonzero scale and a positive floor", scale, floor)
	}
	n.Shape, n.F, n.I = slices.Clone(xs), scale, []int{floor}
	return t
}

// TempFactor is TempScale's factor at position pos, computed as llama.cpp does: the position and its quotient
// in float32, the logarithm, product and sum in float64, rounded to float32.
func TempFactor(pos int32, scale float32, floor int) float32 {
	k := math.Floor(float64(float32(pos) / float32(floor)))
	return float32(math.Log(k+1)*float64(scale) + 1)
}
