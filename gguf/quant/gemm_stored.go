package quant

import (
	"encoding/binary"
	"fmt"
)

// Stored layouts: a Gemm that has one multiplies weights rearranged once (Gemm.Pack, when a matrix is
// loaded) instead of packing each group of rows on every pass. A stored matrix is its groups of GemmRows
// rows one after another, the last padded with zero rows; the layout of a group is the Gemm's own (Q4_K's
// in gemm_stored_k4.go).
//
// Q4_0 in the repacked order ("Q4_0x16"): per block of 32 elements, the 16 rows' blocks of 18 bytes
// rearranged into 288 bytes (the size of the original, so decoding reads as many bytes as before)
//
//	d  [GemmRows]uint16      the rows' f16 scales
//	qs [4][GemmRows][4]uint8 dword k (quant bytes 4k…4k+3) of every row: lane r of a 512-bit load is row r
//
// which is what the gathers of gemvQ4_0R16 and packQ4_0G assemble in registers, read with plain loads.
//
// Q8_0 in the vec_dot order ("Q8_0x16"): per block, the 16 rows' blocks of 34 bytes rearranged into 544
//
//	d  [GemmRows]uint16      the rows' f16 scales
//	qs [8][GemmRows][4]uint8 dword g (quants 4g…4g+3) of every row, each quant stored unsigned (q+128)
//
// which is packQ8_0's layout with f16 scales. The AVX2 kernels (gemm_avx2_amd64.go) store the same blocks
// with the quants as they are (signed, "Q8_0x16S"): their VPMADDUBSW takes |q| and moves the signs to the
// activations (VPSIGNB), for which it needs the weight's signs.
const (
	q4xQs    = 2 * GemmRows
	q4xBlock = q4xQs + 16*GemmRows
	q8xQs    = 2 * GemmRows
	q8xBlock = q8xQs + 32*GemmRows
)

// PackedBytes returns the size of rows weight rows of n elements in the Gemm's stored layout (rows rounded up
// to whole groups of GemmRows), or 0 when the Gemm has no stored layout. For a multiple of GemmRows, it is
// also the offset of row rows in a stored matrix.
func (g *Gemm) PackedBytes(n, rows int) int {
	if g.storedBlock == 0 || n <= 0 || rows <= 0 {
		return 0
	}
	return (rows + GemmRows - 1) / GemmRows * (n / g.w.BlockElems()) * g.storedBlock
}

// Pack writes rows weight rows of n elements (w[r*wStride:], type g.Weight()) into dst in the Gemm's stored
// layout; dst must hold PackedBytes(n, rows) bytes. It panics for a Gemm without one.
func (g *Gemm) Pack(n int, w []byte, wStride, rows int, dst []byte) {
	if g.storedBlock == 0 {
		panic(fmt.Sprintf("quant: gemm: no stored layout for %s", g.w))
	}
	nb, gb := g.blocks(n), g.PackedBytes(n, GemmRows)
	if nb == 0 || rows <= 0 {
		return
	}
	wRow := nb * g.w.BlockBytes()
	_ = w[(rows-1)*wStride+wRow-1]
	_ = dst[g.PackedBytes(n, rows)-1]
	if wStride < wRow {
		panic("quant: gemm: overlapping rows")
	}
	for r0 := 0; r0 < rows; r0 += GemmRows {
		g.store(nb, w[r0*wStride:], wStride, min(GemmRows, rows-r0), dst[r0/GemmRows*gb:(r0/GemmRows+1)*gb])
	}
}

// MulPacked is Mul with the weights in the Gemm's stored layout (packed, from Pack, starting at a group):
// out[c*outStride+r] for the first rows rows of packed and every activation row c < cols, with the bits of
// RefDot(g.Weight(), g.Order()). It needs no scratch, and panics (index out of range) rather than read or
// write outside the slices.
func (g *Gemm) MulPacked(n int, packed []byte, rows int, a []byte, aStride, cols int, out []float32, outStride int) {
	if g.storedBlock == 0 {
		panic(fmt.Sprintf("quant: gemm: no stored layout for %s", g.w))
	}
	nb := g.blocks(n)
	if nb == 0 || rows <= 0 || cols <= 0 {
		return
	}
	aRow := nb * g.actBlock
	_ = packed[g.PackedBytes(n, rows)-1]
	_ = a[(cols-1)*aStride+aRow-1]
	_ = out[(cols-1)*outStride+rows-1]
	if aStride < aRow || outStride < rows {
		panic("quant: gemm: overlapping rows")
	}
	gb := g.PackedBytes(n, GemmRows)
	tile := cols
	if g.tileBytes != 0 {
		tile = max(4, g.tileBytes/aRow&^3)
	}
	for c0 := 0; c0 < cols; c0 += tile {
		nc := min(tile, cols-c0)
		for r0 := 0; r0 < rows; r0 += GemmRows {
			g.storedMul(nb, packed[r0/GemmRows*gb:(r0/GemmRows+1)*gb], a[c0*aStride:], aStride, nc,
				out[c0*outStride+r0:], outStride, min(GemmRows, rows-r0))
		}
	}
}

// blocks returns the blocks of a row of n elements, panicking when n is not a whole number of them.
func (g *Gemm) blocks(n int) int {
	be := g.w.BlockElems()
	if n < 0 || n%be != 0 {
		panic(fmt.Sprintf("quant: gemm: %d elements is not a multiple of %d", n, be))
	}
	return n / be
}

// packQ4_0x16 stores one group of rows (at most GemmRows) of nb Q4_0 blocks in the Q4_0x16 layout.
func packQ4_0x16(nb int, w []byte, wStride, rows int, dst []byte) {
	le := binary.LittleEndian
	for r := 0; r < GemmRows; r++ {
		var row []byte
		if r < rows {
			row = w[r*wStride : r*wStride+nb*18]
		}
		for b := 0; b < nb; b++ {
			p := dst[b*q4xBlock : b*q4xBlock+q4xBlock]
			o := q4xQs + 4*r
			if row == nil { // a missing row: zero
				p[2*r], p[2*r+1] = 0, 0
				for k := 0; k < 4; k++ {
					le.PutUint32(p[o+k*4*GemmRows:], 0)
				}
				continue
			}
			blk := row[b*18 : b*18+18]
			p[2*r], p[2*r+1] = blk[0], blk[1]
			le.PutUint32(p[o:], le.Uint32(blk[2:]))
			le.PutUint32(p[o+4*GemmRows:], le.Uint32(blk[6:]))
			le.PutUint32(p[o+8*GemmRows:], le.Uint32(blk[10:]))
			le.PutUint32(p[o+12*GemmRows:], le.Uint32(blk[14:]))
		}
	}
}

// mulQ4_0x16Ref is the scalar reference of the Q4_0x16 kernels: DotQ4_0Q8_0Interleaved of each of the first
// rows rows of one stored group (nb blocks) with each of cols Q8_0S rows, read from the stored layout.
func mulQ4_0x16Ref(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			var acc float32
			for b := 0; b < nb; b++ {
				x, y := p[b*q4xBlock:(b+1)*q4xBlock], a[c*aStride+b*q8sBlock:c*aStride+(b+1)*q8sBlock]
				s := int32(0)
				for j := 0; j < QK/2; j++ {
					q := x[q4xQs+j/4*4*GemmRows+4*r+j%4]
					s += (int32(q&15) - 8) * int32(int8(y[8+j]))
					s += (int32(q>>4) - 8) * int32(int8(y[24+j]))
				}
				acc = fma32(float32(s), f16at(x, 2*r)*f32at(y, 0), acc)
			}
			out[c*outStride+r] = acc
		}
	}
}

// packQ8_0x16 stores one group of rows (at most GemmRows) of nb Q8_0 blocks in the Q8_0x16 layout.
func packQ8_0x16(nb int, w []byte, wStride, rows int, dst []byte) {
	packQ8x16(nb, w, wStride, rows, dst, 0x80808080)
}

// packQ8_0x16S stores one group of rows of nb Q8_0 blocks in the Q8_0x16S layout (quants signed).
func packQ8_0x16S(nb int, w []byte, wStride, rows int, dst []byte) {
	packQ8x16(nb, w, wStride, rows, dst, 0)
}

// packQ8x16 stores one group of rows of nb Q8_0 blocks in the Q8_0x16 arrangement, each quant dword xored
// with flip (0x80808080: unsigned q+128; 0: signed).
func packQ8x16(nb int, w []byte, wStride, rows int, dst []byte, flip uint32) {
	le := binary.LittleEndian
	for r := 0; r < GemmRows; r++ {
		var row []byte
		if r < rows {
			row = w[r*wStride : r*wStride+nb*34]
		}
		for b := 0; b < nb; b++ {
			p := dst[b*q8xBlock : b*q8xBlock+q8xBlock]
			o := q8xQs + 4*r
			if row == nil { // a missing row: zero
				p[2*r], p[2*r+1] = 0, 0
				for g := 0; g < 8; g++ {
					le.PutUint32(p[o+g*4*GemmRows:], 0)
				}
				continue
			}
			blk := row[b*34 : b*34+34]
			p[2*r], p[2*r+1] = blk[0], blk[1]
			for g := 0; g < 8; g++ {
				le.PutUint32(p[o+g*4*GemmRows:], le.Uint32(blk[2+4*g:])^flip)
			}
		}
	}
}

// mulQ8_0x16Ref is the scalar reference of the Q8_0x16 kernels: DotQ8_0Q8_0 of each of the first rows rows of
// one stored group (nb blocks) with each of cols Q8_0G rows, read from the stored layout.
func mulQ8_0x16Ref(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	mulQ8x16Ref(nb, p, a, aStride, cols, out, outStride, rows, func(q byte) int32 { return int32(q) - 128 }, q8gBlock, 36)
}

// mulQ8_0x16SRef is the scalar reference of the Q8_0x16S kernels: DotQ8_0Q8_0 of each of the first rows rows
// of one stored group with each of cols Q8_0S rows.
func mulQ8_0x16SRef(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	mulQ8x16Ref(nb, p, a, aStride, cols, out, outStride, rows, func(q byte) int32 { return int32(int8(q)) }, q8sBlock, 8)
}

// mulQ8x16Ref is DotQ8_0Q8_0 on a stored Q8_0x16 group whose bytes quant reads, against activation blocks of
// aBlock bytes (the scale a float32 at 0, the quants at aQs).
func mulQ8x16Ref(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int, quant func(byte) int32, aBlock, aQs int) {
	var q [QK]int32
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			var l lanes8
			for b := 0; b < nb; b++ {
				x, y := p[b*q8xBlock:(b+1)*q8xBlock], a[c*aStride+b*aBlock:c*aStride+(b+1)*aBlock]
				for j := range q {
					q[j] = quant(x[q8xQs+j/4*4*GemmRows+4*r+j%4])
				}
				l.add(f16at(x, 2*r)*f32at(y, 0), &q, y[aQs:])
			}
			out[c*outStride+r] = l.sum()
		}
	}
}
