package quant

// Kernels over rows of F16 values, for attention over an F16 KV cache: the scores of one query against many
// cached keys, and the probability-weighted sum of cached values. Rows are n halves each, row j starting at
// element j·stride of the cache (a cache holds every head of a position together, so a head's rows are
// strided). The references here accumulate each output in float32 in order; the SIMD versions (f16rows_amd64.s)
// use several float32 lanes, as ggml's do, and agree to rounding.

// DotF16Rows sets out[j] = Σ_d q[d]·k[j·stride+d] for j < len(out), k holding F16 values (2 bytes each) and
// q float32 (n = len(q) elements). It panics if a row reaches past k.
func DotF16Rows(q []float32, k []byte, stride int, out []float32) {
	n := len(q)
	if len(out) == 0 || n == 0 {
		clear(out)
		return
	}
	_ = k[2*((len(out)-1)*stride+n)-1]
	if stride < n {
		panic("quant: DotF16Rows: stride shorter than a row")
	}
	dotF16Rows(q, k, stride, out)
}

// AddWeightedF16Rows adds Σ_j p[j]·v[j·stride+d] to out[d] for d < len(out), v holding F16 values. It panics
// if a row reaches past v.
func AddWeightedF16Rows(out, p []float32, v []byte, stride int) {
	n := len(out)
	if len(p) == 0 || n == 0 {
		return
	}
	_ = v[2*((len(p)-1)*stride+n)-1]
	if stride < n {
		panic("quant: AddWeightedF16Rows: stride shorter than a row")
	}
	addWeightedF16Rows(out, p, v, stride)
}

func dotF16RowsRef(q []float32, k []byte, stride int, out []float32) {
	for j := range out {
		row := k[2*j*stride : 2*(j*stride+len(q))]
		var s float32
		for d, x := range q {
			s += x * f16at(row, 2*d)
		}
		out[j] = s
	}
}

func addWeightedF16RowsRef(out, p []float32, v []byte, stride int) {
	for j, pj := range p {
		row := v[2*j*stride : 2*(j*stride+len(out))]
		for d := range out {
			out[d] += pj * f16at(row, 2*d)
		}
	}
}
