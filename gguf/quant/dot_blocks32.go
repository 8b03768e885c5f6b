package quant

// Dot products of the 32-element block formats with Q8_0 / Q8_1 activations, in the arithmetic of llama.cpp's
// x86-64 CPU backend (AVX2 and AVX-512 builds alike), which produced forma's reference data.
//
// Q4_0, Q5_0 and Q8_0 (tinyBLAS_Q0_AVX for batches, ggml_vec_dot_*_q8_0 for single rows; both compute the same
// thing): a block's 32 products are summed exactly in integers in eight lanes of four consecutive elements
// (lane i holds elements 4i … 4i+3); each lane is accumulated across blocks in float32 with a fused
// multiply-add by dw·da (a float32 product); at the end the lanes are added pairwise as hsum_float_8 does:
// ((l0+l4) + (l2+l6)) + ((l1+l5) + (l3+l7)).
//
// Q4_1 and Q5_1 (ggml_vec_dot_q4_1_q8_1 / _q5_1_q8_1, AVX2): the same lanes for d·q, and the offset terms
// m·s summed separately in float32, added after the lanes.
//
// DotQ4_0Q8_0Interleaved is the arithmetic of the x86 build's repacked Q4_0 kernels (q4_0_8x8, used for
// matrices whose row count is a multiple of 8): per block the full exact integer sum, accumulated with one
// fused multiply-add by dw·da.
//
// IQ4_NL takes the Q4_0 orders (tinyBLAS's lanes, or the repacked per-block order for matrices of a multiple
// of 8 rows). MXFP4 follows ggml's generic (scalar) dot product: each block's exact integer sum is scaled
// and added to a float32 running sum.

import (
	"encoding/binary"
	"math"
)

// lanes8 is the eight-lane float32 accumulator of the x86 block dot products.
type lanes8 [8]float32

// add accumulates one block: lane i += d · Σ q[4i…4i+3]·y[4i…4i+3], fused.
func (l *lanes8) add(d float32, q *[QK]int32, y []byte) {
	y = y[:QK]
	for i := range l {
		s := q[4*i]*int32(int8(y[4*i])) + q[4*i+1]*int32(int8(y[4*i+1])) +
			q[4*i+2]*int32(int8(y[4*i+2])) + q[4*i+3]*int32(int8(y[4*i+3]))
		l[i] = fma32(d, float32(s), l[i])
	}
}

// addNibbles accumulates one block of 4-bit quants qs[16] (element j: low nibble of qs[j], element j+16:
// high nibble) minus off, as add does.
func (l *lanes8) addNibbles(d float32, qs []byte, off int32, y []byte) {
	qs, y = qs[:QK/2], y[:QK]
	for i := 0; i < 4; i++ {
		b := qs[4*i : 4*i+4]
		lo := (int32(b[0]&15)-off)*int32(int8(y[4*i])) + (int32(b[1]&15)-off)*int32(int8(y[4*i+1])) +
			(int32(b[2]&15)-off)*int32(int8(y[4*i+2])) + (int32(b[3]&15)-off)*int32(int8(y[4*i+3]))
		hi := (int32(b[0]>>4)-off)*int32(int8(y[16+4*i])) + (int32(b[1]>>4)-off)*int32(int8(y[16+4*i+1])) +
			(int32(b[2]>>4)-off)*int32(int8(y[16+4*i+2])) + (int32(b[3]>>4)-off)*int32(int8(y[16+4*i+3]))
		l[i] = fma32(d, float32(lo), l[i])
		l[i+4] = fma32(d, float32(hi), l[i+4])
	}
}

// addBytes accumulates one block of int8 quants qs[32], as add does.
func (l *lanes8) addBytes(d float32, qs, y []byte) {
	qs, y = qs[:QK], y[:QK]
	for i := range l {
		s := int32(int8(qs[4*i]))*int32(int8(y[4*i])) + int32(int8(qs[4*i+1]))*int32(int8(y[4*i+1])) +
			int32(int8(qs[4*i+2]))*int32(int8(y[4*i+2])) + int32(int8(qs[4*i+3]))*int32(int8(y[4*i+3]))
		l[i] = fma32(d, float32(s), l[i])
	}
}

// sum is hsum_float_8.
func (l *lanes8) sum() float32 {
	r0, r1, r2, r3 := l[4]+l[0], l[5]+l[1], l[6]+l[2], l[7]+l[3]
	return (r0 + r2) + (r1 + r3)
}

// fma32 is a float32 fused multiply-add, a·b+c rounded once. (Computed in float64 and rounded; the double
// rounding differs from a true float32 FMA only when the float64 result lies exactly halfway between two
// float32 values.)
func fma32(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }

// unpackQ5 writes the 32 five-bit quants of a Q5 block (qh word, qs[16]) minus off into q.
func unpackQ5(qh uint32, qs []byte, off int32, q *[QK]int32) {
	for j := 0; j < QK; j++ {
		q[j] = int32(q5Value(qh, qs, j)) - off
	}
}

// DotQ4_0Q8_0 returns Σ w·a for n elements of a Q4_0 row and a Q8_0 row.
func DotQ4_0Q8_0(n int, w, a []byte) float32 {
	var l lanes8
	for ib := 0; ib < n/QK; ib++ {
		x, y := w[ib*18:ib*18+18], a[ib*34:ib*34+34]
		l.addNibbles(f16at(x, 0)*f16at(y, 0), x[2:18], 8, y[2:34])
	}
	return l.sum()
}

// DotQ4_0Q8_0Interleaved returns Σ w·a for n elements of a Q4_0 row and a Q8_0 row as the x86 build's
// repacked (interleaved) Q4_0 kernels compute it.
func DotQ4_0Q8_0Interleaved(n int, w, a []byte) float32 {
	var acc float32
	for ib := 0; ib < n/QK; ib++ {
		x, y := w[ib*18:ib*18+18], a[ib*34:ib*34+34]
		s := int32(0)
		for j := 0; j < QK/2; j++ {
			s += (int32(x[2+j]&15) - 8) * int32(int8(y[2+j]))
			s += (int32(x[2+j]>>4) - 8) * int32(int8(y[18+j]))
		}
		acc = fma32(float32(s), f16at(x, 0)*f16at(y, 0), acc)
	}
	return acc
}

// DotQ4_1Q8_1 returns Σ w·a for n elements of a Q4_1 row and a Q8_1 row.
func DotQ4_1Q8_1(n int, w, a []byte) float32 {
	var l lanes8
	var summs float32
	for ib := 0; ib < n/QK; ib++ {
		x, y := w[ib*20:ib*20+20], a[ib*36:ib*36+36]
		summs += float32(f16at(x, 2) * f16at(y, 2)) // rounded before the add: no fused multiply-add on arm64
		l.addNibbles(f16at(x, 0)*f16at(y, 0), x[4:20], 0, y[4:36])
	}
	return l.sum() + summs
}

// q5Value returns the 5-bit quant j (0…31) of a Q5 block given its qh word and qs bytes.
func q5Value(qh uint32, qs []byte, j int) int {
	if j < 16 {
		return int(qs[j]&15) | int(qh>>j&1)<<4
	}
	return int(qs[j-16]>>4) | int(qh>>j&1)<<4
}

// DotQ5_0Q8_0 returns Σ w·a for n elements of a Q5_0 row and a Q8_0 row.
func DotQ5_0Q8_0(n int, w, a []byte) float32 {
	var l lanes8
	var q [QK]int32
	for ib := 0; ib < n/QK; ib++ {
		x, y := w[ib*22:ib*22+22], a[ib*34:ib*34+34]
		unpackQ5(binary.LittleEndian.Uint32(x[2:]), x[6:22], 16, &q)
		l.add(f16at(x, 0)*f16at(y, 0), &q, y[2:34])
	}
	return l.sum()
}

// DotQ5_1Q8_1 returns Σ w·a for n elements of a Q5_1 row and a Q8_1 row.
func DotQ5_1Q8_1(n int, w, a []byte) float32 {
	var l lanes8
	var q [QK]int32
	var summs float32
	for ib := 0; ib < n/QK; ib++ {
		x, y := w[ib*24:ib*24+24], a[ib*36:ib*36+36]
		summs += float32(f16at(x, 2) * f16at(y, 2)) // rounded before the add: no fused multiply-add on arm64
		unpackQ5(binary.LittleEndian.Uint32(x[4:]), x[8:24], 0, &q)
		l.add(f16at(x, 0)*f16at(y, 0), &q, y[4:36])
	}
	return l.sum() + summs
}

// DotQ8_0Q8_0 returns Σ w·a for n elements of two Q8_0 rows.
func DotQ8_0Q8_0(n int, w, a []byte) float32 {
	var l lanes8
	for ib := 0; ib < n/QK; ib++ {
		x, y := w[ib*34:ib*34+34], a[ib*34:ib*34+34]
		l.addBytes(f16at(x, 0)*f16at(y, 0), x[2:34], y[2:34])
	}
	return l.sum()
}

// DotIQ4_NLQ8_0 returns Σ w·a for n elements of an IQ4_NL row and a Q8_0 row in the order of the reference
// build's batch kernel for IQ4_NL matrices that are not repacked (tinyBLAS_Q0_AVX): the lanes of Q4_0, each
// block's dx·dy fused into eight float32 lanes, hsum_float_8 at the end. (Its single rows take
// ggml_vec_dot_iq4_nl_q8_0, which alternates two sets of lanes between even and odd blocks; forma uses one
// order for every row.)
func DotIQ4_NLQ8_0(n int, w, a []byte) float32 {
	var l lanes8
	var q [QK]int32
	for ib := 0; ib < n/QK; ib++ {
		x, y := w[ib*18:ib*18+18], a[ib*34:ib*34+34]
		iq4nlQuants(x, &q)
		l.add(f16at(x, 0)*f16at(y, 0), &q, y[2:34])
	}
	return l.sum()
}

// DotIQ4_NLQ8_0Interleaved returns Σ w·a for n elements of an IQ4_NL row and a Q8_0 row as the x86 build's
// repacked IQ4_NL kernels (iq4_nl_8x8, the template of q4_0_8x8) compute it: per block the full exact
// integer sum, accumulated with one fused multiply-add by dx·dy.
func DotIQ4_NLQ8_0Interleaved(n int, w, a []byte) float32 {
	var acc float32
	var q [QK]int32
	for ib := 0; ib < n/QK; ib++ {
		x, y := w[ib*18:ib*18+18], a[ib*34:ib*34+34]
		iq4nlQuants(x, &q)
		s := int32(0)
		for j, v := range q {
			s += v * int32(int8(y[2+j]))
		}
		acc = fma32(float32(s), f16at(x, 0)*f16at(y, 0), acc)
	}
	return acc
}

// iq4nlQuants writes the 32 values of IQ4_NL block x (element j: low nibble of byte j, element j+16: its high
// nibble) into q.
func iq4nlQuants(x []byte, q *[QK]int32) {
	for j := 0; j < QK/2; j++ {
		q[j] = int32(kvaluesIQ4[x[2+j]&15])
		q[j+16] = int32(kvaluesIQ4[x[2+j]>>4])
	}
}

// DotMXFP4Q8_0 returns Σ w·a for n elements of an MXFP4 row and a Q8_0 row.
func DotMXFP4Q8_0(n int, w, a []byte) float32 {
	var sum float32
	for ib := 0; ib < n/QK; ib++ {
		x := w[ib*17 : ib*17+17]
		y := a[ib*34 : ib*34+34]
		s := 0
		for j := 0; j < 16; j++ {
			s += int(int8(y[2+j])) * int(kvaluesMXFP4[x[1+j]&15])
			s += int(int8(y[18+j])) * int(kvaluesMXFP4[x[1+j]>>4])
		}
		sum += float32(float32(f16at(y, 0)*e8m0Half(x[0])) * float32(s))
	}
	return sum
}
