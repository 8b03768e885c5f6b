package quant

import "encoding/binary"

// Q5_K in the vec_dot order ("Q5_Kx16", see gemm_stored.go), for DotQ5_KQ8_K's AVX2 lanes: per super-block,
// integer lane m (0…7) of a (row, column) pair sums scale·q·y over the elements e with e%32/4 = m and is
// fused into float32 accumulator m with d·d_y; the super-block's whole minimum term Σ min_j·(bsum 2j + bsum
// 2j+1) is fused into one more accumulator with −dmin·d_y; hsum_float_8 of the eight plus that one at the end.
//
// A stored group of nb super-blocks is the 16 rows' blocks of 176 bytes rearranged into nb·2880 (2.3% more
// than the original, the scales and minimums unpacked to bytes), per super-block:
//
//	q      [8][5][GemmRows][4]uint8  lane m: the dwords of row r at l = 4m…4m+3 of qs[32k+l] (k = 0…3, the
//	                                 low nibbles group 2k's quants, the high ones group 2k+1's) and of qh[l]
//	                                 (bit j: group j's fifth bit)
//	scales [4][GemmRows][2]uint8     j: the 6-bit scales of groups j and j+4 of every row
//	mins   [8][GemmRows]uint8        j: the 6-bit minimum of group j of every row
//	d      [GemmRows]uint16          the rows' f16 super-block scales
//	dmin   [GemmRows]uint16          the rows' f16 super-block minimum scales
//
// The kernels unpack a lane's eight groups of unsigned 5-bit quants from the five dwords (groups j and j+4
// take their fifth bits from bits 0 and 4 of (qh >> j) & 0x11, which needs no mask after the bit select),
// multiply each with its column's broadcast activation dword (VPDPBUSD: at most 4·31·128 in magnitude, an
// int16), put the sums of groups j and j+4 into the two words of a dword and multiply-add them with their
// scales into the lane (VPDPWSSD), and do the lane's float work; the minimum term is a VPDPWSSD of each
// group's minimum, in both words of a dword, with the broadcast bsum pair of the group. Every lane of a vector
// is a row, and its integer sums are exact. The activations are plain Q8_K blocks.
const (
	k5xLane   = 5 * 4 * GemmRows // bytes of one lane of one super-block
	k5xMins   = 4 * 2 * GemmRows // offset of the minimums in a super-block's scales, minimums and d
	k5xD      = k5xMins + 8*GemmRows
	k5xDmin   = k5xD + 2*GemmRows
	k5xSD     = k5xDmin + 2*GemmRows // bytes of one super-block's scales, minimums and d
	k5xBlock  = 8*k5xLane + k5xSD
	k5xQhWord = 4 * 4 * GemmRows // offset of the qh dwords in a lane
)

// k5xQ returns the offset of lane m of super-block b in a stored group.
func k5xQ(m, b int) int { return b*k5xBlock + k5xSD + m*k5xLane }

// k5xSDAt returns the offset of super-block b's scales, minimums and d in a stored group.
func k5xSDAt(b int) int { return b * k5xBlock }

// k5xScale returns the offset of row r's scale of group j in a super-block's scales, minimums and d.
func k5xScale(j, r int) int { return j%4*2*GemmRows + 2*r + j/4 }

// packQ5_Kx16 stores one group of rows (at most GemmRows) of nb Q5_K super-blocks in the Q5_Kx16 layout;
// missing rows are zero.
func packQ5_Kx16(nb int, w []byte, wStride, rows int, dst []byte) {
	le := binary.LittleEndian
	var zero [176]byte
	_ = dst[nb*k5xBlock-1]
	for r := 0; r < GemmRows; r++ {
		for b := 0; b < nb; b++ {
			x := zero[:]
			if r < rows {
				x = w[r*wStride+b*176 : r*wStride+b*176+176]
			}
			sd := dst[k5xSDAt(b) : k5xSDAt(b)+k5xSD]
			for j := 0; j < 8; j++ {
				sd[k5xScale(j, r)], sd[k5xMins+j*GemmRows+r] = scaleMinK4(j, x[4:16])
			}
			sd[k5xD+2*r], sd[k5xD+2*r+1] = x[0], x[1]
			sd[k5xDmin+2*r], sd[k5xDmin+2*r+1] = x[2], x[3]
			for m := 0; m < 8; m++ {
				q := dst[k5xQ(m, b)+4*r : k5xQ(m, b)+k5xLane]
				for k := 0; k < 4; k++ {
					le.PutUint32(q[k*4*GemmRows:], le.Uint32(x[48+32*k+4*m:]))
				}
				le.PutUint32(q[k5xQhWord:], le.Uint32(x[16+4*m:]))
			}
		}
	}
}

// k5xQuant returns the unsigned 5-bit quant of row r, group j, byte i of a lane (element 32j+4m+i of lane m)
// from the stored lane q (k5xQ).
func k5xQuant(q []byte, r, j, i int) int32 {
	lo := q[j/2*4*GemmRows+4*r+i] >> (4 * (j % 2)) & 0xf
	hi := q[k5xQhWord+4*r+i] >> j & 1
	return int32(lo | hi<<4)
}

// mulQ5_Kx16Ref is the scalar reference of the Q5_Kx16 kernels: DotQ5_KQ8_K of each of the first rows rows
// of one stored group (nb super-blocks) with each of cols Q8_K rows, read from the stored layout.
func mulQ5_Kx16Ref(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			var acc [8]float32
			var summs float32
			for b := 0; b < nb; b++ {
				yd, q8, bs := q8KBlock(a[c*aStride:], b)
				sd := p[k5xSDAt(b):]
				var mins int32
				for j := 0; j < 8; j++ {
					mins += int32(sd[k5xMins+j*GemmRows+r]) * int32(bsum(bs, 2*j)+bsum(bs, 2*j+1))
				}
				summs = fma32(-(yd * f16at(sd, k5xDmin+2*r)), float32(mins), summs)
				d := yd * f16at(sd, k5xD+2*r)
				for m := 0; m < 8; m++ {
					q := p[k5xQ(m, b):]
					var lane int32
					for j := 0; j < 8; j++ {
						for i := 0; i < 4; i++ {
							lane += int32(sd[k5xScale(j, r)]) * k5xQuant(q, r, j, i) * int32(int8(q8[32*j+4*m+i]))
						}
					}
					acc[m] = fma32(d, float32(lane), acc[m])
				}
			}
			out[c*outStride+r] = hsum8(&acc) + summs
		}
	}
}
