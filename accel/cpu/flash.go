package cpu

import (
	"math"

	"github.com/forma-llm/forma/gguf/quant"
)

// Flash attention (accel.AttentionParams.Flash) in the arithmetic of llama.cpp's CPU kernel for one query row
// and head (ggml_compute_forward_flash_attn_ext_f16_one_chunk, which the reference build runs for a quantized
// cache and for every query of a short cache):
//
//   - an F32 cache is read as F16 (llama.cpp casts F32 keys and values to F16 for flash attention);
//   - q is converted to the key cache's dot-product type (F16 rounded; Q8_0/Q4_0 keys: q quantized to Q8_0 as
//     the x86 build does) and each score is that type's vec_dot (quant.DotFunc) of the key row and q;
//   - the score is scaled (by Scale/SoftCap then SoftCap·tanh, with a soft-cap);
//   - an online softmax walks the cells in position order with a running maximum M and sum S: a new maximum
//     rescales the accumulator and S by expf(Mold - M) and adds the value with weight 1, any other cell adds its
//     value with weight expf(s - M); S = S·ms + vs (fused, as the reference's compiler contracts it);
//   - values are accumulated per cell: an F16 cache in an F16 accumulator (each update rounded to F16, as
//     ggml_vec_mad_f16/ggml_vec_scale_f16 store it), any other in F32 (quantized rows dequantized first);
//   - the result is the accumulator times 1/S.
//
// With llama.cpp's rotation of a quantized cache (RotK, RotV) q is rotated before its conversion and the result
// after the division (hadamard.go); the cache holds rotated keys and values.
//
// Cells are those of the query's sequence in position order, so the paged form gives the same result wherever
// the pages lie.

// flashPerShare is the workspace of one worker in floats: q in the dot type, the rotated q, a key row converted
// to F16, a value row as floats, the accumulator, and per cell its exponent's argument and whether it is a new
// maximum, and the exponentials.
func (s *attnStep) flashPerShare() int { return 2*s.size + (s.size+1)/2 + 2*s.vsize + 3*s.cells() }

// runFlash takes every nw-th (query, head) pair starting at w.
func (s *attnStep) runFlash(w, nw int) {
	ws := s.ws[w*s.perShare() : (w+1)*s.perShare()]
	qb, ws := bytesOf(ws[:s.size]), ws[s.size:]
	qr, ws := ws[:s.size], ws[s.size:]
	kb, ws := bytesOf(ws[:(s.size+1)/2])[:2*s.size], ws[(s.size+1)/2:]
	vrow, acc, ws := ws[:s.vsize], ws[s.vsize:2*s.vsize], ws[2*s.vsize:]
	fw := flashWork{arg: ws[:s.cells()], isMax: ws[s.cells() : 2*s.cells()], e: ws[2*s.cells() : 3*s.cells()]}
	group := s.heads / s.kvHeads
	for u := w; u < len(s.pos)*s.heads; u += nw {
		i, h := u/s.heads, u%s.heads
		q := s.q[u*s.size : (u+1)*s.size]
		if s.p.RotK > 0 {
			rotate(q, qr, s.p.RotK)
			q = qr
		}
		s.flashHead(i, q, s.y[u*s.vsize:(u+1)*s.vsize], int(s.pos[i]), h/group, qb, kb, vrow, acc, &fw)
	}
}

// flashWork holds a (query, head) pair's per-cell values: the arguments of the softmax's exponentials, which
// cells raise the running maximum (1) and the exponentials.
type flashWork struct{ arg, isMax, e []float32 }

// flashHead attends query i's row q of kv head g at position pos and writes out. The scores and the running
// maximum depend on nothing else, so the cells' exponentials (one a cell: the rescale of the sums at a new
// maximum, else the cell's weight) are taken together (expfVec) before the values are added in order.
func (s *attnStep) flashHead(i int, q, out []float32, pos, g int, qb, kb []byte, vrow, acc []float32, fw *flashWork) {
	first := 0
	if s.p.Window > 0 {
		first = max(0, pos-s.p.Window+1)
	}
	if s.kType == quant.F32 || s.kType == quant.F16 {
		quant.QuantizeF16(q, qb)
	} else {
		quant.QuantizeQ8_0(q, qb)
	}
	n := pos + 1 - first
	arg, isMax, e := fw.arg[:n], fw.isMax[:n], fw.e[:n]
	s.flashScores(i, g, first, qb, kb, arg, isMax)
	expfVec(arg, e)
	clear(acc) // with an F16 accumulator, acc holds its values (each rounded to F16 after every update)
	var sum float32
	for j := 0; j < n; {
		end := s.pageEnd(i, first+j, pos+1) - first // cells j … end−1 lie in consecutive cache rows
		r := s.row(i, first+j)*s.kvHeads + g
		sum = s.flashValues(r, isMax[j:end], e[j:end], vrow, acc, sum)
		j = end
	}
	var inv float32
	if sum != 0 {
		inv = 1 / sum
	}
	if s.p.RotV == 0 {
		for d := range out {
			out[d] = acc[d] * inv
		}
		return
	}
	for d := range vrow {
		vrow[d] = acc[d] * inv
	}
	rotate(vrow, out, s.p.RotV)
}

// flashScores sets, for the cells first, first+1, … of query i's sequence and kv head g, arg[j] to the argument
// of the cell's exponential and isMax[j] to 1 where its score raises the running maximum M (arg = Mold − s, the
// rescale), else 0 (arg = s − M, its weight); qb is q in the key's dot type.
func (s *attnStep) flashScores(i, g, first int, qb, kb []byte, arg, isMax []float32) {
	scale, softCap := s.p.Scale, s.p.SoftCap
	if softCap != 0 {
		scale /= softCap
	}
	m := float32(math.Inf(-1))
	for j := 0; j < len(arg); {
		end := s.pageEnd(i, first+j, first+len(arg)) - first
		r := s.row(i, first+j)*s.kvHeads + g
		if s.kRows != nil {
			s.kRows(s.size, s.k[r*s.kRow:], s.kvHeads*s.kRow, end-j, qb, 0, 1, arg[j:end], 0)
		}
		for ; j < end; j, r = j+1, r+s.kvHeads {
			var sc float32
			if s.kRows != nil {
				sc = arg[j] * scale
			} else {
				quant.QuantizeF16(f32s(s.k[r*s.kRow:][:s.kRow]), kb)
				sc = s.kDot(s.size, kb, qb) * scale
			}
			if softCap != 0 {
				sc = softCap * float32(math.Tanh(float64(sc)))
			}
			if sc > m {
				arg[j], isMax[j], m = m-sc, 1, sc
			} else {
				arg[j], isMax[j] = sc-m, 0
			}
		}
	}
}

// flashValues adds the value rows of cells in consecutive cache rows from row r (of kv head g: r = cache row ·
// kvHeads + g) to acc in order, each with its exponential e[j]: at a new maximum (isMax[j]) acc and the sum are
// first rescaled by it and the row added with weight 1. It returns the running sum S = S·ms + vs. F16 and
// quantized rows go to flashAdd, runs of cells without a new maximum in one call.
func (s *attnStep) flashValues(r int, isMax, e, vrow, acc []float32, sum float32) float32 {
	vF16 := s.vType == quant.F16 || s.vType == quant.F32 // an F32 cache is read as F16
	stride := s.kvHeads * s.vRow
	for j := 0; j < len(e); {
		vb := s.v[(r+j*s.kvHeads)*s.vRow:]
		if isMax[j] == 0 && s.vType != quant.F32 { // a run of cells that only add
			k := j
			for ; k < len(e) && isMax[k] == 0; k++ {
				sum += e[k] // fma32(sum, 1, e[k]): one rounding of the exact sum
			}
			s.flashAdd(vb, stride, acc, vrow, e[j:k])
			j = k
			continue
		}
		ms, vs := float32(1), e[j]
		if isMax[j] != 0 {
			ms, vs = e[j], 1
		}
		if ms != 1 {
			for d := range acc {
				acc[d] *= ms
			}
			if vF16 {
				roundF16Vec(acc)
			}
		}
		if s.vType == quant.F32 {
			copy(vrow, f32s(vb[:s.vRow]))
			roundF16Vec(vrow)
			axpy(vrow, acc, vs, true)
		} else {
			e[j] = vs // the row's weight (e is the pair's scratch)
			s.flashAdd(vb, stride, acc, vrow, e[j:j+1])
		}
		sum = fma32(sum, ms, vs)
		j++
	}
	return sum
}

// flashAdd adds the F16 or quantized value rows at v, stride bytes apart, to acc with the weights w in turn
// (vrow: scratch for a dequantized row).
func (s *attnStep) flashAdd(v []byte, stride int, acc, vrow, w []float32) {
	if s.vType == quant.F16 {
		if !axpyHRowsFast(v, stride, len(w), acc, w) {
			for j, x := range w {
				axpyH(u16s(v[j*stride:][:s.vRow]), acc, x)
			}
		}
		return
	}
	if !axpyQRowsFast(s.vType, v, stride, len(w), acc, w) {
		for j, x := range w {
			axpyQ(s.vType, v[j*stride:][:s.vRow], acc, vrow, x)
		}
	}
}

// axpy sets y[i] = x[i]·a + y[i] rounded once (ggml_vec_mad_f32), then, with round, to F16 (an F16
// accumulator's store). len(y) ≥ len(x).
func axpy(x, y []float32, a float32, round bool) {
	for i := axpyFast(x, y, a, round); i < len(x); i++ {
		y[i] = fma32(x[i], a, y[i])
		if round {
			y[i] = f16Round(y[i])
		}
	}
}

// axpyH is axpy of F16 x with the result rounded to F16 (ggml_vec_mad_f16).
func axpyH(x []uint16, y []float32, a float32) {
	for i := axpyHFast(x, y, a); i < len(x); i++ {
		y[i] = f16Round(fma32(quant.F16ToF32(x[i]), a, y[i]))
	}
}

// axpyQ is axpy of the Q8_0 or Q4_0 row x (len(y) elements) dequantized into tmp first (dequantize_row_*).
func axpyQ(t quant.Type, x []byte, y, tmp []float32, a float32) {
	if axpyQFast(t, x, y, a) {
		return
	}
	if t == quant.Q8_0 {
		quant.DequantizeQ8_0(x, tmp[:len(y)])
	} else {
		quant.DequantizeQ4_0(x, tmp[:len(y)])
	}
	axpy(tmp[:len(y)], y, a, false)
}
