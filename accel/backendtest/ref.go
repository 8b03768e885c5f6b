package backendtest

import (
	"encoding/binary"
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// The float64 references. Shapes follow accel: row-major, last dimension contiguous.

// quantData returns rows×cols weights of type typ: quant.Quantize of N(0, 1) values where quant can quantize typ,
// else random blocks whose values are finite and moderate.
func (e *env) quantData(typ accel.DType, rows, cols int) []byte {
	e.t.Helper()
	rb, err := typ.RowBytes(cols)
	if err != nil {
		e.t.Fatal(err)
	}
	data := make([]byte, rows*rb)
	if quant.CanQuantize(typ) {
		for r := 0; r < rows; r++ {
			if err := quant.Quantize(typ, e.normal(cols, 1), data[r*rb:(r+1)*rb]); err != nil {
				e.t.Fatal(err)
			}
		}
		return data
	}
	be, bb := typ.BlockElems(), typ.BlockBytes()
	vals := make([]float32, be)
	for off := 0; off < len(data); off += bb {
		blk := data[off : off+bb]
		for try := 0; ; try++ {
			for i := range blk {
				blk[i] = byte(e.rng.Uint32())
			}
			if quant.Dequantize(typ, blk, vals) == nil && moderate(vals) {
				break
			}
			if try == 1000 {
				e.t.Fatalf("cannot make a valid random %s block", typ)
			}
		}
	}
	return data
}

func moderate(v []float32) bool {
	for _, x := range v {
		if !(math.Abs(float64(x)) < 1e4) {
			return false
		}
	}
	return true
}

// dequant returns the float32 values of data of type typ.
func (e *env) dequant(typ accel.DType, data []byte, n int) []float32 {
	e.t.Helper()
	v := make([]float32, n)
	if err := quant.Dequantize(typ, data, v); err != nil {
		e.t.Fatal(err)
	}
	return v
}

// refMatMul returns x·Wᵀ (x [n, in], W [out, in] of type typ) as llama.cpp's CPU computes it, in float64:
// activations converted to the weight's activation type, then Σ dequant(W)·dequant(A). It also returns
// Σ|W||A| per result, the scale of the float32 accumulation error.
func (e *env) refMatMul(typ accel.DType, w []byte, out, in int, x []float32) (want, scale []float64) {
	e.t.Helper()
	wv := e.dequant(typ, w, out*in)
	act := quant.ActivationType(typ)
	arb, _ := act.RowBytes(in)
	wrb, _ := typ.RowBytes(in)
	qa := make([]byte, arb)
	n := len(x) / in
	want, scale = make([]float64, n*out), make([]float64, n*out)
	for i := 0; i < n; i++ {
		if err := quant.QuantizeActivation(act, x[i*in:(i+1)*in], qa); err != nil {
			e.t.Fatal(err)
		}
		a := e.dequant(act, qa, in)
		for o := 0; o < out; o++ {
			var s, sa float64
			for k := 0; k < in; k++ {
				s += float64(wv[o*in+k]) * float64(a[k])
				sa += math.Abs(float64(wv[o*in+k]) * float64(a[k]))
			}
			if act == quant.Q8_1 {
				s += q81Correction(w[o*wrb:(o+1)*wrb], wrb/(in/quant.QK), qa, a)
			}
			want[i*out+o], scale[i*out+o] = s, sa
		}
	}
	return want, scale
}

// q81Correction is what ggml's Q4_1/Q5_1 × Q8_1 dot product adds to Σ dequant(W)·dequant(A): the minimum term of
// each block is m·s with s the Q8_1 block's stored sum (d·Σq rounded to F16) instead of m·Σa.
func q81Correction(w []byte, wBlock int, qa []byte, a []float32) float64 {
	var c float64
	for b := 0; b < len(a)/quant.QK; b++ {
		m := float64(quant.F16ToF32(binary.LittleEndian.Uint16(w[b*wBlock+2:])))
		s := float64(quant.F16ToF32(binary.LittleEndian.Uint16(qa[b*36+2:])))
		var sum float64
		for _, v := range a[b*quant.QK : (b+1)*quant.QK] {
			sum += float64(v)
		}
		c += m * (s - sum)
	}
	return c
}

func refRMSNorm(x []float32, cols int, eps float32) []float64 {
	y := make([]float64, len(x))
	for r := 0; r < len(x)/cols; r++ {
		var ss float64
		for _, v := range x[r*cols : (r+1)*cols] {
			ss += float64(v) * float64(v)
		}
		scale := 1 / math.Sqrt(ss/float64(cols)+float64(eps))
		for c := 0; c < cols; c++ {
			y[r*cols+c] = float64(x[r*cols+c]) * scale
		}
	}
	return y
}

func refLayerNorm(x []float32, cols int, eps float32) []float64 {
	y := make([]float64, len(x))
	for r := 0; r < len(x)/cols; r++ {
		row := x[r*cols : (r+1)*cols]
		var mean, v float64
		for _, x := range row {
			mean += float64(x)
		}
		mean /= float64(cols)
		for _, x := range row {
			v += (float64(x) - mean) * (float64(x) - mean)
		}
		scale := 1 / math.Sqrt(v/float64(cols)+float64(eps))
		for c, x := range row {
			y[r*cols+c] = (float64(x) - mean) * scale
		}
	}
	return y
}

func refSoftmax(x []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	y := make([]float64, len(x))
	var sum float64
	for i, v := range x {
		y[i] = math.Exp(v - m)
		sum += y[i]
	}
	for i := range y {
		y[i] /= sum
	}
	return y
}

func refSiLU(x float64) float64 { return x / (1 + math.Exp(-x)) }

func refGELU(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*x*(1+0.044715*x*x)))
}

// ropeRef describes RoPE in float64, as ggml's rope_yarn.
type ropeRef struct {
	p    accel.RoPEParams
	ff   []float32
	corr [2]float64
}

func newRoPERef(p accel.RoPEParams, ff []float32) *ropeRef {
	if p.AttnFactor == 0 {
		p.AttnFactor = 1
	}
	r := &ropeRef{p: p, ff: ff}
	dim := func(beta float32) float64 {
		return float64(p.Dims) * math.Log(float64(p.OrigCtx)/(float64(beta)*2*math.Pi)) / (2 * math.Log(float64(p.Base)))
	}
	r.corr = [2]float64{math.Max(0, math.Floor(dim(p.BetaFast))), math.Min(float64(p.Dims-1), math.Ceil(dim(p.BetaSlow)))}
	return r
}

// angle returns θ and the cos/sin magnitude of pair i at position pos.
func (r *ropeRef) angle(pos, i int) (theta, mscale float64) {
	extrap := float64(pos) * math.Pow(float64(r.p.Base), -2*float64(i)/float64(r.p.Dims))
	if r.ff != nil {
		extrap /= float64(r.ff[i])
	}
	theta = float64(r.p.FreqScale) * extrap
	mscale = float64(r.p.AttnFactor)
	if r.p.ExtFactor != 0 {
		y := (float64(i) - r.corr[0]) / math.Max(0.001, r.corr[1]-r.corr[0])
		mix := (1 - math.Min(1, math.Max(0, y))) * float64(r.p.ExtFactor)
		theta = theta*(1-mix) + extrap*mix
		mscale *= 1 + 0.1*math.Log(1/float64(r.p.FreqScale))
	}
	return theta, mscale
}

// pair returns the indices of the elements pair i rotates.
func (r *ropeRef) pair(i int) (int, int) {
	if r.p.Mode == accel.RoPENormal {
		return 2 * i, 2*i + 1
	}
	return i, i + r.p.Dims/2
}

// apply rotates x [n, heads, size] by pos and returns the result with a per-element tolerance.
func (r *ropeRef) apply(x []float32, pos []int32, heads, size int) (want, tol []float64) {
	want, tol = widen(x), make([]float64, len(x))
	for row := 0; row < len(x)/size; row++ {
		p := int(pos[row/heads])
		base := row * size
		for i := 0; i < r.p.Dims/2; i++ {
			theta, ms := r.angle(p, i)
			a, b := r.pair(i)
			x0, x1 := float64(x[base+a]), float64(x[base+b])
			c, s := math.Cos(theta)*ms, math.Sin(theta)*ms
			want[base+a], want[base+b] = x0*c-x1*s, x0*s+x1*c
			// θ from i float32 products by powf's result (itself within an ulp), the factor division and the YaRN
			// blend: at most (3i+6) float32 roundings.
			dTheta := float64(3*i+6) * 0x1p-24 * math.Abs(theta)
			lim := math.Hypot(x0, x1) * ms * (dTheta + 1e-6)
			tol[base+a], tol[base+b] = lim+1e-30, lim+1e-30
		}
	}
	return want, tol
}

// attnRef is grouped-query attention in float64 over caches given as float32 values [ctx, kvHeads, size].
type attnRef struct {
	p              accel.AttentionParams
	kF16, vF16     bool
	heads, kvHeads int
	size, vsize    int
	k, v           []float32 // cache contents (already F16-rounded for F16 caches)
	vstride        int       // elements between value rows (vsize when 0)
	sinks          []float32 // per head, or nil
}

// apply returns the attention of q [n, heads, size] at positions pos, and a per-element tolerance.
func (r *attnRef) apply(q []float32, pos []int32) (want, tol []float64) {
	n := len(pos)
	want, tol = make([]float64, n*r.heads*r.vsize), make([]float64, n*r.heads*r.vsize)
	group := r.heads / r.kvHeads
	for i := 0; i < n; i++ {
		for h := 0; h < r.heads; h++ {
			u := i*r.heads + h
			r.head(q[u*r.size:(u+1)*r.size], int(pos[i]), h, h/group, want[u*r.vsize:(u+1)*r.vsize], tol[u*r.vsize:(u+1)*r.vsize])
		}
	}
	return want, tol
}

// head attends one query row. The tolerance follows the float32 error of a backend: each score is a float32 sum
// of size products (error (size+4)·2^-24·Σ|q·k|, times the scale); a probability's relative error is its score's
// error plus the largest one (through the normalisation) plus a few ulp for exp and the division; the output
// sums keys in float32. Everything is doubled for safety.
func (r *attnRef) head(q []float32, pos, h, g int, out, tol []float64) {
	first := 0
	if r.p.Window > 0 {
		first = max(0, pos-r.p.Window+1)
	}
	keys := pos + 1 - first
	scores, ds := make([]float64, keys), make([]float64, keys)
	maxDs := 0.0
	for j := range scores {
		krow := r.k[((first+j)*r.kvHeads+g)*r.size:]
		var s, sa float64
		for d, qv := range q {
			if r.kF16 {
				qv = f16Round(qv)
			}
			s += float64(qv) * float64(krow[d])
			sa += math.Abs(float64(qv) * float64(krow[d]))
		}
		ds[j] = float64(r.size+4) * 0x1p-24 * sa
		if c := float64(r.p.SoftCap); c > 0 {
			s = c * math.Tanh(s/c)
			ds[j] += 0x1p-22 * math.Abs(s)
		}
		scores[j] = s * float64(r.p.Scale)
		ds[j] = 2 * (ds[j]*math.Abs(float64(r.p.Scale)) + 0x1p-23*math.Abs(scores[j]))
		maxDs = math.Max(maxDs, ds[j])
	}
	probs := refSoftmax(scores)
	if r.sinks != nil { // the sink joins the normalisation: p_j = e^{s_j} / (Σ e^{s} + e^{sink})
		m := float64(r.sinks[h])
		for _, sc := range scores {
			m = math.Max(m, sc)
		}
		sum := math.Exp(float64(r.sinks[h]) - m)
		for _, sc := range scores {
			sum += math.Exp(sc - m)
		}
		for j, sc := range scores {
			probs[j] = math.Exp(sc-m) / sum
		}
	}
	vstride := r.vsize
	if r.vstride > 0 {
		vstride = r.vstride
	}
	var spv float64 // Σ p·|v| over keys and dimensions, for the float32 accumulation
	for j, p := range probs {
		rel := ds[j] + maxDs + 2e-6
		vrow := r.v[((first+j)*r.kvHeads+g)*vstride:]
		flip := 0.0
		if r.vF16 {
			if nearF16Boundary(p, rel) {
				flip = 0x1p-10 * p // the two sides may round p to neighbouring F16 values
			}
			p = float64(f16Round(float32(p)))
		}
		for d := range out {
			v := float64(vrow[d])
			out[d] += p * v
			tol[d] += (rel*p + flip) * math.Abs(v)
			spv = math.Max(spv, p*math.Abs(v))
		}
	}
	for d := range tol {
		tol[d] += 2*float64(keys+2)*0x1p-24*spv*float64(keys) + 1e-7
	}
}

// nearF16Boundary reports whether p is within relative band of a point where rounding to F16 changes.
func nearF16Boundary(p, band float64) bool {
	lo, hi := float32(p*(1-band)), float32(p*(1+band))
	return quant.F32ToF16(lo) != quant.F32ToF16(hi)
}
