package quant

// Batched matrix multiplication: many weight rows against one or many activation rows, in one of the
// reference build's orders (see Order), with the reference's bits.
//
// A Gemm packs GemmRows weight rows at a time into a scratch buffer, transposed so that each SIMD lane holds
// one weight row (the layout of ggml's "repack" CPU buffers), and runs a register-tiled kernel over the
// activation rows: each 4-byte group of an activation block is broadcast to all lanes and multiplied into all
// rows at once. Because every lane is one weight row, each lane can follow the reference's float32
// operations for its (row, column) pair exactly: the integer sums are exact, and the float work is done in
// the same order with the same roundings as RefDot(w, o). For few activation rows (decoding) packing does not
// pay; a Gemm then streams the weights through a multi-row kernel of the same arithmetic where it has one,
// else through Dot(w, o).
//
// The kernels by CPU (amd64): with AVX-512 VNNI (gemm_amd64.go), Q4_0 and Q4_K in the repacked order (Q4_K's
// stored layout where the CPU also has VBMI) and Q8_0, Q5_K, Q6_K, IQ4_XS and MXFP4 in the vec_dot order, 16
// rows a 512-bit register; with AVX2, FMA and F16C but no VNNI (gemm_avx2_amd64.go, FORMA_CPU=avx2), Q4_0 and
// Q4_K in the repacked order and Q8_0, Q6_K and MXFP4 in the vec_dot order, 8 rows a 256-bit register, on
// their stored layouts, and Q5_K and IQ4_XS packed per pass. IQ4_XS's layout (gemm_iq4l.go) holds the quants
// times their scales as int16 pairs, lane by lane, and Mul packs several of its groups before it passes the
// activation rows over them (packGroups). F16 in the tiled order and BF16 in the vec_dot order (AVX-512F or
// AVX2) multiply the rows in place (gemm_float.go). Elsewhere (arm64, generic) there is none.
//
// Mul packs on the fly, per group and per call. A Gemm with a stored layout (gemm_stored.go: Q4_0 in the
// repacked order and Q8_0; gemm_stored_k4.go: Q4_K in the repacked order, where the CPU has VBMI;
// gemm_stored_mx.go: MXFP4; gemm_k5.go: Q5_K; gemm_k6.go: Q6_K; the last two's Mul packs into that same
// layout) also rearranges a whole matrix once (Pack, when a backend loads it) into interleaved groups about the
// original's size (Q4_K's 2.8% and Q5_K's 2.3% larger, their scales unpacked to bytes; Q6_K's the same size),
// and MulPacked multiplies from those with the same bits and no per-pass packing, for one activation row or
// many. IQ4_XS (gemm_stored_iq4.go, AVX-512 VNNI and AVX2) stores a layout for decoding only: products of fewer
// activation rows than its packed kernel takes go through it, larger ones still pack IQ4_XSL per pass
// (StoredCols).
//
// The activations are quantized with Gemm.QuantizeActivation into a layout of the Gemm's own: the same
// quants and scales as QuantizeActivation(ActivationType(w)), with the scale widened to float32 and integer
// corrections precomputed (see the layouts below).

import "fmt"

// GemmRows is the number of weight rows a Gemm packs and computes together.
const GemmRows = 16

// Gemm is the batched kernel for one weight type and order. It is stateless and safe for concurrent use;
// each caller passes its own scratch buffer.
type Gemm struct {
	w         Type
	o         Order
	actBlock  int // bytes per activation block
	packBlock int // bytes per packed block of GemmRows rows
	extra     int // scratch the kernel needs beyond the packed blocks
	quantize  func(src []float32, dst []byte)
	fromRef   func(ref, dst []byte) // converts an activation row of ActivationType(w) (tests)
	pack      func(nb int, w []byte, wStride, rows int, dst []byte)
	kernel    func(nb int, packed, a []byte, aStride, cols int, out []float32, outStride, rows int)
	// vec, if not nil, multiplies rows weight rows (checked by Mul) with one activation row without
	// packing; Mul uses it for fewer than minCols activation rows.
	vec     func(nb int, w []byte, wStride, rows int, a []byte, out []float32)
	minCols int
	// act127 says that the kernels take activation quants in −127…127 only: all that QuantizeActivation
	// makes, not every byte a Q8_0 row may hold (fromRef's input, in tests).
	act127 bool
	// storedBlock, if not 0, is the bytes per block of a group of GemmRows rows in the Gemm's stored layout
	// (see gemm_stored.go): store writes one group of rows in it, storedMul multiplies one stored group.
	storedBlock int
	store       func(nb int, w []byte, wStride, rows int, dst []byte)
	storedMul   func(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int)
	// storedCols, if not 0, is the most activation rows the stored layout serves (StoredCols): more are
	// multiplied by Mul from the original rows.
	storedCols int
	// direct, if not nil, multiplies the weight rows in place (no packing): Mul calls it instead of pack and
	// kernel (F16 in the tiled order, whose rows the kernel reads as they are).
	direct func(n int, w []byte, wStride, rows int, a []byte, aStride, cols int, out []float32, outStride int)
	// tileBytes, if not 0, makes MulPacked take the activation rows in tiles of about that many bytes (a
	// multiple of 4 rows), each through all the groups, so that a tile stays in the cache while the groups
	// pass instead of every group streaming all the activation rows.
	tileBytes int
	// packGroups, if more than 1, makes Mul pack up to that many groups (as many as packBytes holds) before
	// it multiplies them, in tiles of tileBytes of activation rows: each activation row then streams from
	// memory once per packGroups groups rather than once per group. For kernels without extra scratch.
	packGroups, packBytes int
}

// GemmFor returns the batched kernel for weight type w in order o on this CPU, or nil when there is none
// (then a matrix multiply calls Dot(w, o) per row pair).
func GemmFor(w Type, o Order) *Gemm {
	if o >= numOrders {
		return nil
	}
	return row(w).gemm[o]
}

// StoredCols returns the most activation rows a product should take through the stored layout (MulPacked),
// where more are multiplied from the original rows by Mul, or 0 when the stored layout serves every product.
// IQ4_XS stores a layout for decoding beside the one its batched kernel packs per pass.
func (g *Gemm) StoredCols() int { return g.storedCols }

// Weight returns the weight type the Gemm multiplies.
func (g *Gemm) Weight() Type { return g.w }

// Order returns the order whose bits the Gemm computes.
func (g *Gemm) Order() Order { return g.o }

// ActivationRowBytes returns the size of an activation row of n elements in the Gemm's layout.
func (g *Gemm) ActivationRowBytes(n int) int { return n / g.w.BlockElems() * g.actBlock }

// ScratchBytes returns the scratch a Mul over rows of n elements needs.
func (g *Gemm) ScratchBytes(n int) int {
	nb := n / g.w.BlockElems()
	return g.groups(nb)*nb*g.packBlock + g.extra
}

// groups returns how many groups of rows of nb blocks Mul packs at once (see packGroups).
func (g *Gemm) groups(nb int) int {
	if g.packGroups <= 1 || g.extra != 0 || nb == 0 {
		return 1
	}
	return max(1, min(g.packGroups, g.packBytes/(nb*g.packBlock)))
}

// QuantizeActivation quantizes one activation row (len(src) a multiple of the weight's block size) into dst,
// which must hold ActivationRowBytes(len(src)) bytes.
func (g *Gemm) QuantizeActivation(src []float32, dst []byte) {
	g.quantize(src, dst[:g.ActivationRowBytes(len(src))])
}

// Mul sets out[c*outStride+r] to the dot product of weight row r (w[r*wStride:], type g.Weight(), n
// elements) with activation row c (a[c*aStride:], made by g.QuantizeActivation), for r < rows and c < cols,
// with the bits of RefDot(g.Weight(), g.Order()). scratch must hold ScratchBytes(n) bytes. Mul panics
// (index out of range) rather than read or write outside the slices.
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
	if len(scratch) < g.ScratchBytes(n) {
		panic(fmt.Sprintf("quant: gemm: scratch of %d bytes, need %d", len(scratch), g.ScratchBytes(n)))
	}
	if g.direct != nil {
		g.direct(n, w, wStride, rows, a, aStride, cols, out, outStride)
		return
	}
	if g.vec != nil && cols < g.minCols {
		for c := 0; c < cols; c++ {
			g.vec(nb, w, wStride, rows, a[c*aStride:c*aStride+aRow], out[c*outStride:c*outStride+rows])
		}
		return
	}
	if gr := g.groups(nb); gr > 1 {
		g.mulGroups(nb, gr, w, wStride, rows, a, aStride, cols, out, outStride, scratch)
		return
	}
	packed := scratch[:nb*g.packBlock+g.extra]
	for r0 := 0; r0 < rows; r0 += GemmRows {
		nr := min(GemmRows, rows-r0)
		g.pack(nb, w[r0*wStride:], wStride, nr, packed)
		g.kernel(nb, packed, a, aStride, cols, out[r0:], outStride, nr)
	}
}

// mulGroups is Mul packing gr groups at a time and passing the activation rows over them in tiles (see
// packGroups). Mul has checked the bounds.
func (g *Gemm) mulGroups(nb, gr int, w []byte, wStride, rows int, a []byte, aStride, cols int, out []float32, outStride int, scratch []byte) {
	gb := nb * g.packBlock
	tile := cols
	if g.tileBytes != 0 {
		tile = max(4, g.tileBytes/(nb*g.actBlock)&^3)
	}
	for b0 := 0; b0 < rows; b0 += gr * GemmRows {
		ng := min(gr, (rows-b0+GemmRows-1)/GemmRows)
		for k := 0; k < ng; k++ {
			r0 := b0 + k*GemmRows
			g.pack(nb, w[r0*wStride:], wStride, min(GemmRows, rows-r0), scratch[k*gb:(k+1)*gb])
		}
		for c0 := 0; c0 < cols; c0 += tile {
			nc := min(tile, cols-c0)
			for k := 0; k < ng; k++ {
				r0 := b0 + k*GemmRows
				g.kernel(nb, scratch[k*gb:(k+1)*gb], a[c0*aStride:], aStride, nc, out[c0*outStride+r0:], outStride,
					min(GemmRows, rows-r0))
			}
		}
	}
}

// vecRows makes a Gemm's vec from a kernel that dots one weight row with one activation row (nb blocks):
// the rows one at a time. Mul has checked the bounds.
func vecRows(dot func(nb int, w, a *byte) float32) func(nb int, w []byte, wStride, rows int, a []byte, out []float32) {
	return func(nb int, w []byte, wStride, rows int, a []byte, out []float32) {
		for r := 0; r < rows; r++ {
			out[r] = dot(nb, &w[r*wStride], &a[0])
		}
	}
}

func putU32(b []byte, off int, v uint32) {
	b[off], b[off+1], b[off+2], b[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func getU32(b []byte, off int) uint32 {
	return uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24
}
