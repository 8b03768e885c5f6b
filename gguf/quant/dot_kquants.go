package quant

// Dot products of the 256-element super-block formats with Q8_K activations (ggml_vec_dot_q<k>_K_q8_K and
// ggml_vec_dot_iq4_xs_q8_K). Q4_K, Q5_K and Q6_K follow the reference build's AVX2 kernels (integer lanes of
// VPMADDUBSW/VPMADDWD, lane m summing bytes 4m…4m+3 of every 32 elements, fused per super-block into eight
// float32 lanes, hsum_float_8 at the end), and Q4_K matrices of a multiple of 8 rows its repacked one
// (DotQ4_KQ8_KRepacked); Q2_K and Q3_K the same lanes with two groups of 16 in every 32 elements, and Q2_K
// matrices of a multiple of 8 rows the repacked batch order (DotQ2_KQ8_KRepacked).

import "encoding/binary"

// q8KBlock returns d, the quants and the bsums bytes of Q8_K block i of a.
func q8KBlock(a []byte, i int) (float32, []byte, []byte) {
	y := a[i*292 : i*292+292]
	return f32at(y, 0), y[4:260], y[260:292]
}

func bsum(bs []byte, k int) int { return int(int16(binary.LittleEndian.Uint16(bs[2*k:]))) }

// q2Quant returns element e (0…255) of a Q2_K super-block x (2 bits): half e/128, byte e%32 of its 32, bits
// 2·(e%128/32).
func q2Quant(x []byte, e int) int32 {
	return int32(x[16+32*(e/128)+e%32] >> (2 * (e % 128 / 32)) & 3)
}

// q2Mins returns the eight pair minimum terms of a Q2_K super-block, min_2k·bsum_2k + min_2k+1·bsum_2k+1
// (_mm256_madd_epi16 of the minimums with the bsums).
func q2Mins(sc, bs []byte) (m [8]int32) {
	for g := 0; g < 16; g++ {
		m[g/2] += int32(sc[g]>>4) * int32(bsum(bs, g))
	}
	return m
}

// DotQ2_KQ8_K returns Σ w·a for n elements of a Q2_K row and a Q8_K row in the reference build's AVX2 order
// (ggml_vec_dot_q2_K_q8_K): per super-block the eight pair minimum terms fused into eight float32 lanes with
// −dmin·d_y, then the integer lanes (lane m sums scale·q·y over bytes 4m…4m+3 of every 32 elements, the
// first 16 of them one group, the next 16 another) fused into the same lanes with d·d_y; hsum_float_8 at
// the end.
func DotQ2_KQ8_K(n int, w, a []byte) float32 {
	var acc [8]float32
	for i := 0; i < n/QKK; i++ {
		x := w[i*84 : i*84+84]
		yd, q8, bs := q8KBlock(a, i)
		sc := x[0:16]
		dmin := -(yd * f16at(x, 82))
		for k, m := range q2Mins(sc, bs) {
			acc[k] = fma32(dmin, float32(m), acc[k])
		}
		var lanes [8]int32
		for e := 0; e < QKK; e++ {
			lanes[e%32/4] += int32(sc[e/16]&0xf) * q2Quant(x, e) * int32(int8(q8[e]))
		}
		d := yd * f16at(x, 80)
		for m := range acc {
			acc[m] = fma32(d, float32(lanes[m]), acc[m])
		}
	}
	return hsum8(&acc)
}

// DotQ2_KQ8_KRepacked returns Σ w·a for n elements of a Q2_K row and a Q8_K row as the x86 build's batched
// kernel for repacked Q2_K (q2_K_8x8, ggml_gemm_q2_K_8x8_q8_K with AVX-512) computes it: per half
// super-block (128 elements) the whole integer sum and the whole minimum term, each added by one fused
// multiply-add with d·d_y and dmin·d_y, and their difference at the end. (Single rows and a batch's last
// n mod 4 rows take ggml_gemv_q2_K_8x8_q8_K there, which fuses once per super-block; forma uses one order
// for every row.)
func DotQ2_KQ8_KRepacked(n int, w, a []byte) float32 {
	var acc, accMin float32
	for i := 0; i < n/QKK; i++ {
		x := w[i*84 : i*84+84]
		yd, q8, bs := q8KBlock(a, i)
		sc := x[0:16]
		d, dmin := f16at(x, 80)*yd, f16at(x, 82)*yd
		for h := 0; h < 2; h++ {
			var s, m int32
			for e := 128 * h; e < 128*h+128; e++ {
				s += int32(sc[e/16]&0xf) * q2Quant(x, e) * int32(int8(q8[e]))
			}
			for g := 8 * h; g < 8*h+8; g++ {
				m += int32(sc[g]>>4) * int32(bsum(bs, g))
			}
			acc = fma32(float32(s), d, acc)
			accMin = fma32(float32(m), dmin, accMin)
		}
	}
	return acc - accMin
}

// DotQ3_KQ8_K returns Σ w·a for n elements of a Q3_K row and a Q8_K row in the reference build's AVX2 order
// (ggml_vec_dot_q3_K_q8_K): per super-block the integer lanes (lane m sums (scale−32)·q·y over bytes 4m…4m+3
// of every 32 elements, the first 16 of them one group, the next 16 another) fused into eight float32 lanes
// with d·d_y; hsum_float_8 at the end.
func DotQ3_KQ8_K(n int, w, a []byte) float32 {
	var acc [8]float32
	for i := 0; i < n/QKK; i++ {
		x := w[i*110 : i*110+110]
		yd, q8, _ := q8KBlock(a, i)
		hm, sc := x[0:32], x[96:108]
		var lanes [8]int32
		for e := 0; e < QKK; e++ {
			half, r, l := e/128, e%128/32, e%32
			v := int32(x[32+32*half+l]>>(2*r)) & 3
			if hm[l]>>(4*half+r)&1 == 0 {
				v -= 4
			}
			lanes[l/4] += int32(q3Scale(sc, e/16)-32) * v * int32(int8(q8[e]))
		}
		d := yd * f16at(x, 108)
		for m := range acc {
			acc[m] = fma32(d, float32(lanes[m]), acc[m])
		}
	}
	return hsum8(&acc)
}

// DotQ4_KQ8_K returns Σ w·a for n elements of a Q4_K row and a Q8_K row in the reference build's AVX2 order
// (ggml_vec_dot_q4_K_q8_K): per super-block the eight integer lanes of k45Lanes fused into eight float32
// accumulators with d·d_y, the four pair minimum terms (k45Mins) fused into four accumulators with −dmin·d_y;
// at the end hsum_float_8 of the first plus the second added as (0+2) + (1+3).
func DotQ4_KQ8_K(n int, w, a []byte) float32 {
	var acc [8]float32
	var accM [4]float32
	for i := 0; i < n/QKK; i++ {
		x := w[i*144 : i*144+144]
		yd, q8, bs := q8KBlock(a, i)
		sc := x[4:16]
		dmin := -(yd * f16at(x, 2))
		for k, m := range k45Mins(sc, bs) {
			accM[k] = fma32(dmin, float32(m), accM[k])
		}
		lanes := k45Lanes(sc, q8, func(j, l int) int32 { return int32(x[16+32*(j/2)+l] >> (4 * (j % 2)) & 0xf) })
		d := yd * f16at(x, 0)
		for m := range acc {
			acc[m] = fma32(d, float32(lanes[m]), acc[m])
		}
	}
	return hsum8(&acc) + ((accM[0] + accM[2]) + (accM[1] + accM[3]))
}

// DotQ5_KQ8_K returns Σ w·a for n elements of a Q5_K row and a Q8_K row in the reference build's AVX2 order
// (ggml_vec_dot_q5_K_q8_K): the lanes as DotQ4_KQ8_K's (q = nibble + 16·fifth bit), fused into eight
// float32 accumulators with d·d_y; the super-block's whole minimum term fused into one scalar with −dmin·d_y
// (the compiler contracts summs += dmin·m); hsum_float_8 of the lanes plus that scalar at the end.
func DotQ5_KQ8_K(n int, w, a []byte) float32 {
	var acc [8]float32
	var summs float32
	for i := 0; i < n/QKK; i++ {
		x := w[i*176 : i*176+176]
		yd, q8, bs := q8KBlock(a, i)
		sc, qh := x[4:16], x[16:48]
		m := k45Mins(sc, bs)
		summs = fma32(-(yd * f16at(x, 2)), float32(m[0]+m[1]+m[2]+m[3]), summs)
		lanes := k45Lanes(sc, q8, func(j, l int) int32 {
			return int32(x[48+32*(j/2)+l]>>(4*(j%2))&0xf) | int32(qh[l]>>j&1)<<4
		})
		d := yd * f16at(x, 0)
		for k := range acc {
			acc[k] = fma32(d, float32(lanes[k]), acc[k])
		}
	}
	return hsum8(&acc) + summs
}

// k45Lanes returns the reference build's eight AVX2 integer lanes of one Q4_K or Q5_K super-block: lane m sums
// scale·q·y over the elements e with e%32/4 = m (VPMADDUBSW then VPMADDWD with the group's scale leave bytes
// 4m…4m+3 of each 32-element group in dword m). quant(j, l) is element l of group j (0…31).
func k45Lanes(sc, q8 []byte, quant func(j, l int) int32) (lanes [8]int32) {
	for j := 0; j < 8; j++ {
		s, _ := scaleMinK4(j, sc)
		for l := 0; l < 32; l++ {
			lanes[l/4] += int32(s) * quant(j, l) * int32(int8(q8[32*j+l]))
		}
	}
	return lanes
}

// k45Mins returns the minimum terms of the four pairs of groups, min_2k·gsum_2k + min_2k+1·gsum_2k+1 with
// gsum_j the sum of group j's two bsums (_mm_hadd_epi16 of the bsums, _mm_madd_epi16 with the minimums).
func k45Mins(sc, bs []byte) (m [4]int32) {
	for k := 0; k < 4; k++ {
		for j := 2 * k; j < 2*k+2; j++ {
			_, mn := scaleMinK4(j, sc)
			m[k] += int32(mn) * int32(bsum(bs, 2*j)+bsum(bs, 2*j+1))
		}
	}
	return m
}

// q6Quant returns element e (0…255) of a Q6_K super-block x as its unsigned 6-bit quant (0…63): half h = e/128
// takes its low nibble from ql[64h + 32(k%2) + l] (the high nibble for k ≥ 2), k = e%128/32, l = e%32, and its
// two high bits from bits 2k, 2k+1 of qh[32h + l].
func q6Quant(x []byte, e int) int32 {
	h, k, l := e/128, e%128/32, e%32
	lo := x[64*h+32*(k%2)+l] >> (4 * (k / 2)) & 0xf
	hi := x[128+32*h+l] >> (2 * k) & 3
	return int32(lo | hi<<4)
}

// hsum8 adds eight float32 lanes as the reference's hsum_float_8: lanes i and i+4, then the pairs 0+2 and 1+3,
// then those two.
func hsum8(a *[8]float32) float32 {
	r0, r1, r2, r3 := a[0]+a[4], a[1]+a[5], a[2]+a[6], a[3]+a[7]
	return (r0 + r2) + (r1 + r3)
}

// DotQ6_KQ8_K returns Σ w·a for n elements of a Q6_K row and a Q8_K row in the reference build's AVX2 order: per
// super-block eight integer lanes, lane m summing scale·q·y over the elements e with e%32/4 = m (four
// neighbouring bytes of each 32-element quarter), q unsigned (0…63), minus 32·(scale·bsum) of groups 2m and
// 2m+1 (the quants' offset of 32, taken off through the activations' group sums); each lane fused into its own
// float32 accumulator with d·d_y; the accumulators added as hsum_float_8 at the end.
func DotQ6_KQ8_K(n int, w, a []byte) float32 {
	var acc [8]float32
	for i := 0; i < n/QKK; i++ {
		x := w[i*210 : i*210+210]
		yd, q8, bs := q8KBlock(a, i)
		sc := x[192:208]
		var lanes [8]int32
		for e := 0; e < QKK; e++ {
			lanes[e%32/4] += int32(int8(sc[e/16])) * q6Quant(x, e) * int32(int8(q8[e]))
		}
		for m := range lanes {
			lanes[m] -= 32 * (int32(int8(sc[2*m]))*int32(bsum(bs, 2*m)) + int32(int8(sc[2*m+1]))*int32(bsum(bs, 2*m+1)))
		}
		d := yd * f16at(x, 208)
		for m := range acc {
			acc[m] = fma32(d, float32(lanes[m]), acc[m])
		}
	}
	return hsum8(&acc)
}

// DotIQ4_XSQ8_K returns Σ w·a for n elements of an IQ4_XS row and a Q8_K row in the reference build's AVX2
// order (ggml_vec_dot_iq4_xs_q8_K): per super-block the integer lanes (lane m sums (scale−32)·q·y over bytes
// 4m…4m+3 of every sub-block of 32) fused into eight float32 lanes with d·d_y; hsum_float_8 at the end.
func DotIQ4_XSQ8_K(n int, w, a []byte) float32 {
	var acc [8]float32
	for i := 0; i < n/QKK; i++ {
		x := w[i*136 : i*136+136]
		yd, q8, _ := q8KBlock(a, i)
		var lanes [8]int32
		for k := 0; k < 8; k++ {
			ls := int32(iq4xsScale(x, k) - 32)
			qs := x[8+16*k : 8+16*k+16]
			for j := 0; j < 16; j++ {
				lanes[j/4] += ls * int32(int8(q8[32*k+j])) * int32(kvaluesIQ4[qs[j]&0xf])
				lanes[4+j/4] += ls * int32(int8(q8[32*k+16+j])) * int32(kvaluesIQ4[qs[j]>>4])
			}
		}
		d := f16at(x, 0) * yd
		for m := range acc {
			acc[m] = fma32(d, float32(lanes[m]), acc[m])
		}
	}
	return hsum8(&acc)
}

// q4KGroups returns, for one Q4_K super-block x and its Q8_K block (quants q8, bsums bs), each group's
// integer sum scale·Σ q·y and each group's minimum term min·(bsum of its 32 quants).
func q4KGroups(x, q8, bs []byte) (sums, mins [8]int32) {
	sc := x[4:16]
	for j := 0; j < 8; j++ {
		qs := x[16+32*(j/2) : 16+32*(j/2)+32]
		shift := 4 * (j % 2)
		s := int32(0)
		for l := 0; l < 32; l++ {
			s += int32(int8(q8[32*j+l])) * int32(qs[l]>>shift&0xf)
		}
		scale, m := scaleMinK4(j, sc)
		sums[j] = int32(scale) * s
		mins[j] = int32(m) * int32(bsum(bs, 2*j)+bsum(bs, 2*j+1))
	}
	return sums, mins
}

// DotQ4_KQ8_KRepacked returns Σ w·a for n elements of a Q4_K row and a Q8_K row as the x86 build's batched
// kernel for repacked Q4_K (q4_K_8x8, ggml_gemm_q4_K_8x8_q8_K) computes it: per pair of groups (64 elements)
// the whole integer sum and the whole minimum term, each added by one fused multiply-add with d·d_y and
// dmin·d_y, and their difference at the end. (The reference build multiplies a batch's rows in groups of
// four this way and the rest, and single rows, with ggml_gemv_q4_K_8x8_q8_K, which fuses once per
// super-block; forma uses one order for every row.)
func DotQ4_KQ8_KRepacked(n int, w, a []byte) float32 {
	var acc, accMin float32
	for i := 0; i < n/QKK; i++ {
		x := w[i*144 : i*144+144]
		yd, q8, bs := q8KBlock(a, i)
		sums, mins := q4KGroups(x, q8, bs)
		for j := 0; j < 8; j += 2 {
			acc = fma32(float32(sums[j]+sums[j+1]), f16at(x, 0)*yd, acc)
			accMin = fma32(float32(mins[j]+mins[j+1]), f16at(x, 2)*yd, accMin)
		}
	}
	return acc - accMin
}
