package quant

// Dot products of the 32-element block formats with Q8_0 / Q8_1 activations (ggml's generic
// ggml_vec_dot_q4_0_q8_0 and friends). Each block's products are summed exactly in integers; the block is
// then scaled and added to a float32 running sum, with ggml's association of the scale factors.

import "encoding/binary"

// DotQ4_0Q8_0 returns Σ w·a for n elements of a Q4_0 row and a Q8_0 row.
func DotQ4_0Q8_0(n int, w, a []byte) float32 {
	var sum float32
	for ib := 0; ib < n/QK; ib++ {
		x := w[ib*18 : ib*18+18]
		y := a[ib*34 : ib*34+34]
		s0, s1 := 0, 0
		for j := 0; j < 16; j++ {
			s0 += (int(x[2+j]&15) - 8) * int(int8(y[2+j]))
			s1 += (int(x[2+j]>>4) - 8) * int(int8(y[18+j]))
		}
		sum += float32(float32(float32(s0+s1)*f16at(x, 0)) * f16at(y, 0))
	}
	return sum
}

// DotQ4_1Q8_1 returns Σ w·a for n elements of a Q4_1 row and a Q8_1 row.
func DotQ4_1Q8_1(n int, w, a []byte) float32 {
	var sum float32
	for ib := 0; ib < n/QK; ib++ {
		x := w[ib*20 : ib*20+20]
		y := a[ib*36 : ib*36+36]
		s0, s1 := 0, 0
		for j := 0; j < 16; j++ {
			s0 += int(x[4+j]&15) * int(int8(y[4+j]))
			s1 += int(x[4+j]>>4) * int(int8(y[20+j]))
		}
		dd := f16at(x, 0) * f16at(y, 0)
		sum += float32(float32(dd*float32(s0+s1)) + float32(f16at(x, 2)*f16at(y, 2)))
	}
	return sum
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
	var sum float32
	for ib := 0; ib < n/QK; ib++ {
		x := w[ib*22 : ib*22+22]
		y := a[ib*34 : ib*34+34]
		qh := binary.LittleEndian.Uint32(x[2:])
		s := 0
		for j := 0; j < QK; j++ {
			s += (q5Value(qh, x[6:22], j) - 16) * int(int8(y[2+j]))
		}
		sum += float32(float32(f16at(x, 0)*f16at(y, 0)) * float32(s))
	}
	return sum
}

// DotQ5_1Q8_1 returns Σ w·a for n elements of a Q5_1 row and a Q8_1 row.
func DotQ5_1Q8_1(n int, w, a []byte) float32 {
	var sum float32
	for ib := 0; ib < n/QK; ib++ {
		x := w[ib*24 : ib*24+24]
		y := a[ib*36 : ib*36+36]
		qh := binary.LittleEndian.Uint32(x[4:])
		s := 0
		for j := 0; j < QK; j++ {
			s += q5Value(qh, x[8:24], j) * int(int8(y[4+j]))
		}
		dd := f16at(x, 0) * f16at(y, 0)
		sum += float32(float32(dd*float32(s)) + float32(f16at(x, 2)*f16at(y, 2)))
	}
	return sum
}

// DotQ8_0Q8_0 returns Σ w·a for n elements of two Q8_0 rows.
func DotQ8_0Q8_0(n int, w, a []byte) float32 {
	var sum float32
	for ib := 0; ib < n/QK; ib++ {
		x := w[ib*34 : ib*34+34]
		y := a[ib*34 : ib*34+34]
		s := 0
		for j := 0; j < QK; j++ {
			s += int(int8(x[2+j])) * int(int8(y[2+j]))
		}
		sum += float32(float32(s) * float32(f16at(x, 0)*f16at(y, 0)))
	}
	return sum
}

// DotIQ4_NLQ8_0 returns Σ w·a for n elements of an IQ4_NL row and a Q8_0 row.
func DotIQ4_NLQ8_0(n int, w, a []byte) float32 {
	var sum float32
	for ib := 0; ib < n/QK; ib++ {
		x := w[ib*18 : ib*18+18]
		y := a[ib*34 : ib*34+34]
		s := 0
		for j := 0; j < 16; j++ {
			s += int(int8(y[2+j])) * int(kvaluesIQ4[x[2+j]&15])
			s += int(int8(y[18+j])) * int(kvaluesIQ4[x[2+j]>>4])
		}
		sum += float32(float32(f16at(y, 0)*f16at(x, 0)) * float32(s))
	}
	return sum
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
