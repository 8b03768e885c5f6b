package quant

// Gemm layouts of the 32-element formats (see gemm.go).

// Activation layout for the repacked Q4_0 order ("Q8_0S"), 40 bytes per block:
//
//	d    float32   the Q8_0 scale, rounded to f16 as QuantizeQ8_0 stores it, then widened
//	corr int32     −8·Σqs: the weight quants are packed unsigned (q+8), so this takes the offset back out
//	qs   [32]int8  the Q8_0 quants
const q8sBlock = 40

// Activation layout for the ggml_vec_dot order ("Q8_0G"), 68 bytes per block:
//
//	d    float32    as in Q8_0S
//	corr [8]int32   −off·Σ qs[4i…4i+3] per group of four, off being the weight quants' packing offset
//	qs   [32]int8   the Q8_0 quants
const q8gBlock = 68

// quantizeQ8S quantizes like QuantizeQ8_0 into the Q8_0S layout.
func quantizeQ8S(src []float32, dst []byte) {
	quantizeQ8x86Blocks(src, dst, q8sBlock, 8, func(b []byte, d float32, sum int) {
		putF32(b, 0, F16ToF32(F32ToF16(d)))
		putU32(b, 4, uint32(int32(-8*sum)))
	})
}

// q8gCorr sets the corrections of the Q8_0G blocks of b from their quants: q8gCorrRef, or its SIMD kernel.
var q8gCorr = q8gCorrRef

// q8gCorrRef sets corr[i] = −off·Σ qs[4i…4i+3] in each Q8_0G block of b.
func q8gCorrRef(b []byte, off int) {
	for ; len(b) >= q8gBlock; b = b[q8gBlock:] {
		for i := 0; i < 8; i++ {
			s := 0
			for _, q := range b[36+4*i : 40+4*i] {
				s += int(int8(q))
			}
			putU32(b, 4+4*i, uint32(int32(-off*s)))
		}
	}
}

// quantizeQ8G quantizes like QuantizeQ8_0 into the Q8_0G layout with weight offset off.
func quantizeQ8G(off int) func(src []float32, dst []byte) {
	return func(src []float32, dst []byte) {
		quantizeQ8x86Blocks(src, dst, q8gBlock, 36, func(b []byte, d float32, _ int) {
			putF32(b, 0, F16ToF32(F32ToF16(d)))
		})
		q8gCorr(dst[:len(src)/QK*q8gBlock], off)
	}
}

// q8sFromQ8_0 converts a Q8_0 activation row into Q8_0S, keeping every quant and scale.
func q8sFromQ8_0(ref, dst []byte) {
	for i := 0; i < len(ref)/34; i++ {
		x, y := ref[i*34:i*34+34], dst[i*q8sBlock:(i+1)*q8sBlock]
		putF32(y, 0, f16at(x, 0))
		s := 0
		for _, q := range x[2:] {
			s += int(int8(q))
		}
		putU32(y, 4, uint32(int32(-8*s)))
		copy(y[8:], x[2:])
	}
}

// q8gFromQ8_0 converts a Q8_0 activation row into Q8_0G with weight offset off.
func q8gFromQ8_0(off int) func(ref, dst []byte) {
	return func(ref, dst []byte) {
		for i := 0; i < len(ref)/34; i++ {
			x, y := ref[i*34:i*34+34], dst[i*q8gBlock:(i+1)*q8gBlock]
			copy(y[36:], x[2:])
			putF32(y, 0, f16at(x, 0))
		}
		q8gCorrRef(dst[:len(ref)/34*q8gBlock], off)
	}
}

// Packed layout of GemmRows rows of a 32-element format: per block 576 bytes
//
//	qs [8][GemmRows][4]uint8   group g (elements 4g…4g+3) of every row: lane r of a 512-bit load is row r
//	d  [GemmRows]float32       the rows' scales
//
// with quants stored unsigned: q + off, where the weight's value is d·q. Rows past the last are zero.
const (
	q8PackD     = 8 * GemmRows * 4 // offset of d
	q8PackBlock = q8PackD + 4*GemmRows
)

// packRows runs packBlock(dst block, row block) for each block of each row and zeroes the missing rows.
func packRows(nb int, w []byte, wStride, rows, wBlock int, dst []byte, packBlock func(p []byte, r int, blk []byte)) {
	for b := 0; b < nb; b++ {
		p := dst[b*q8PackBlock : b*q8PackBlock+q8PackBlock]
		for r := 0; r < GemmRows; r++ {
			if r >= rows {
				for g := 0; g <= 8; g++ { // the 8 quant groups and the scales
					putU32(p, g*4*GemmRows+4*r, 0)
				}
				continue
			}
			o := r*wStride + b*wBlock
			packBlock(p, r, w[o:o+wBlock])
		}
	}
}

func packQ4_0(nb int, w []byte, wStride, rows int, dst []byte) {
	packRows(nb, w, wStride, rows, 18, dst, func(p []byte, r int, blk []byte) {
		putF32(p, q8PackD+4*r, f16at(blk, 0))
		for g := 0; g < 4; g++ {
			v := getU32(blk, 2+4*g)
			putU32(p, g*4*GemmRows+4*r, v&0x0f0f0f0f)
			putU32(p, (g+4)*4*GemmRows+4*r, v>>4&0x0f0f0f0f)
		}
	})
}

func packQ8_0(nb int, w []byte, wStride, rows int, dst []byte) {
	packRows(nb, w, wStride, rows, 34, dst, func(p []byte, r int, blk []byte) {
		putF32(p, q8PackD+4*r, f16at(blk, 0))
		for g := 0; g < 8; g++ {
			putU32(p, g*4*GemmRows+4*r, getU32(blk, 2+4*g)^0x80808080)
		}
	})
}
