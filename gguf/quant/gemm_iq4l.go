package quant

import (
	"encoding/binary"
	"math"
)

// IQ4_XS in the vec_dot order (ggml_vec_dot_iq4_xs_q8_K, the reference build's kernel for batches and single
// rows alike), packed per pass ("IQ4_XSL"): DotIQ4_XSQ8_K's lane m (0…7) of a super-block sums (scale−32)·q·y
// over the 32 elements e with e%32/4 = m, four from each sub-block. The packer multiplies every quant's table
// value by its sub-block's scale − 32 (|·| ≤ 32·127, an int16) and lays a group's rows out lane by lane, so
// that one 512-bit load holds an int16 pair of each of the 16 rows, for VPDPWSSD with a broadcast pair of
// activations: the lane's integer sum exactly (|sum| ≤ 32·4·8·127·128 < 2³¹), fused into the lane's float32
// accumulator with d·d_y per super-block as the reference does, the eight accumulators added as hsum_float_8.
//
// Packed group of nb super-blocks: for lane m = 0…7, for super-block i, 1024 bytes
//
//	w [16][GemmRows][2]int16  pair j of every row: elements 32·(j/2) + 4m + 2·(j%2) and the one after, each
//	                          (scale−32)·kvalue
//
// then for each super-block the rows' d as float32 (f16 widened, exact), 64 bytes.
const (
	ix4lLane  = 16 * GemmRows * 4
	ix4lBlock = 8*ix4lLane + 4*GemmRows
)

// ix4lMinCols is the fewest activation rows the IQ4_XSL kernel takes: packing a group (ix4lPack8, ~2.7 GB/s of
// IQ4_XS) costs about what the row dot takes for ~6 columns of it (BenchmarkGemmSmall 256×2048, AVX-512 VNNI
// and AVX2 alike: 8 columns packed 136–170 µs, through the dot 156–161), so fewer take the row dot.
const ix4lMinCols = 8

// Activation layout ("Q8_KL"), per super-block: the Q8_K block itself (292 bytes, which the row dot reads for
// the columns a pass takes one at a time, with this block's stride), then
//
//	d  float32          the Q8_K block's scale
//	y  [8][16][2]int16  lane m's pair j: quants 32·(j/2) + 4m + 2·(j%2) and the one after
const (
	q8klLanes = 4 + 8*64
	q8klBlock = 292 + q8klLanes
)

// quantizeQ8KL quantizes src (a multiple of 256 elements) into a Q8_KL row.
func quantizeQ8KL(src []float32, dst []byte) {
	for i := 0; i < len(src)/QKK; i++ {
		b := dst[i*q8klBlock : (i+1)*q8klBlock]
		QuantizeQ8_K(src[i*QKK:(i+1)*QKK], b[:292])
		q8klLanesOf(b)
	}
}

// q8klFromQ8_K converts a Q8_K activation row into Q8_KL.
func q8klFromQ8_K(ref, dst []byte) {
	for i := 0; i < len(ref)/292; i++ {
		b := dst[i*q8klBlock : (i+1)*q8klBlock]
		copy(b, ref[i*292:(i+1)*292])
		q8klLanesOf(b)
	}
}

// q8klLanesOf writes the lane section of one Q8_KL block from its Q8_K block: pair j of lane m holds quants
// 32·(j/2) + 4m + 2·(j%2) and the one after, as packIQ4_XSL pairs the weights.
func q8klLanesOf(b []byte) {
	yd, q8, _ := q8KBlock(b, 0)
	l := b[292:q8klBlock]
	binary.LittleEndian.PutUint32(l, math.Float32bits(yd))
	l = l[4 : 4+64*8]
	for k := 0; k < 8; k++ {
		for m := 0; m < 8; m++ {
			binary.LittleEndian.PutUint64(l[64*m+8*k:], widen4(binary.LittleEndian.Uint32(q8[32*k+4*m:])))
		}
	}
}

// widen4 sign-extends the four int8 of v (little-endian) to four int16 in one word.
func widen4(v uint32) uint64 {
	x := uint64(v&0xff) | uint64(v>>8&0xff)<<16 | uint64(v>>16&0xff)<<32 | uint64(v>>24)<<48
	return x | (x&0x0080_0080_0080_0080)>>7*0xff00
}

// ix4lTab[s] is the lookup table of the sub-blocks of 6-bit scale s: byte q the low byte of (s−32)·kvalue[q],
// byte 16+q its high byte (for VPSHUFB).
var ix4lTab = func() (t [64][32]byte) {
	for s := range t {
		for q, kv := range kvaluesIQ4 {
			v := uint16(int16(s-32) * int16(kv))
			t[s][q], t[s][16+q] = byte(v), byte(v>>8)
		}
	}
	return t
}()

// ix4lRows16, where set (amd64 with AVX2), packs the lanes of a full group (GemmRows rows); packIQ4_XSL then
// adds the rows' d.
var ix4lRows16 func(nb int, w []byte, wStride int, dst []byte)

// packIQ4_XSL packs one group of rows (at most GemmRows) of nb IQ4_XS super-blocks into the IQ4_XSL layout;
// the rows past rows are zero.
func packIQ4_XSL(nb int, w []byte, wStride, rows int, dst []byte) {
	dst = dst[:nb*ix4lBlock]
	dt := dst[8*nb*ix4lLane:]
	if rows == GemmRows && ix4lRows16 != nil {
		ix4lRows16(nb, w, wStride, dst)
		for r := 0; r < GemmRows; r++ {
			for i := 0; i < nb; i++ {
				binary.LittleEndian.PutUint32(dt[i*4*GemmRows+4*r:], math.Float32bits(f16at(w[r*wStride+i*136:], 0)))
			}
		}
		return
	}
	packIQ4_XSLGo(nb, w, wStride, rows, dst)
}

// packIQ4_XSLGo is packIQ4_XSL in Go (the rows' d included).
func packIQ4_XSLGo(nb int, w []byte, wStride, rows int, dst []byte) {
	dst = dst[:nb*ix4lBlock]
	dt := dst[8*nb*ix4lLane:]
	for r := 0; r < GemmRows; r++ {
		for i := 0; i < nb; i++ {
			var pairs [8][16]uint32 // lane m's pair j of this row
			var d float32
			if r < rows {
				x := w[r*wStride+i*136 : r*wStride+i*136+136]
				d = f16at(x, 0)
				for k := 0; k < 8; k++ {
					ls := int16(iq4xsScale(x, k) - 32)
					var tv [16]uint32
					for q, kv := range kvaluesIQ4 {
						tv[q] = uint32(uint16(ls * int16(kv)))
					}
					qs := x[8+16*k : 8+16*k+16]
					for m := 0; m < 4; m++ { // bytes 4m…4m+3: lane m (low nibbles) and lane 4+m (high)
						q := qs[4*m : 4*m+4]
						pairs[m][2*k] = tv[q[0]&15] | tv[q[1]&15]<<16
						pairs[m][2*k+1] = tv[q[2]&15] | tv[q[3]&15]<<16
						pairs[4+m][2*k] = tv[q[0]>>4] | tv[q[1]>>4]<<16
						pairs[4+m][2*k+1] = tv[q[2]>>4] | tv[q[3]>>4]<<16
					}
				}
			}
			binary.LittleEndian.PutUint32(dt[i*4*GemmRows+4*r:], math.Float32bits(d))
			for m := range pairs {
				lane := dst[(m*nb+i)*ix4lLane+4*r : (m*nb+i+1)*ix4lLane]
				for j, v := range pairs[m] {
					binary.LittleEndian.PutUint32(lane[j*4*GemmRows:], v)
				}
			}
		}
	}
}

// mulIQ4_XSLRef is the scalar reference of the IQ4_XSL kernels: DotIQ4_XSQ8_K of each of the first rows rows
// of one packed group (nb super-blocks) with each of cols Q8_KL rows, read from the packed layouts.
func mulIQ4_XSLRef(nb int, p, a []byte, aStride, cols int, out []float32, outStride, rows int) {
	le := binary.LittleEndian
	for c := 0; c < cols; c++ {
		for r := 0; r < rows; r++ {
			var acc [8]float32
			for i := 0; i < nb; i++ {
				y := a[c*aStride+i*q8klBlock+292:]
				d := math.Float32frombits(le.Uint32(p[8*nb*ix4lLane+i*4*GemmRows+4*r:])) * math.Float32frombits(le.Uint32(y))
				for m := range acc {
					var s int32
					for j := 0; j < 32; j++ {
						wv := int16(le.Uint16(p[(m*nb+i)*ix4lLane+(j/2*GemmRows+r)*4+2*(j%2):]))
						s += int32(wv) * int32(int16(le.Uint16(y[4+m*64+2*j:])))
					}
					acc[m] = fma32(d, float32(s), acc[m])
				}
			}
			out[c*outStride+r] = hsum8(&acc)
		}
	}
}
