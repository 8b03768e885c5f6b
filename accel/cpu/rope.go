package cpu

import (
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/internal/libm"
)

// ropeStep rotates x [n, heads, size] by positions, as ggml_compute_forward_rope_f32, from a table of (cos,
// sin) per pair and token. The first rope step of a program with given positions and parameters fills the
// table, its workers taking whole tokens; the later ones with the same (every layer's q and k) read it
// (shareRoPETables): ggml builds the same table in each rope op.
type ropeStep struct {
	plain
	xID, posID, ffID, yID int // ffID < 0: no frequency factors
	x, y, ff              []float32
	pos                   []int32
	heads, size           int
	p                     accel.RoPEParams
	thetaScale            float32
	corr                  [2]float32
	table                 []float32 // Dims values (cos, sin of each pair) per token: filled by the owner
	owner                 *ropeStep // the step that fills table (s itself for the first)
}

// shareRoPETables makes the rope steps that rotate by the same positions with the same parameters and
// frequency factors share the first one's table.
func shareRoPETables(g *accel.Graph, steps []step) {
	type key struct {
		pos, ff int
		p       accel.RoPEParams
	}
	owners := map[key]*ropeStep{}
	for _, st := range steps {
		s, ok := st.(*ropeStep)
		if !ok {
			continue
		}
		k := key{s.posID, s.ffID, s.p}
		if o := owners[k]; o != nil {
			s.owner = o
			continue
		}
		owners[k] = s
		s.owner, s.table = s, make([]float32, g.Nodes[s.posID].Shape[0]*s.p.Dims)
	}
}

func newRoPE(g *accel.Graph, id int) *ropeStep {
	nd := &g.Nodes[id]
	s := &ropeStep{xID: nd.Args[0].ID(), posID: nd.Args[1].ID(), ffID: -1, yID: id,
		heads: nd.Shape[1], size: nd.Shape[2], p: nd.RoPE}
	if len(nd.Args) > 2 {
		s.ffID = nd.Args[2].ID()
	}
	s.thetaScale = powf(s.p.Base, -2/float32(s.p.Dims))
	s.corr = yarnCorrDims(s.p.Dims, s.p.OrigCtx, s.p.Base, s.p.BetaFast, s.p.BetaSlow)
	return s
}

func (s *ropeStep) workspace(shares int) int { return 0 }

func (s *ropeStep) bind(p *program, ws []byte) {
	s.x, s.y, s.pos = f32s(p.mem[s.xID]), f32s(p.mem[s.yID]), i32s(p.mem[s.posID])
	if s.ffID >= 0 {
		s.ff = f32s(p.mem[s.ffID])
	}
}

func (s *ropeStep) exec(p *pool) {
	n := len(s.y) / s.size // rows
	if s.owner == s {
		n = len(s.pos) // the owner's workers take whole tokens, each filling its tokens' tables
	}
	p.run(s, min(n, p.shares(len(s.y), elemGrain)))
}

func (s *ropeStep) run(w, nw int) {
	dims := s.p.Dims
	lo, hi := split(len(s.y)/s.size, w, nw)
	if s.owner == s {
		t0, t1 := split(len(s.pos), w, nw)
		for t := t0; t < t1; t++ {
			s.fillCache(s.table[t*dims:(t+1)*dims], s.pos[t])
		}
		lo, hi = t0*s.heads, t1*s.heads
	}
	table := s.owner.table
	for r := lo; r < hi; {
		t := r / s.heads // the rows of one token at a time
		end := min(hi, (t+1)*s.heads)
		cache := table[t*dims:][:dims]
		x, y := s.x[r*s.size:end*s.size], s.y[r*s.size:end*s.size]
		if !s.fast(x, y, cache, end-r, dims) {
			for i := 0; i < end-r; i++ {
				s.rotate(x[i*s.size:(i+1)*s.size], y[i*s.size:(i+1)*s.size], cache)
			}
		}
		for i := 0; dims < s.size && i < end-r; i++ {
			copy(y[i*s.size+dims:(i+1)*s.size], x[i*s.size+dims:(i+1)*s.size])
		}
		r = end
	}
}

// fast rotates rows rows with a vector kernel where the CPU and the mode have one, and reports whether it did.
func (s *ropeStep) fast(x, y, cache []float32, rows, dims int) bool {
	switch s.p.Mode {
	case accel.RoPENormal:
		return ropeNormalFast(x, y, cache, rows, s.size, dims)
	case accel.RoPENeoX:
		return ropeNeoXFast(x, y, cache, rows, s.size, dims)
	}
	return false
}

// rotate sets the first Dims elements of y to those of x rotated by the table cache.
func (s *ropeStep) rotate(x, y, cache []float32) {
	dims := s.p.Dims
	step, off := 1, dims/2 // NeoX: pair i is (i, i+dims/2)
	if s.p.Mode == accel.RoPENormal {
		step, off = 2, 1 // pair i is (2i, 2i+1)
	}
	for i := 0; i < dims; i += 2 {
		j := i / 2 * step
		c, sn := cache[i], cache[i+1]
		x0, x1 := x[j], x[j+off]
		// x0·cos - x1·sin and x0·sin + x1·cos, the first product fused as the compiler does
		y[j] = fma32(x0, c, -float32(x1*sn))
		y[j+off] = fma32(x0, sn, float32(x1*c))
	}
}

// fillCache is ggml_rope_cache_init: θ starts at the position and is multiplied by thetaScale for each pair,
// in float32, so the table matches ggml's rounding.
func (s *ropeStep) fillCache(cache []float32, pos int32) {
	theta := float32(pos)
	for i := 0; i < s.p.Dims; i += 2 {
		ff := float32(1)
		if s.ff != nil {
			ff = s.ff[i/2]
		}
		cache[i], cache[i+1] = ropeYarn(theta/ff, s.p, s.corr, i)
		theta *= s.thetaScale
	}
}

// ropeYarn is ggml's rope_yarn: the interpolated angle, blended with the extrapolated one by the YaRN ramp when
// ExtFactor ≠ 0, and the C library's cosf and sinf of it (libm) scaled by the attention factor (and YaRN's
// magnitude correction).
func ropeYarn(thetaExtrap float32, p accel.RoPEParams, corr [2]float32, i0 int) (cos, sin float32) {
	thetaInterp := p.FreqScale * thetaExtrap
	theta := thetaInterp
	mscale := p.AttnFactor
	if p.ExtFactor != 0 {
		mix := yarnRamp(corr[0], corr[1], i0) * p.ExtFactor
		theta = float32(thetaInterp*(1-mix)) + float32(thetaExtrap*mix)
		mscale *= 1 + float32(0.1*logf(1/p.FreqScale))
	}
	return libm.Cosf(theta) * mscale, libm.Sinf(theta) * mscale
}

// yarnRamp is ggml's rope_yarn_ramp.
func yarnRamp(low, high float32, i0 int) float32 {
	y := (float32(i0/2) - low) / max(0.001, high-low)
	return 1 - min(1, max(0, y))
}

// yarnCorrDims is ggml_rope_yarn_corr_dims: the first and last pair dimensions the YaRN ramp blends over.
func yarnCorrDims(dims, origCtx int, base, betaFast, betaSlow float32) [2]float32 {
	corrDim := func(nRot float32) float32 {
		return float32(float32(dims)*logf(float32(origCtx)/float32(float32(nRot*2)*math.Pi))) / float32(2*logf(base))
	}
	start := float32(math.Floor(float64(corrDim(betaFast))))
	end := float32(math.Ceil(float64(corrDim(betaSlow))))
	return [2]float32{max(0, start), min(float32(dims-1), end)}
}

func logf(x float32) float32    { return float32(math.Log(float64(x))) }
func powf(x, y float32) float32 { return float32(math.Pow(float64(x), float64(y))) }
