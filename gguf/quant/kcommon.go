package quant

// Shared pieces of the K-quant formats ("super-blocks" of 256 elements) and of ggml's reference searches for
// their scales. The searches are written operation by operation as in ggml (float32 throughout, same order,
// same rounding), so quantizing with them reproduces ggml's files; see k2.go … k6.go for the layouts.

import "math"

// groupMaxEps is ggml's GROUP_MAX_EPS: a group whose largest magnitude is below it counts as all zero.
const groupMaxEps = 1e-15

func sqrt32(v float32) float32 { return float32(math.Sqrt(float64(v))) }

// scaleMinK4 decodes the j-th (0…7) 6-bit scale and 6-bit minimum of the 12 packed bytes q used by Q4_K
// and Q5_K: entries 0…3 sit in the low six bits of q[j] (scale) and q[j+4] (minimum); entries 4…7 keep
// their low four bits in the nibbles of q[j+4] and their top two bits in the top bits of q[j-4] and q[j].
func scaleMinK4(j int, q []byte) (sc, m uint8) {
	if j < 4 {
		return q[j] & 63, q[j+4] & 63
	}
	return q[j+4]&0xf | (q[j-4]>>6)<<4, q[j+4]>>4 | (q[j]>>6)<<4
}

// packScaleMinK4 is the inverse of scaleMinK4 for all eight entries (values 0…63).
func packScaleMinK4(ls, lm *[8]uint8, q []byte) {
	for j := 0; j < 8; j++ {
		if j < 4 {
			q[j] = ls[j]
			q[j+4] = lm[j]
		} else {
			q[j+4] = ls[j]&0xf | (lm[j]&0xf)<<4
			q[j-4] |= (ls[j] >> 4) << 6
			q[j] |= (lm[j] >> 4) << 6
		}
	}
}

// makeQKX2 is ggml's make_qkx2_quants: it fits x ≈ scale·L − min with L in 0…nmax (min ≥ 0 returned),
// minimising the weighted error (absolute with useMAD, squared otherwise) over nstep+1 trial scales.
// L and laux must hold len(x) entries.
func makeQKX2(nmax int, x, w []float32, l, laux []uint8, rmin, rdelta float32, nstep int, useMAD bool) (scale, theMin float32) {
	n := len(x)
	min_, max_ := x[0], x[0]
	sumW := w[0]
	sumX := float32(sumW * x[0])
	for i := 1; i < n; i++ {
		if x[i] < min_ {
			min_ = x[i]
		}
		if x[i] > max_ {
			max_ = x[i]
		}
		sumW += w[i]
		sumX += float32(w[i] * x[i])
	}
	if min_ > 0 {
		min_ = 0
	}
	if max_ == min_ {
		clear(l[:n])
		return 0, -min_
	}
	fmax := float32(nmax)
	iscale := fmax / (max_ - min_)
	scale = 1 / iscale
	bestErr := float32(0)
	for i := 0; i < n; i++ {
		l[i] = uint8(max(0, min(nmax, nearestInt(iscale*(x[i]-min_)))))
		bestErr += float32(w[i] * errTerm(float32(float32(scale*float32(l[i]))+min_)-x[i], useMAD))
	}
	for is := 0; is <= nstep; is++ {
		iscale = (float32(rmin+float32(rdelta*float32(is))) + fmax) / (max_ - min_)
		thisScale, thisMin, ok := qkx2Fit(nmax, x, w, laux, iscale, min_, sumW, sumX)
		if !ok {
			continue
		}
		var curErr float32
		for i := 0; i < n; i++ {
			curErr += float32(w[i] * errTerm(float32(float32(thisScale*float32(laux[i]))+thisMin)-x[i], useMAD))
		}
		if curErr < bestErr {
			copy(l[:n], laux[:n])
			bestErr, scale, min_ = curErr, thisScale, thisMin
		}
	}
	return scale, -min_
}

// qkx2Fit quantizes x − min with iscale into laux and returns the weighted least-squares scale and offset
// for those levels (offset clamped to ≤ 0), or ok = false when the fit is degenerate.
func qkx2Fit(nmax int, x, w []float32, laux []uint8, iscale, min_, sumW, sumX float32) (scale, offset float32, ok bool) {
	var sumL, sumL2, sumXL float32
	for i := range x {
		q := uint8(max(0, min(nmax, nearestInt(iscale*(x[i]-min_)))))
		laux[i] = q
		wl := float32(w[i] * float32(q))
		sumL += wl
		sumL2 += float32(wl * float32(q))
		sumXL += float32(wl * x[i])
	}
	D := float32(sumW*sumL2) - float32(sumL*sumL)
	if !(D > 0) { // as ggml: a NaN fit is skipped too
		return 0, 0, false
	}
	scale = (float32(sumW*sumXL) - float32(sumX*sumL)) / D
	offset = (float32(sumL2*sumX) - float32(sumL*sumXL)) / D
	if offset > 0 {
		offset = 0
		scale = sumXL / sumL2
	}
	return scale, offset, true
}

func errTerm(d float32, useMAD bool) float32 {
	if useMAD {
		return abs32(d)
	}
	return d * d
}

// clampInt limits v to lo…hi.
func clampInt(v, lo, hi int) int { return max(lo, min(hi, v)) }

// makeQX is ggml's make_qx_quants with rmse_type 1 and no importance weights (weights x²): it fits
// x ≈ scale·(L − nmax) with L in 0…2·nmax−1, trying 19 scales around −nmax/max.
func makeQX(nmax int, x []float32, l []int8) float32 {
	max_ := signedAbsMax(x)
	if abs32(max_) < groupMaxEps {
		clear(l[:len(x)])
		return 0
	}
	iscale := float32(-nmax) / max_
	sumLX, sumL2 := qxSums(nmax, x, iscale, l)
	scale := float32(0)
	if sumL2 != 0 {
		scale = sumLX / sumL2
	}
	best := scale * sumLX
	for is := -9; is <= 9; is++ {
		if is == 0 {
			continue
		}
		iscale = -(float32(nmax) + float32(0.1*float32(is))) / max_
		sumLX, sumL2 = qxSums(nmax, x, iscale, nil)
		if sumL2 > 0 && float32(sumLX*sumLX) > float32(best*sumL2) {
			qxSums(nmax, x, iscale, l)
			scale = sumLX / sumL2
			best = scale * sumLX
		}
	}
	return scale
}

// qxSums quantizes x with iscale (storing L+nmax into l when l is not nil) and returns Σw·x·l and Σw·l².
func qxSums(nmax int, x []float32, iscale float32, l []int8) (sumLX, sumL2 float32) {
	for i, v := range x {
		q := clampInt(nearestInt(iscale*v), -nmax, nmax-1)
		if l != nil {
			l[i] = int8(q + nmax)
		}
		w := v * v
		fq := float32(q)
		sumLX += float32(float32(w*v) * fq)
		sumL2 += float32(float32(w*fq) * fq)
	}
	return sumLX, sumL2
}

// makeQ3 is ggml's make_q3_quants with do_rmse: start from −nmax/max, then up to five passes that move
// single elements to the level that most improves the weighted (x²) fit. L gets values 0…2·nmax−1.
func makeQ3(nmax int, x []float32, l []int8) float32 {
	max_ := signedAbsMax(x)
	if abs32(max_) < groupMaxEps {
		clear(l[:len(x)])
		return 0
	}
	iscale := float32(-nmax) / max_
	var sumLX, sumL2 float32
	for i, v := range x {
		q := clampInt(nearestInt(iscale*v), -nmax, nmax-1)
		l[i] = int8(q)
		w := v * v
		sumLX += float32(float32(w*v) * float32(q))
		sumL2 += float32(float32(w*float32(q)) * float32(q))
	}
	for itry := 0; itry < 5; itry++ {
		changed := false
		for i, v := range x {
			w := v * v
			fl := float32(l[i])
			slx := sumLX - float32(float32(w*v)*fl)
			if slx <= 0 {
				continue
			}
			sl2 := sumL2 - float32(float32(w*fl)*fl)
			nl := clampInt(nearestInt(float32(v*sl2)/slx), -nmax, nmax-1)
			if nl == int(l[i]) {
				continue
			}
			fn := float32(nl)
			slx += float32(float32(w*v) * fn)
			sl2 += float32(float32(w*fn) * fn)
			if sl2 > 0 && float32(float32(slx*slx)*sumL2) > float32(float32(sumLX*sumLX)*sl2) {
				l[i], sumLX, sumL2 = int8(nl), slx, sl2
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	for i := range x {
		l[i] += int8(nmax)
	}
	if sumL2 > 0 {
		return sumLX / sumL2
	}
	return 0
}

// pack2bit stores 256 two-bit values as ggml's Q2_K/Q3_K do: in each half of 128, byte l (0…31) holds
// values l, l+32, l+64, l+96 in bits 0-1, 2-3, 4-5, 6-7.
func pack2bit(l *[QKK]uint8, qs []byte) {
	for j := 0; j < QKK; j += 128 {
		for k := 0; k < 32; k++ {
			qs[j/4+k] = l[j+k] | l[j+k+32]<<2 | l[j+k+64]<<4 | l[j+k+96]<<6
		}
	}
}
