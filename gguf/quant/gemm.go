package quant

// Batched matrix multiplication: many activation rows against a group of weight rows at once.
//
// DotFunc computes one weight row against one activation row; a matrix multiply built from it reads every
// weight block once per activation row and spends much of its time unpacking quants and reducing SIMD lanes.
// A Gemm instead packs GemmRows weight rows into a scratch buffer, transposed so that each SIMD lane holds one
// weight row (the layout ggml's "repack" CPU buffers use, but built on the fly per group rather than stored),
// and then runs a register-tiled kernel over the activation rows: each 4-byte group of an activation block
// is broadcast to all lanes and multiplied into all rows at once, and the per-block float work is done once
// for all the group's rows.
//
// The activations are quantized with Gemm.QuantizeActivation into a layout of the kernel's own (the same
// quants and scales as QuantizeActivation(ActivationType(w)), with the scale widened to float32 and the
// block's quant sum precomputed). For the 32-element formats the kernels then add up each row exactly as the
// scalar reference does — the same integer block sums, scaled and accumulated in the same float32 order —
// so Gemm.Mul equals RefDotFunc(w) bit for bit.

import "fmt"

// GemmRows is the number of weight rows a Gemm packs and computes together.
const GemmRows = 16

// Gemm is the batched kernel for one weight type. It is stateless and safe for concurrent use; each caller
// passes its own scratch buffer.
type Gemm struct {
	w         Type
	actBlock  int // bytes per activation block
	packBlock int // bytes per packed block of GemmRows rows
	quantize  func(src []float32, dst []byte)
	pack      func(nb int, w []byte, wStride, rows int, dst []byte)
	kernel    func(nb int, packed, a []byte, aStride, cols int, out []float32, outStride, rows int)
}

// gemms holds the kernels this CPU has, filled during initialisation (gemm_amd64.go). Read-only after init.
var gemms = map[Type]*Gemm{}

// GemmFor returns the batched kernel for weight type w on this CPU, or nil when there is none (then a matrix
// multiply should call DotFunc(w) per row pair).
func GemmFor(w Type) *Gemm { return gemms[w] }

// Weight returns the weight type the Gemm multiplies.
func (g *Gemm) Weight() Type { return g.w }

// ActivationRowBytes returns the size of an activation row of n elements in the Gemm's layout.
func (g *Gemm) ActivationRowBytes(n int) int { return n / g.w.BlockElems() * g.actBlock }

// ScratchBytes returns the scratch a Mul over rows of n elements needs.
func (g *Gemm) ScratchBytes(n int) int { return n / g.w.BlockElems() * g.packBlock }

// QuantizeActivation quantizes one activation row (len(src) a multiple of the weight's block size) into dst,
// which must hold ActivationRowBytes(len(src)) bytes.
func (g *Gemm) QuantizeActivation(src []float32, dst []byte) {
	g.quantize(src, dst[:g.ActivationRowBytes(len(src))])
}

// Mul sets out[c*outStride+r] to the dot product of weight row r (w[r*wStride:], type g.Weight(), n
// elements) with activation row c (a[c*aStride:], made by g.QuantizeActivation), for r < rows and c < cols.
// scratch must hold ScratchBytes(n) bytes. Mul panics (index out of range) rather than read or write outside
// the slices.
func (g *Gemm) Mul(n int, w []byte, wStride, rows int, a []byte, aStride, cols int, out []float32, outStride int, scratch []byte) {
	be := g.w.BlockElems()
	if n <= 0 || n%be != 0 || rows <= 0 || cols <= 0 {
		if n < 0 || n%be != 0 {
			panic(fmt.Sprintf("quant: gemm: %d elements is not a multiple of %d", n, be))
		}
		return
	}
	nb := n / be
	wRow := nb * g.w.BlockBytes()
	aRow := nb * g.actBlock
	// Bounds: every weight and activation row and every output element must be inside its slice.
	_ = w[(rows-1)*wStride+wRow-1]
	_ = a[(cols-1)*aStride+aRow-1]
	_ = out[(cols-1)*outStride+rows-1]
	if wStride < wRow || aStride < aRow || outStride < rows {
		panic("quant: gemm: overlapping rows")
	}
	if len(scratch) < nb*g.packBlock {
		panic(fmt.Sprintf("quant: gemm: scratch of %d bytes, need %d", len(scratch), nb*g.packBlock))
	}
	packed := scratch[:nb*g.packBlock]
	for r0 := 0; r0 < rows; r0 += GemmRows {
		nr := min(GemmRows, rows-r0)
		g.pack(nb, w[r0*wStride:], wStride, nr, packed)
		g.kernel(nb, packed, a, aStride, cols, out[r0:], outStride, nr)
	}
}

// Activation layout of the 32-element formats ("Q8_0S"): 40 bytes per block
//
//	d    float32   the Q8_0 scale, rounded to f16 as QuantizeQ8_0 stores it, then widened
//	corr int32     −off·Σqs, off being the weight quants' offset in the packed layout below
//	qs   [32]int8  the Q8_0 quants
const q8sBlock = 40

// quantizeQ8S quantizes like QuantizeQ8_0 into the Q8_0S layout with offset off.
func quantizeQ8S(off int) func(src []float32, dst []byte) {
	header := func(b []byte, d float32, sum int) {
		putF32(b, 0, F16ToF32(F32ToF16(d)))
		putU32(b, 4, uint32(int32(-off*sum)))
	}
	return func(src []float32, dst []byte) { quantizeQ8x86Blocks(src, dst, q8sBlock, 8, header) }
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

func putU32(b []byte, off int, v uint32) {
	b[off], b[off+1], b[off+2], b[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func getU32(b []byte, off int) uint32 {
	return uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24
}

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

func packQ5_0(nb int, w []byte, wStride, rows int, dst []byte) {
	packRows(nb, w, wStride, rows, 22, dst, func(p []byte, r int, blk []byte) {
		putF32(p, q8PackD+4*r, f16at(blk, 0))
		qh := getU32(blk, 2)
		for g := 0; g < 4; g++ {
			v := getU32(blk, 6+4*g)
			lo, hi := v&0x0f0f0f0f, v>>4&0x0f0f0f0f
			for k := 0; k < 4; k++ {
				lo |= (qh >> (4*g + k) & 1) << (8*k + 4)
				hi |= (qh >> (16 + 4*g + k) & 1) << (8*k + 4)
			}
			putU32(p, g*4*GemmRows+4*r, lo)
			putU32(p, (g+4)*4*GemmRows+4*r, hi)
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
