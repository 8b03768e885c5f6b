package quant

// Q4_K: 144 bytes / 256 elements = 4.5 bits per weight.
//
//	d      f16        super-block scale for the scales
//	dmin   f16        super-block scale for the minimums
//	scales [12]byte   eight 6-bit scales and eight 6-bit minimums, one pair per 32 elements (see scaleMinK4)
//	qs     [128]byte  4-bit quants; in each group of 64 elements, byte l (0…31) holds element l in its low
//	                  nibble and element l+32 in its high nibble
//	x = d·scale·q − dmin·min
//
// Quantization is ggml's quantize_row_q4_K_ref: make_qkx2_quants per 32 elements (weights rms + |x|),
// scales and minimums quantized to six bits against their maxima, then the quants recomputed.

// DequantizeQ4_K expands len(dst) elements (a multiple of 256) from Q4_K blocks in src.
func DequantizeQ4_K(src []byte, dst []float32) {
	for i := 0; i < len(dst)/QKK; i++ {
		b := src[i*144 : i*144+144]
		y := dst[i*QKK : i*QKK+QKK]
		d, dmin := f16at(b, 0), f16at(b, 2)
		for g := 0; g < 4; g++ {
			q := b[16+32*g : 16+32*g+32]
			sc1, m1 := scaleMinK4(2*g, b[4:16])
			sc2, m2 := scaleMinK4(2*g+1, b[4:16])
			d1, mn1 := d*float32(sc1), dmin*float32(m1)
			d2, mn2 := d*float32(sc2), dmin*float32(m2)
			out := y[64*g : 64*g+64]
			for l := 0; l < 32; l++ {
				out[l] = float32(d1*float32(q[l]&0xf)) - mn1
				out[l+32] = float32(d2*float32(q[l]>>4)) - mn2
			}
		}
	}
}

// kxSubScales runs make_qkx2_quants over the eight 32-element groups of x as ggml's Q4_K/Q5_K reference
// does (weights sqrt(mean x²) + |x|), filling l, and returns the scales and minimums.
func kxSubScales(x []float32, nmax int, rmin, rdelta float32, nstep int, l *[QKK]uint8) (scales, mins [8]float32) {
	var w [32]float32
	var laux [32]uint8
	for j := 0; j < 8; j++ {
		xs := x[32*j : 32*j+32]
		var sumX2 float32
		for _, v := range xs {
			sumX2 += float32(v * v)
		}
		avX := sqrt32(sumX2 / 32)
		for k, v := range xs {
			w[k] = avX + abs32(v)
		}
		scales[j], mins[j] = makeQKX2(nmax, xs, w[:], l[32*j:32*j+32], laux[:], rmin, rdelta, nstep, false)
	}
	return scales, mins
}

// kxPackScales quantizes the scales and minimums to six bits, writes d, dmin and the 12 packed bytes into
// hdr (4 + 12 bytes), and requantizes x into l with levels 0…nmax.
func kxPackScales(x []float32, scales, mins *[8]float32, nmax int, hdr []byte, l *[QKK]uint8) {
	var maxScale, maxMin float32
	for j := 0; j < 8; j++ {
		maxScale = max(maxScale, scales[j])
		maxMin = max(maxMin, mins[j])
	}
	var invScale, invMin float32
	if maxScale > 0 {
		invScale = 63 / maxScale
	}
	if maxMin > 0 {
		invMin = 63 / maxMin
	}
	var ls, lm [8]uint8
	for j := 0; j < 8; j++ {
		ls[j] = min(63, uint8(nearestInt(invScale*scales[j])))
		lm[j] = min(63, uint8(nearestInt(invMin*mins[j])))
	}
	packScaleMinK4(&ls, &lm, hdr[4:16])
	putF16(hdr, 0, maxScale/63)
	putF16(hdr, 2, maxMin/63)
	dAll, mAll := f16at(hdr, 0), f16at(hdr, 2)
	for j := 0; j < 8; j++ {
		sc, m := scaleMinK4(j, hdr[4:16])
		d := dAll * float32(sc)
		if d == 0 {
			continue
		}
		dm := mAll * float32(m)
		for k := 0; k < 32; k++ {
			l[32*j+k] = uint8(clampInt(nearestInt((x[32*j+k]+dm)/d), 0, nmax))
		}
	}
}

// QuantizeQ4_K quantizes len(src) elements (a multiple of 256) into Q4_K blocks, following ggml's
// quantize_row_q4_K_ref.
func QuantizeQ4_K(src []float32, dst []byte) {
	var l [QKK]uint8
	for i := 0; i < len(src)/QKK; i++ {
		x := src[i*QKK : i*QKK+QKK]
		b := dst[i*144 : i*144+144]
		scales, mins := kxSubScales(x, 15, -1, 0.1, 20, &l)
		kxPackScales(x, &scales, &mins, 15, b[0:16], &l)
		for g := 0; g < 4; g++ {
			q := b[16+32*g : 16+32*g+32]
			for k := 0; k < 32; k++ {
				q[k] = l[64*g+k] | l[64*g+k+32]<<4
			}
		}
	}
}
