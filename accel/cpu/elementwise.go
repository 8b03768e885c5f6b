package cpu

import (
	"math"

	"github.com/forma-llm/forma/accel"
)

// elemGrain is the least number of elements worth handing to one worker: below it, waking a worker costs more
// than the work.
const elemGrain = 1 << 14

// split returns share w of n units divided into nw contiguous parts that differ by at most one unit.
func split(n, w, nw int) (lo, hi int) {
	return n * w / nw, n * (w + 1) / nw
}

// plain is embedded by steps that need neither run-time checks nor workspace.
type plain struct{}

func (plain) check() error        { return nil }
func (plain) workspace(_ int) int { return 0 }

// vectorTail reports whether element i of rows of length cols is one of a row's last cols mod 16, which ggml's
// vector loops (16 floats per AVX-512 vector) leave to scalar code.
func vectorTail(i, cols int) bool { return i%cols >= cols-cols%f32Lanes }

// unaryStep computes Scale, SiLU, GELU and SoftCap element by element.
type unaryStep struct {
	plain
	op       accel.Op
	xID, yID int
	x, y     []float32
	f        float32
	gelu     *[1 << 16]uint16
	cols     int // row length: SiLU's last cols mod 16 elements of a row take the scalar path
}

func (s *unaryStep) bind(p *program, _ []byte) { s.x, s.y = f32s(p.mem[s.xID]), f32s(p.mem[s.yID]) }
func (s *unaryStep) exec(p *pool)              { p.run(s, p.shares(len(s.y), elemGrain)) }

func (s *unaryStep) run(w, nw int) {
	lo, hi := split(len(s.y), w, nw)
	x, y := s.x[lo:hi], s.y[lo:hi:hi]
	switch s.op {
	case accel.OpScale:
		for i, v := range x {
			y[i] = v * s.f
		}
	case accel.OpSiLU: // ggml_vec_silu_f32
		for a := lo; a < hi; {
			b, vec := segment(a, hi, s.cols)
			if vec {
				siluVec(s.x[a:b], s.y[a:b])
			} else {
				for i, v := range s.x[a:b] {
					s.y[a+i] = siluTail(v)
				}
			}
			a = b
		}
	case accel.OpGELU:
		for i, v := range x {
			y[i] = geluF16(s.gelu, v)
		}
	case accel.OpSigmoid: // ggml_vec_sigmoid_f32
		for i, v := range x {
			y[i] = 1 / float32(1+expf(-v))
		}
	case accel.OpSoftCap:
		// llama.cpp: ggml_scale(x, 1/c), ggml_tanh, ggml_scale(·, c).
		inv := 1 / s.f
		for i, v := range x {
			y[i] = float32(math.Tanh(float64(float32(v*inv)))) * s.f
		}
	}
}

// binaryStep computes Add and Mul, the second operand repeating over the first (a bias or norm weight).
type binaryStep struct {
	plain
	op            accel.Op
	aID, bID, yID int
	a, b, y       []float32
}

func (s *binaryStep) bind(p *program, _ []byte) {
	s.a, s.b, s.y = f32s(p.mem[s.aID]), f32s(p.mem[s.bID]), f32s(p.mem[s.yID])
}
func (s *binaryStep) exec(p *pool) { p.run(s, p.shares(len(s.y), elemGrain)) }

func (s *binaryStep) run(w, nw int) {
	lo, hi := split(len(s.y), w, nw)
	nb := len(s.b)
	for i := lo; i < hi; {
		j := i % nb
		n := min(hi-i, nb-j) // a run that does not wrap around b
		a, b, y := s.a[i:i+n], s.b[j:j+n], s.y[i:i+n]
		k := binaryFast(s.op == accel.OpAdd, a, b, y)
		a, b, y = a[k:], b[k:], y[k:]
		if s.op == accel.OpAdd {
			for k := range y {
				y[k] = a[k] + b[k]
			}
		} else {
			for k := range y {
				y[k] = a[k] * b[k]
			}
		}
		i += n
	}
}

// gluStep computes SwiGLU, GeGLU and SwiGLUOAI: act(gate) ⊙ up.
type gluStep struct {
	plain
	op            accel.Op
	gID, uID, yID int
	g, u, y       []float32
	gelu          *[1 << 16]uint16
	cols          int     // row length, as unaryStep
	alpha, limit  float32 // SwiGLUOAI
}

func (s *gluStep) bind(p *program, _ []byte) {
	s.g, s.u, s.y = f32s(p.mem[s.gID]), f32s(p.mem[s.uID]), f32s(p.mem[s.yID])
}
func (s *gluStep) exec(p *pool) { p.run(s, p.shares(len(s.y), elemGrain)) }

func (s *gluStep) run(w, nw int) {
	lo, hi := split(len(s.y), w, nw)
	g, u, y := s.g[lo:hi], s.u[lo:hi], s.y[lo:hi:hi]
	if s.op == accel.OpSwiGLUOAI { // ggml_compute_forward_swiglu_oai_f32
		for i, v := range g {
			x := min(v, s.limit)
			z := min(max(u[i], -s.limit), s.limit)
			glu := x / float32(1+expf(float32(s.alpha*-x)))
			y[i] = glu * float32(z+1)
		}
		return
	}
	if s.op == accel.OpSwiGLU {
		for a := lo; a < hi; { // ggml_vec_swiglu_f32
			b, vec := segment(a, hi, s.cols)
			if vec {
				swiGLUVec(s.g[a:b], s.u[a:b], s.y[a:b])
			} else {
				for i, v := range s.g[a:b] {
					s.y[a+i] = siluTail(v) * s.u[a+i]
				}
			}
			a = b
		}
		return
	}
	for i, v := range g { // ggml_vec_geglu_f32 with GGML_GELU_FP16
		switch {
		case v <= -geluSaturate:
			y[i] = 0
		case v >= geluSaturate:
			y[i] = v * u[i]
		default:
			y[i] = geluF16(s.gelu, v) * u[i]
		}
	}
}
