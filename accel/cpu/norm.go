package cpu

import (
	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// rowStep computes RMSNorm, LayerNorm and Softmax, one row (the last dimension) at a time.
type rowStep struct {
	plain
	op       accel.Op
	xID, yID int
	x, y     []float32
	cols     int
	eps      float32
}

func (s *rowStep) bind(p *program, _ []byte) { s.x, s.y = f32s(p.mem[s.xID]), f32s(p.mem[s.yID]) }

func (s *rowStep) exec(p *pool) {
	rows := len(s.y) / s.cols
	p.run(s, min(rows, p.shares(len(s.y), elemGrain)))
}

func (s *rowStep) run(w, nw int) {
	lo, hi := split(len(s.y)/s.cols, w, nw)
	if s.op == accel.OpRMSNorm {
		for ; lo+4 <= hi; lo += 4 {
			rmsNorm4(s.x[lo*s.cols:(lo+4)*s.cols], s.y[lo*s.cols:(lo+4)*s.cols], s.cols, s.eps)
		}
	}
	for r := lo; r < hi; r++ {
		x, y := s.x[r*s.cols:(r+1)*s.cols], s.y[r*s.cols:(r+1)*s.cols]
		switch s.op {
		case accel.OpRMSNorm:
			rmsNorm(x, y, s.eps)
		case accel.OpLayerNorm:
			layerNorm(x, y, s.eps)
		case accel.OpSoftmax:
			softmax(x, y)
		}
	}
}

// rmsNorm is ggml_compute_forward_rms_norm_f32: squares summed in float64, the mean rounded to float32,
// y = x · 1/sqrtf(mean + eps).
func rmsNorm(x, y []float32, eps float32) {
	var sum float64
	for _, v := range x {
		sum += float64(float32(v * v))
	}
	mean := float32(sum / float64(len(x)))
	scale := 1 / sqrtf(mean+eps)
	for i := scaleFast(x, y, scale); i < len(x); i++ {
		y[i] = x[i] * scale
	}
}

// rmsNorm4 is rmsNorm of the four rows of cols elements in x (into y). The four float64 sums advance
// together, each in its row's order: with AVX2 eight elements of the four rows are squared at once and
// transposed into the lanes of one vector of sums (norm_amd64.s), where one row's sum waits on the latency of
// each addition and the conversions (a prefill's norms, and qwen3's per-head ones, are many rows).
func rmsNorm4(x, y []float32, cols int, eps float32) {
	var sums [4]float64
	done := sumSquares4Fast(x, cols, &sums)
	for r := range sums {
		for _, v := range x[r*cols+done : (r+1)*cols] {
			sums[r] += float64(float32(v * v))
		}
	}
	for r, sum := range sums {
		mean := float32(sum / float64(cols))
		scale := 1 / sqrtf(mean+eps)
		xr, yr := x[r*cols:(r+1)*cols], y[r*cols:(r+1)*cols]
		for i := scaleFast(xr, yr, scale); i < cols; i++ {
			yr[i] = xr[i] * scale
		}
	}
}

// layerNorm is ggml_compute_forward_norm_f32: the mean from a float64 sum rounded to float32, the centred
// squares summed in float64, y = (x - mean) · 1/sqrtf(variance + eps).
func layerNorm(x, y []float32, eps float32) {
	var sum float64
	for _, v := range x {
		sum += float64(v)
	}
	mean := float32(sum) / float32(len(x))
	var sum2 float64
	for i, v := range x {
		d := v - mean
		y[i] = d
		sum2 += float64(float32(d * d))
	}
	variance := float32(sum2 / float64(len(x)))
	scale := 1 / sqrtf(variance+eps)
	for i := range y {
		y[i] *= scale
	}
}

// softmax is ggml_compute_forward_soft_max_f32 without scale or mask: the maximum, then
// ggml_vec_soft_max_f32 — exp(x - max) by ggml_v_expf for each whole vector of 16, whose lanes are added in
// float32 (_mm512_reduce_add_ps) and the vector sums in float64, the C library's expf for the elements after
// the last whole vector, each added in float64 — then every value times the float32 reciprocal of the sum.
func softmax(x, y []float32) {
	m := x[0]
	for _, v := range x[1:] {
		m = max(m, v)
	}
	vec := len(x) &^ (f32Lanes - 1)
	vexpVec(x[:vec], y[:vec], m)
	var sum float64
	for i := 0; i < vec; i += f32Lanes {
		sum += float64(quant.Reduce16((*[f32Lanes]float32)(y[i:])))
	}
	for i := vec; i < len(x); i++ {
		e := expf(x[i] - m)
		y[i] = e
		sum += float64(e)
	}
	inv := float32(1 / sum)
	for i := range y[:len(x)] {
		y[i] *= inv
	}
}
