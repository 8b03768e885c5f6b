package quant

import "encoding/binary"

// MXFP4 in the stored order ("MXFP4x16", see gemm_stored.go): per block of 32 elements, the 16 rows' blocks of
// 17 bytes rearranged into 272
//
//	e  [GemmRows]uint8        the rows' exponents
//	qs [4][GemmRows][4]uint8  dword t of every row: bytes 4t…4t+3 of its qs (elements 4t…4t+3 in the low
//	                          nibbles, 16+4t…16+4t+3 in the high ones)
//
// so that one 512-bit load holds the same four bytes of every row, for VPDPBUSD with a broadcast activation
// dword, as in Q4_0x16. The kernels look the nibbles up as kvaluesMXFP4+12 (unsigned, 0…24), take 12·Σa back
// out with Q8_0S's correction (−8·Σa, times 3/2), and do each row's DotMXFP4Q8_0 float steps in its lane:
// d = yd·e8m0Half(e), the product d·float32(sum) and its addition to the row's running sum, each rounded.
const (
	mxxQs    = GemmRows
	mxxBlock = mxxQs + 16*GemmRows
)

// packMXFP4x16 stores one group of rows (at most GemmRows) of nb MXFP4 blocks in the MXFP4x16 layout; the
// rows past rows are zero.
func packMXFP4x16(nb int, w []byte, wStride, rows int, dst []byte) {
	le := binary.LittleEndian
	for r := 0; r < GemmRows; r++ {
		var row []byte
		if r < rows {
			row = w[r*wStride : r*wStride+nb*17]
		}
		for b := 0; b < nb; b++ {
			p := dst[b*mxxBlock : b*mxxBlock+mxxBlock]
			o := mxxQs + 4*r
			if row == nil {
				p[r] = 0
				for t := 0; t < 4; t++ {
					le.PutUint32(p[o+4*GemmRows*t:], 0)
				}
				continue
			}
			x := row[b*17 : b*17+17]
			p[r] = x[0]
			le.PutUint32(p[o:], le.Uint32(x[1:]))
			le.PutUint32(p[o+4*GemmRows:], le.Uint32(x[5:]))
			le.PutUint32(p[o+8*GemmRows:], le.Uint32(x[9:]))
			le.PutUint32(p[o+12*GemmRows:], le.Uint32(x[13:]))
		}
	}
}

// mulMXFP4x16Ref is the scalar reference of the MXFP4x16 kernels: DotMXFP4Q8_0 of each of the first rows
// rows of one stored group (nb blocks) with each of cols Q8_0S rows, read from the stored layout.
func mulMXFP4x16Ref(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			var sum float32
			for b := 0; b < nb; b++ {
				x, y := p[b*mxxBlock:(b+1)*mxxBlock], a[c*aStride+b*q8sBlock:c*aStride+(b+1)*q8sBlock]
				s := 0
				for j := 0; j < QK/2; j++ {
					q := x[mxxQs+j/4*4*GemmRows+4*r+j%4]
					s += int(kvaluesMXFP4[q&15]) * int(int8(y[8+j]))
					s += int(kvaluesMXFP4[q>>4]) * int(int8(y[24+j]))
				}
				sum += float32(float32(f32at(y, 0)*e8m0Half(x[r])) * float32(s))
			}
			out[c*outStride+r] = sum
		}
	}
}
