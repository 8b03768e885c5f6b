package quant

// Gemm layouts of Q4_K (see gemm.go), for DotQ4_KQ8_KRepacked's order: per pair of groups (64 elements) the
// whole integer sum and the minimum term, each fused into a float32 accumulator (with d·d_y and dmin·d_y),
// and the accumulators' difference at the end.
//
// The kernel keeps lane r of every vector for weight row r and, per pair, one int32 accumulator vector per
// residue l (added up at the end of the pair). The weights are packed pre-multiplied by their group's scale
// (≤ 63·15, an int16), two elements of one residue per dword, and VPDPWSSD multiplies them with the column's
// matching pair of int16 activations, broadcast to all rows: every product and sum is an exact integer, so
// each lane gets the reference's pair sums, and the float work is the reference's, lane by lane.

// Activation layout ("Q8_KW"), 832 bytes per 256 elements:
//
//	q8k  [292]byte     the Q8_K block; with q8kwPermute, its 256 quants in the decode kernel's order: vector
//	                   v = 2k+h (64 bytes) holds groups 4k+h and 4k+h+2, and in each the four quants of
//	                   residue d (d, d+8, d+16, d+24) as dword d
//	_    [4]byte
//	bp   [8]int16      bsum[2g] + bsum[2g+1]: the sum of group g's 32 quants, the mins' partner
//	_    [8]byte
//	qw   [8][8][2][2]int16  group j, residue l, half h: the quants 32j+16h+l and 32j+16h+l+8
const (
	q8kwBP    = 296
	q8kwQW    = 320
	q8kwBlock = q8kwQW + 512
)

// q8kwPermute says whether Q8_KW blocks hold their quants in the decode kernel's order; set at
// initialisation where that kernel runs (gemm_amd64.go).
var q8kwPermute bool

// Packed layout of GemmRows Q4_K rows, 8576 bytes per super-block:
//
//	w    [8][8][2][GemmRows][2]int16  group j, residue l, half h, row r: scale_j·q of elements 32j+16h+l, +8
//	d    [GemmRows]float32
//	dmin [GemmRows]float32
//	mins [4][GemmRows][2]int16        the mins of groups 2i and 2i+1
//
// Rows past the last are zero.
const (
	q4kPackD     = 8 * 8 * 2 * GemmRows * 4
	q4kPackDmin  = q4kPackD + 4*GemmRows
	q4kPackMins  = q4kPackDmin + 4*GemmRows
	q4kPackBlock = q4kPackMins + 4*GemmRows*4
	// q4kAccCols is the number of columns the kernel runs through per pass over the packed rows; their
	// float accumulators (q4kAccBytes each: the sum and the minimum terms, per row) stay in the L1 cache with
	// one packed super-block.
	q4kAccCols  = 32
	q4kAccBytes = 2 * GemmRows * 4
)

// quantizeQ8KW quantizes src into Q8_KW blocks.
func quantizeQ8KW(src []float32, dst []byte) {
	for b := 0; b < len(src)/QKK; b++ {
		y := dst[b*q8kwBlock : (b+1)*q8kwBlock]
		QuantizeQ8_K(src[b*QKK:(b+1)*QKK], y[:292])
		q8kwDerive(y)
	}
}

// q8kwFromQ8_K converts a Q8_K activation row into Q8_KW, keeping every quant and scale.
func q8kwFromQ8_K(ref, dst []byte) {
	for b := 0; b < len(ref)/292; b++ {
		y := dst[b*q8kwBlock : (b+1)*q8kwBlock]
		copy(y[:292], ref[b*292:(b+1)*292])
		q8kwDerive(y)
	}
}

// q8kwDerive fills the bsum pairs and the int16 quants of a block from its Q8_K part, and permutes the quants
// where q8kwPermute says so.
func q8kwDerive(y []byte) {
	clear(y[292:q8kwBP])
	for g := 0; g < 8; g++ {
		bp := bsum(y[260:292], 2*g) + bsum(y[260:292], 2*g+1)
		y[q8kwBP+2*g], y[q8kwBP+2*g+1] = byte(bp), byte(bp>>8)
	}
	clear(y[q8kwBP+16 : q8kwQW])
	q := y[4:260]
	if q8kwLanes != nil {
		q8kwLanes(y[q8kwQW:q8kwBlock], q)
		return
	}
	for j := 0; j < 8; j++ {
		for l := 0; l < 8; l++ {
			for h := 0; h < 2; h++ {
				e := 32*j + 16*h + l
				lo, hi := uint16(int16(int8(q[e]))), uint16(int16(int8(q[e+8])))
				putU32(y, q8kwQW+((j*8+l)*2+h)*4, uint32(lo)|uint32(hi)<<16)
			}
		}
	}
	if q8kwPermute {
		var plain [QKK]byte
		copy(plain[:], q)
		for v := 0; v < 4; v++ {
			for d := 0; d < 16; d++ {
				g := 4*(v/2) + v%2 + 2*(d/8)
				for m := 0; m < 4; m++ {
					q[64*v+4*d+m] = plain[32*g+d%8+8*m]
				}
			}
		}
	}
}

// packQ4_K packs rows (≤ GemmRows) Q4_K rows of nb super-blocks, wStride bytes apart, into dst.
func packQ4_K(nb int, w []byte, wStride, rows int, dst []byte) {
	for b := 0; b < nb; b++ {
		p := dst[b*q4kPackBlock : (b+1)*q4kPackBlock]
		for r := 0; r < GemmRows; r++ {
			if r >= rows {
				for k := 0; k < q4kPackBlock/(4*GemmRows); k++ {
					putU32(p, k*4*GemmRows+4*r, 0)
				}
				continue
			}
			packQ4_KRow(p, r, w[r*wStride+b*144:r*wStride+b*144+144])
		}
	}
}

// q8kwLanes, where the CPU has it, does q8kwDerive's quant loops: the 256 quants q into the 512 bytes of qw
// at dst, then (with q8kwPermute) q permuted in place.
var q8kwLanes func(dst, q []byte)

// packLane, where the CPU has it, does packQ4_KRow's quant loop: the 256 scaled quants qs (128 bytes) into
// lane p[0:4] of the packed block p. The scales go by value: a pointer through the func value would move them
// to the heap at every call.
var packLane func(p, qs []byte, scales [8]uint16)

// packQ4_KRow writes lane r of packed super-block p from the Q4_K block x.
func packQ4_KRow(p []byte, r int, x []byte) {
	putF32(p, q4kPackD+4*r, f16at(x, 0))
	putF32(p, q4kPackDmin+4*r, f16at(x, 2))
	var s, m [8]uint8
	for j := range s {
		s[j], m[j] = scaleMinK4(j, x[4:16])
	}
	for i := 0; i < 4; i++ {
		putU32(p, q4kPackMins+(i*GemmRows+r)*4, uint32(m[2*i])|uint32(m[2*i+1])<<16)
	}
	if packLane != nil {
		var s16 [8]uint16
		for j, v := range s {
			s16[j] = uint16(v)
		}
		packLane(p[4*r:], x[16:144], s16)
		return
	}
	for j := 0; j < 8; j++ {
		qs := x[16+32*(j/2) : 16+32*(j/2)+32]
		shift, sj := 4*uint(j%2), uint32(s[j])
		for l := 0; l < 8; l++ {
			for h := 0; h < 2; h++ {
				e := 16*h + l
				lo, hi := uint32(qs[e]>>shift&15)*sj, uint32(qs[e+8]>>shift&15)*sj
				putU32(p, (((j*8+l)*2+h)*GemmRows+r)*4, lo|hi<<16)
			}
		}
	}
}
