package quant

import "encoding/binary"

// Q6_K in the vec_dot order ("Q6_Kx16", see gemm_stored.go), for DotQ6_KQ8_K's AVX2 lanes: per super-block,
// integer lane m (0…7) of a (row, column) pair sums scale·q·y over the elements e with e%32/4 = m, minus
// 32·(the scale·bsum terms of groups 2m and 2m+1), and is fused into float32 accumulator m with d·d_y.
//
// A stored group of nb super-blocks is the 16 rows' blocks of 210 bytes rearranged into nb·3360 (the size of
// the original), per super-block:
//
//	q      [8][2][3][GemmRows][4]uint8  lane m, half h (128 elements): the dwords of row r at l = 4m…4m+3
//	                                    of the half's ql[l], ql[l+32] and qh[l]: quarter k (elements
//	                                    128h+32k+l) has its low four bits in the low (k < 2) or high nibble
//	                                    of ql[l+32(k%2)] and its high two in bits 2k, 2k+1 of qh
//	scales [2][4][GemmRows][2]int8      w, j: the scales of groups 4j+w and 4j+2+w of every row (the scales
//	                                    of quarters 2j and 2j+1 of lanes m with m/4 = w)
//	d      [GemmRows]uint16             the rows' f16 super-block scales
//
// The kernels unpack the quarters' 6-bit quants of a lane (unsigned, 0…63) from the three dwords, multiply
// each with its column's broadcast activation dword (VPDPBUSD: at most 4·63·128 in magnitude, an int16),
// put the sums of quarters 2j and 2j+1 into the two words of a dword and multiply-add them with their scales
// into the lane (VPDPWSSD), take −32·scale·bsum of groups 2m and 2m+1 off (VPDPWSSD of −32·scale, one word
// of a scale pair, with the bsum beside it in Q8_K's bsums), and do the lane's float work; every lane of a
// vector is a row, and its integer sums are exact. The activations are plain Q8_K blocks.
const (
	k6xLane  = 6 * 4 * GemmRows // bytes of one lane of one super-block
	k6xSD    = 288              // bytes of one super-block's scales and d
	k6xD     = 256              // offset of d in them
	k6xBlock = 8*k6xLane + k6xSD
)

// k6xQ returns the offset of lane m of super-block b in a stored group.
func k6xQ(m, b int) int { return b*k6xBlock + m*k6xLane }

// k6xSDAt returns the offset of super-block b's scales and d in a stored group.
func k6xSDAt(b int) int { return b*k6xBlock + 8*k6xLane }

// k6xScale returns the offset of row r's scale of group g in a super-block's scales and d.
func k6xScale(g, r int) int { return (g%2*4+g/4)*2*GemmRows + 2*r + g/2%2 }

// quantizeQ8K quantizes src into plain Q8_K blocks, the Q6_K Gemm's activation layout.
func quantizeQ8K(src []float32, dst []byte) { QuantizeQ8_K(src, dst) }

// q8kFromQ8_K copies a Q8_K activation row (the layout is Q8_K's own).
func q8kFromQ8_K(ref, dst []byte) { copy(dst, ref) }

// packQ6_Kx16 stores one group of rows (at most GemmRows) of nb Q6_K super-blocks in the Q6_Kx16 layout;
// missing rows are zero.
func packQ6_Kx16(nb int, w []byte, wStride, rows int, dst []byte) {
	packK6x(nb, w, wStride, rows, dst, false)
}

// Q6_Kx16A, the AVX2 path's stored Q6_K, is Q6_Kx16 with each byte i of a lane's three dwords of a half
// holding whole quants: with q0…q3 the unsigned quants of quarters 0…3 at that byte (elements 128h+32k+l),
// the bytes are x = q0 | (q3>>4)<<6, y = q1 | (q3>>2&3)<<6, z = q2 | (q3&3)<<6. Quarters 0…2 are then one
// AND each and quarter 3 eight shifts, ANDs and ORs, against the seventeen operations of Q6_Kx16's nibble
// and high-bit unpacking; the kernels are bound by that work, not by memory.

// packQ6_Kx16A stores one group of rows (at most GemmRows) of nb Q6_K super-blocks in the Q6_Kx16A layout;
// missing rows are zero.
func packQ6_Kx16A(nb int, w []byte, wStride, rows int, dst []byte) {
	packK6x(nb, w, wStride, rows, dst, true)
}

// packK6x stores a group in Q6_Kx16 or, whole, in Q6_Kx16A.
func packK6x(nb int, w []byte, wStride, rows int, dst []byte, whole bool) {
	le := binary.LittleEndian
	var zero [210]byte
	_ = dst[nb*k6xBlock-1]
	for r := 0; r < GemmRows; r++ {
		for b := 0; b < nb; b++ {
			x := zero[:]
			if r < rows {
				x = w[r*wStride+b*210 : r*wStride+b*210+210]
			}
			sd := dst[k6xSDAt(b) : k6xSDAt(b)+k6xSD]
			for g := 0; g < 16; g++ {
				sd[k6xScale(g, r)] = x[192+g]
			}
			sd[k6xD+2*r], sd[k6xD+2*r+1] = x[208], x[209]
			for m := 0; m < 8; m++ {
				q := dst[k6xQ(m, b)+4*r : k6xQ(m, b)+k6xLane]
				for h := 0; h < 2; h++ {
					l := 4 * m
					if whole { // the four bytes at once: no shift below carries a bit into another byte
						const lo, b2 = 0x0f0f0f0f, 0x03030303
						ql0, ql1, qh := le.Uint32(x[64*h+l:]), le.Uint32(x[64*h+32+l:]), le.Uint32(x[128+32*h+l:])
						q0 := ql0&lo | (qh&b2)<<4
						q1 := ql1&lo | (qh>>2&b2)<<4
						q2 := ql0>>4&lo | (qh>>4&b2)<<4
						q3 := ql1>>4&lo | (qh>>6&b2)<<4
						le.PutUint32(q[(3*h)*4*GemmRows:], q0|(q3>>4&b2)<<6)
						le.PutUint32(q[(3*h+1)*4*GemmRows:], q1|(q3>>2&b2)<<6)
						le.PutUint32(q[(3*h+2)*4*GemmRows:], q2|(q3&b2)<<6)
						continue
					}
					le.PutUint32(q[(3*h)*4*GemmRows:], le.Uint32(x[64*h+l:]))
					le.PutUint32(q[(3*h+1)*4*GemmRows:], le.Uint32(x[64*h+32+l:]))
					le.PutUint32(q[(3*h+2)*4*GemmRows:], le.Uint32(x[128+32*h+l:]))
				}
			}
		}
	}
}

// k6xQuant returns the unsigned 6-bit quant of row r, lane m, half h, quarter k, byte i (element
// 128h+32k+4m+i) from the stored lane q (k6xQ).
func k6xQuant(q []byte, r, h, k, i int) int32 {
	lo := q[(3*h+k%2)*4*GemmRows+4*r+i] >> (4 * (k / 2)) & 0xf
	hi := q[(3*h+2)*4*GemmRows+4*r+i] >> (2 * k) & 3
	return int32(lo | hi<<4)
}

// k6xaQuant is k6xQuant for the Q6_Kx16A layout.
func k6xaQuant(q []byte, r, h, k, i int) int32 {
	b := func(j int) int32 { return int32(q[(3*h+j)*4*GemmRows+4*r+i]) }
	if k < 3 {
		return b(k) & 63
	}
	return b(0)>>6<<4 | b(1)>>6<<2 | b(2)>>6
}

// mulQ6_Kx16Ref is the scalar reference of the Q6_Kx16 kernels: DotQ6_KQ8_K of each of the first rows rows
// of one stored group (nb super-blocks) with each of cols Q8_K rows, read from the stored layout.
func mulQ6_Kx16Ref(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	mulK6xRef(k6xQuant, nb, p, a, aStride, cols, out, outStride, rows)
}

// mulQ6_Kx16ARef is mulQ6_Kx16Ref for the Q6_Kx16A layout.
func mulQ6_Kx16ARef(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	mulK6xRef(k6xaQuant, nb, p, a, aStride, cols, out, outStride, rows)
}

// mulK6xRef is the reference of both layouts, their quants read with quant.
func mulK6xRef(quant func(q []byte, r, h, k, i int) int32, nb int, p, a []byte, aStride, cols int, out []float32,
	outStride, rows int) {
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			var acc [8]float32
			for b := 0; b < nb; b++ {
				yd, q8, bs := q8KBlock(a[c*aStride:], b)
				sd := p[k6xSDAt(b):]
				sc := func(g int) int32 { return int32(int8(sd[k6xScale(g, r)])) }
				d := yd * f16at(sd, k6xD+2*r)
				for m := 0; m < 8; m++ {
					q := p[k6xQ(m, b):]
					var lane int32
					for h := 0; h < 2; h++ {
						for k := 0; k < 4; k++ {
							for i := 0; i < 4; i++ {
								e := 128*h + 32*k + 4*m + i
								lane += sc(e/16) * quant(q, r, h, k, i) * int32(int8(q8[e]))
							}
						}
					}
					lane -= 32 * (sc(2*m)*int32(bsum(bs, 2*m)) + sc(2*m+1)*int32(bsum(bs, 2*m+1)))
					acc[m] = fma32(d, float32(lane), acc[m])
				}
			}
			out[c*outStride+r] = hsum8(&acc)
		}
	}
}
