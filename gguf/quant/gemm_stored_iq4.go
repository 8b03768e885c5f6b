package quant

import "encoding/binary"

// IQ4_XS in the repacked order ("IQ4_XSx16", see gemm_stored.go), for DotIQ4_XSQ8_KPanel: per super-block
// of 256 elements, the 16 rows' blocks of 136 bytes rearranged into 2240 (2.9% more than the original, so
// that every block and its quants start on a 64-byte line)
//
//	d  [GemmRows]float32       the rows' super-block scales (f16 widened, exact)
//	ls [8][GemmRows]int8       sub-block k's scale − 32 of every row
//	qs [32][GemmRows][4]uint8  quant dword s = 4k+t of every row: bytes 16k+4t…16k+4t+3 of the row's qs,
//	                           whose low nibbles index elements 32k+4t…32k+4t+3 of sub-block k and high
//	                           nibbles elements 32k+16+4t…32k+16+4t+3
//
// The kernels turn the nibbles of a stored dword vector into table values plus 128 (unsigned bytes, one
// VPSHUFB on kvaluesIQ4+128, or VPERMB in the single-column kernel where the CPU has VBMI) and multiply them with one broadcast activation dword each (VPDPBUSD) into the
// sub-block's sum, which starts at −128·Σy of the sub-block's 32 activations (Q8_KX's corrections) so that it
// ends at Σ kvalue·y exactly; times the sub-block scale (VPMULLD), added up into the super-block's sum, and
// fused per super-block with d·d_y as DotIQ4_XSQ8_KPanel does, lane by lane.
const (
	ix4Ls    = 4 * GemmRows
	ix4Qs    = ix4Ls + 8*GemmRows
	ix4Block = ix4Qs + 128*GemmRows
)

// Activation layout ("Q8_KX"), 292 bytes per 256 elements, Q8_K's size:
//
//	d    float32    the Q8_K block's scale
//	qs   [256]int8  its quants
//	corr [8]int32   −128 times the sum of sub-block k's 32 quants (in place of Q8_K's bsums)
//
// d and qs are where Q8_K has them, so the single-row kernels of DotIQ4_XSQ8_KPanel read Q8_KX rows as they
// are.
const (
	q8kxCorr  = 260
	q8kxBlock = q8kxCorr + 32
)

// quantizeQ8KX quantizes src into Q8_KX blocks, the corrections from Q8_K's bsums (each the exact sum of its
// 16 quants; TestGemmExact checks the result against q8kxFromQ8_K's sums of the quants).
func quantizeQ8KX(src []float32, dst []byte) {
	QuantizeQ8_K(src, dst)
	for b := 0; b < len(src)/QKK; b++ {
		y := (*[q8kxBlock]byte)(dst[b*q8kxBlock:])
		var corr [8]int32
		for k := range corr {
			corr[k] = -128 * int32(bsum(y[260:], 2*k)+bsum(y[260:], 2*k+1))
		}
		for k, c := range corr {
			binary.LittleEndian.PutUint32(y[q8kxCorr+4*k:], uint32(c))
		}
	}
}

// q8kxFromQ8_K converts a Q8_K activation row into Q8_KX, keeping every quant and scale; the corrections are
// summed from the quants (a Q8_K row of random bytes has bsums that are not its sums).
func q8kxFromQ8_K(ref, dst []byte) {
	copy(dst, ref)
	for b := 0; b < len(ref)/292; b++ {
		y := dst[b*q8kxBlock : (b+1)*q8kxBlock]
		for k := 0; k < 8; k++ {
			s := int32(0)
			for _, q := range y[4+32*k : 4+32*k+32] {
				s += int32(int8(q))
			}
			binary.LittleEndian.PutUint32(y[q8kxCorr+4*k:], uint32(-128*s))
		}
	}
}

// packIQ4_XSx16 stores one group of rows (at most GemmRows) of nb IQ4_XS super-blocks in the IQ4_XSx16
// layout; missing rows are zero.
func packIQ4_XSx16(nb int, w []byte, wStride, rows int, dst []byte) {
	for b := 0; b < nb; b++ {
		p := dst[b*ix4Block : (b+1)*ix4Block]
		for r := 0; r < GemmRows; r++ {
			if r < rows {
				packIQ4_XSx16Lane(p, r, w[r*wStride+b*136:r*wStride+b*136+136])
				continue
			}
			putF32(p, 4*r, 0)
			for k := 0; k < 8; k++ {
				p[ix4Ls+k*GemmRows+r] = 0
			}
			for s := 0; s < 32; s++ {
				putU32(p, ix4Qs+(s*GemmRows+r)*4, 0)
			}
		}
	}
}

// packIQ4_XSx16Lane writes lane r of stored super-block p from the IQ4_XS block x.
func packIQ4_XSx16Lane(p []byte, r int, x []byte) {
	le := binary.LittleEndian
	_, _ = p[ix4Block-1], x[135]
	putF32(p, 4*r, f16at(x, 0))
	h, l := uint32(le.Uint16(x[2:])), le.Uint32(x[4:])
	for k := 0; k < 8; k++ {
		p[ix4Ls+k*GemmRows+r] = byte(l>>(4*k)&15|h>>(2*k)&3<<4) - 32
	}
	q, qs := (*[31*4*GemmRows + 4]byte)(p[ix4Qs+4*r:]), (*[128]byte)(x[8:])
	for s := 0; s < 32; s++ {
		le.PutUint32(q[s*4*GemmRows:], le.Uint32(qs[4*s:]))
	}
}

// mulIQ4_XSx16Ref is the scalar reference of the IQ4_XSx16 kernels: DotIQ4_XSQ8_KPanel of each of the first
// rows rows of one stored group (nb super-blocks) with each of cols Q8_KX rows, read from the stored layout.
func mulIQ4_XSx16Ref(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			var acc float32
			for b := 0; b < nb; b++ {
				x, y := p[b*ix4Block:(b+1)*ix4Block], a[c*aStride+b*q8kxBlock:c*aStride+(b+1)*q8kxBlock]
				var s int32
				for k := 0; k < 8; k++ {
					t := int32(binary.LittleEndian.Uint32(y[q8kxCorr+4*k:])) // −128·Σy
					for j := 0; j < 16; j++ {
						v := x[ix4Qs+((4*k+j/4)*GemmRows+r)*4+j%4]
						t += (int32(kvaluesIQ4[v&15]) + 128) * int32(int8(y[4+32*k+j]))
						t += (int32(kvaluesIQ4[v>>4]) + 128) * int32(int8(y[4+32*k+16+j]))
					}
					s += int32(int8(x[ix4Ls+k*GemmRows+r])) * t
				}
				acc = fma32(float32(s), f32at(x, 4*r)*f32at(y, 0), acc)
			}
			out[c*outStride+r] = acc
		}
	}
}
