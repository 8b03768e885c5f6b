package quant

import "encoding/binary"

// IQ4_XS in the vec_dot order ("IQ4_XSx16", see gemm_stored.go), for decoding: DotIQ4_XSQ8_K's eight integer
// lanes (lane m sums (scale−32)·q·y over bytes 4m…4m+3 of each sub-block's 32 elements, m < 4 the low
// nibbles of quant bytes 4m…4m+3, m ≥ 4 the high nibbles of bytes 4(m−4)…4(m−4)+3) for 16 rows at once. A
// stored group of nb super-blocks is the 16 rows' blocks of 136 bytes rearranged into nb·2208 (1.5% more),
// per super-block:
//
//	d      [GemmRows]uint16          the rows' f16 super-block scales
//	scales [8][GemmRows]int8         sub-block k's scale − 32 of every row
//	qs     [8][4][GemmRows][4]uint8  sub-block k, dword j: quant bytes 4j…4j+3 of the sub-block of every
//	                                 row (lane j in the low nibbles, lane j+4 in the high ones)
//
// The kernel looks each nibble up as its value + 128 (unsigned, for VPDPBUSD), multiplies four of them with
// the broadcast activation dword of their lane into an accumulator that starts at −128·(the dword's sum), so
// that it holds the lane's exact Σ q·y of the sub-block, scales it (VPMULLD) into the lane's sum, and does each
// lane's float work as the reference does: every lane of a vector is a row. The activations are the Q8_K
// blocks at the start of the IQ4_XS Gemm's Q8_KL blocks. The Gemm keeps IQ4_XSL (packed per pass) for
// products of more than ix4xMaxCols activation rows (Gemm.StoredCols).
const (
	ix4xScales = 2 * GemmRows
	ix4xQs     = ix4xScales + 8*GemmRows
	ix4xBlock  = ix4xQs + 128*GemmRows
)

// ix4xMaxCols is the most activation rows the IQ4_XSx16 kernels take a product of, one column at a time; more
// pack IQ4_XSL per pass. BenchmarkGemmSmall (256×2048 in cache, one core) iq4_xs stored against packed: with
// VNNI 65 G elements/s at any column count against 39, 55 and 70 at 8, 16 and 32 columns; with AVX2 alone 43
// against 29–33, 37–45 and 43–58.
const ix4xMaxCols = 16

// ix4xQ returns the offset of dword j of sub-block k of row r in a stored super-block.
func ix4xQ(k, j, r int) int { return ix4xQs + (4*k+j)*4*GemmRows + 4*r }

// zeroIQ4 is the IQ4_XS block of the rows past a group's last: d 0, every scale −32, quants 0.
var zeroIQ4 [136]byte

// packIQ4_XSx16 stores one group of rows (at most GemmRows) of nb IQ4_XS super-blocks in the IQ4_XSx16
// layout.
func packIQ4_XSx16(nb int, w []byte, wStride, rows int, dst []byte) {
	le := binary.LittleEndian
	_ = dst[nb*ix4xBlock-1]
	for r := 0; r < GemmRows; r++ {
		for b := 0; b < nb; b++ {
			x := zeroIQ4[:]
			if r < rows {
				x = w[r*wStride+b*136 : r*wStride+b*136+136]
			}
			p := dst[b*ix4xBlock : (b+1)*ix4xBlock]
			p[2*r], p[2*r+1] = x[0], x[1]
			for k := 0; k < 8; k++ {
				p[ix4xScales+k*GemmRows+r] = byte(int8(iq4xsScale(x, k) - 32))
				for j := 0; j < 4; j++ {
					le.PutUint32(p[ix4xQ(k, j, r):], le.Uint32(x[8+16*k+4*j:]))
				}
			}
		}
	}
}

// mulIQ4_XSx16Ref is the scalar reference of the IQ4_XSx16 kernel: DotIQ4_XSQ8_K of each of the first rows rows
// of one stored group (nb super-blocks) with each of cols Q8_KL rows, read from the stored layout.
func mulIQ4_XSx16Ref(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			var acc [8]float32
			for b := 0; b < nb; b++ {
				x, y := p[b*ix4xBlock:(b+1)*ix4xBlock], a[c*aStride+b*q8klBlock:]
				q8 := y[4 : 4+QKK]
				var lanes [8]int32
				for k := 0; k < 8; k++ {
					ls := int32(int8(x[ix4xScales+k*GemmRows+r]))
					for j := 0; j < 16; j++ {
						q := x[ix4xQ(k, j/4, r)+j%4]
						lanes[j/4] += ls * int32(int8(q8[32*k+j])) * int32(kvaluesIQ4[q&0xf])
						lanes[4+j/4] += ls * int32(int8(q8[32*k+16+j])) * int32(kvaluesIQ4[q>>4])
					}
				}
				d := f16at(x, 2*r) * f32at(y, 0)
				for m := range acc {
					acc[m] = fma32(d, float32(lanes[m]), acc[m])
				}
			}
			out[c*outStride+r] = hsum8(&acc)
		}
	}
}
