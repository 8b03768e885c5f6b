package quant

// Dot products of the 256-element super-block formats with Q8_K activations (ggml's generic
// ggml_vec_dot_q<k>_K_q8_K and ggml_vec_dot_iq4_xs_q8_K). Q3_K…Q6_K keep ggml's eight integer lanes: lane l
// sums the products of elements ≡ l (mod 8), each group of 16 or 32 weighted by its scale; the lanes are
// scaled per super-block into eight float32 accumulators that are added up at the very end.

import "encoding/binary"

// q8KBlock returns d, the quants and the bsums bytes of Q8_K block i of a.
func q8KBlock(a []byte, i int) (float32, []byte, []byte) {
	y := a[i*292 : i*292+292]
	return f32at(y, 0), y[4:260], y[260:292]
}

func bsum(bs []byte, k int) int { return int(int16(binary.LittleEndian.Uint16(bs[2*k:]))) }

// DotQ2_KQ8_K returns Σ w·a for n elements of a Q2_K row and a Q8_K row.
func DotQ2_KQ8_K(n int, w, a []byte) float32 {
	var sum float32
	for i := 0; i < n/QKK; i++ {
		x := w[i*84 : i*84+84]
		yd, q8, bs := q8KBlock(a, i)
		sc := x[0:16]
		summs := 0
		for j := 0; j < 16; j++ {
			summs += bsum(bs, j) * int(sc[j]>>4)
		}
		dall := yd * f16at(x, 80)
		dmin := yd * f16at(x, 82)
		isum := 0
		for g := 0; g < 16; g++ { // groups of 16 elements in order
			q2 := x[16+32*(g/8)+16*(g%2):]
			shift := 2 * ((g % 8) / 2)
			s := 0
			for l := 0; l < 16; l++ {
				s += int(int8(q8[16*g+l])) * int(q2[l]>>shift&3)
			}
			isum += int(sc[g]&0xf) * s
		}
		sum += float32(float32(dall*float32(isum)) - float32(dmin*float32(summs)))
	}
	return sum
}

// laneSum adds scale·q8[e]·q[e] over the elements e of one group into the eight lanes (by e mod 8).
func laneSum(lanes *[8]int32, scale int32, q8 []byte, q []int8) {
	for e := range q {
		lanes[e%8] += scale * int32(int8(q8[e])) * int32(q[e])
	}
}

// finishLanes adds d·lane into the float accumulators.
func finishLanes(sums *[8]float32, d float32, lanes *[8]int32) {
	for l := 0; l < 8; l++ {
		sums[l] += float32(d * float32(lanes[l]))
	}
}

func addLanes(sum float32, sums *[8]float32) float32 {
	for l := 0; l < 8; l++ {
		sum += sums[l]
	}
	return sum
}

// DotQ3_KQ8_K returns Σ w·a for n elements of a Q3_K row and a Q8_K row.
func DotQ3_KQ8_K(n int, w, a []byte) float32 {
	var sums [8]float32
	var q [16]int8
	for i := 0; i < n/QKK; i++ {
		x := w[i*110 : i*110+110]
		yd, q8, _ := q8KBlock(a, i)
		hm, sc := x[0:32], x[96:108]
		var lanes [8]int32
		for g := 0; g < 16; g++ {
			half, r := g/8, g%8
			qs := x[32+32*half+16*(r%2):]
			shift := 2 * (r / 2)
			m := byte(1) << (4*half + r/2)
			off := 16 * (r % 2)
			for l := 0; l < 16; l++ {
				v := int8(qs[l]>>shift) & 3
				if hm[off+l]&m == 0 {
					v -= 4
				}
				q[l] = v
			}
			laneSum(&lanes, int32(q3Scale(sc, g)-32), q8[16*g:16*g+16], q[:])
		}
		finishLanes(&sums, f16at(x, 108)*yd, &lanes)
	}
	return addLanes(0, &sums)
}

// minsTerm returns Σ bsums[k]·min[k/2] for the Q4_K/Q5_K minimums packed in sc.
func minsTerm(sc, bs []byte) int {
	s := 0
	for k := 0; k < 16; k++ {
		_, m := scaleMinK4(k/2, sc)
		s += bsum(bs, k) * int(m)
	}
	return s
}

// DotQ4_KQ8_K returns Σ w·a for n elements of a Q4_K row and a Q8_K row.
func DotQ4_KQ8_K(n int, w, a []byte) float32 {
	var sums [8]float32
	var sum float32
	var q [32]int8
	for i := 0; i < n/QKK; i++ {
		x := w[i*144 : i*144+144]
		yd, q8, bs := q8KBlock(a, i)
		sc := x[4:16]
		var lanes [8]int32
		for j := 0; j < 8; j++ { // groups of 32
			qs := x[16+32*(j/2) : 16+32*(j/2)+32]
			shift := 4 * (j % 2)
			for l := range q {
				q[l] = int8(qs[l] >> shift & 0xf)
			}
			s, _ := scaleMinK4(j, sc)
			laneSum(&lanes, int32(s), q8[32*j:32*j+32], q[:])
		}
		finishLanes(&sums, f16at(x, 0)*yd, &lanes)
		sum -= float32(float32(f16at(x, 2)*yd) * float32(minsTerm(sc, bs)))
	}
	return addLanes(sum, &sums)
}

// DotQ4_KQ8_KRepacked returns Σ w·a for n elements of a Q4_K row and a Q8_K row as the x86 build's repacked
// Q4_K (q4_K_8x8, ggml_gemv_q4_K_8x8_q8_K) computes it: per super-block the whole integer sum Σ scale·q·y and
// the minimums' Σ min·bsums, each fused into one float32 accumulator with its block's d·yd and dmin·yd; the
// result is the first accumulator minus the second.
func DotQ4_KQ8_KRepacked(n int, w, a []byte) float32 {
	var acc, accMin float32
	for i := 0; i < n/QKK; i++ {
		x := w[i*144 : i*144+144]
		yd, q8, bs := q8KBlock(a, i)
		sc := x[4:16]
		s := int32(0)
		for j := 0; j < 8; j++ { // groups of 32
			qs := x[16+32*(j/2) : 16+32*(j/2)+32]
			shift := 4 * (j % 2)
			g := int32(0)
			for l := 0; l < 32; l++ {
				g += int32(qs[l]>>shift&0xf) * int32(int8(q8[32*j+l]))
			}
			k, _ := scaleMinK4(j, sc)
			s += int32(k) * g
		}
		acc = fma32(float32(s), f16at(x, 0)*yd, acc)
		accMin = fma32(float32(minsTerm(sc, bs)), f16at(x, 2)*yd, accMin)
	}
	return acc - accMin
}

// DotQ5_KQ8_K returns Σ w·a for n elements of a Q5_K row and a Q8_K row.
func DotQ5_KQ8_K(n int, w, a []byte) float32 {
	var sums [8]float32
	var sum float32
	var q [32]int8
	for i := 0; i < n/QKK; i++ {
		x := w[i*176 : i*176+176]
		yd, q8, bs := q8KBlock(a, i)
		sc, qh := x[4:16], x[16:48]
		var lanes [8]int32
		for j := 0; j < 8; j++ {
			qs := x[48+32*(j/2) : 48+32*(j/2)+32]
			shift := 4 * (j % 2)
			m := byte(1) << j
			for l := range q {
				v := int8(qs[l] >> shift & 0xf)
				if qh[l]&m != 0 {
					v += 16
				}
				q[l] = v
			}
			s, _ := scaleMinK4(j, sc)
			laneSum(&lanes, int32(s), q8[32*j:32*j+32], q[:])
		}
		finishLanes(&sums, f16at(x, 0)*yd, &lanes)
		sum -= float32(float32(f16at(x, 2)*yd) * float32(minsTerm(sc, bs)))
	}
	return addLanes(sum, &sums)
}

// DotQ6_KQ8_K returns Σ w·a for n elements of a Q6_K row and a Q8_K row.
func DotQ6_KQ8_K(n int, w, a []byte) float32 {
	var sums [8]float32
	var q [16]int8
	for i := 0; i < n/QKK; i++ {
		x := w[i*210 : i*210+210]
		yd, q8, _ := q8KBlock(a, i)
		var lanes [8]int32
		for g := 0; g < 16; g++ {
			half, e0 := g/8, 16*(g%8) // group start within its half of 128
			ql := x[64*half : 64*half+64]
			qh := x[128+32*half : 128+32*half+32]
			k := e0 / 32 // which quarter of the half: selects nibble and qh bits
			for l := 0; l < 16; l++ {
				e := e0%32 + l
				lo := ql[e+32*(k%2)] >> (4 * (k / 2)) & 0xf
				hi := qh[e] >> (2 * k) & 3
				q[l] = int8(lo|hi<<4) - 32
			}
			laneSum(&lanes, int32(int8(x[192+g])), q8[16*g:16*g+16], q[:])
		}
		finishLanes(&sums, f16at(x, 208)*yd, &lanes)
	}
	return addLanes(0, &sums)
}

// DotIQ4_XSQ8_K returns Σ w·a for n elements of an IQ4_XS row and a Q8_K row.
func DotIQ4_XSQ8_K(n int, w, a []byte) float32 {
	var sum float32
	for i := 0; i < n/QKK; i++ {
		x := w[i*136 : i*136+136]
		yd, q8, _ := q8KBlock(a, i)
		d4d8 := f16at(x, 0) * yd
		for k := 0; k < 8; k++ {
			dl := d4d8 * float32(iq4xsScale(x, k)-32)
			qs := x[8+16*k : 8+16*k+16]
			y := q8[32*k : 32*k+32]
			s := 0
			for j := 0; j < 16; j++ {
				s += int(int8(y[j])) * int(kvaluesIQ4[qs[j]&0xf])
				s += int(int8(y[j+16])) * int(kvaluesIQ4[qs[j]>>4])
			}
			sum += float32(dl * float32(s))
		}
	}
	return sum
}
