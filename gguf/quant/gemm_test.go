package quant

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// gemmTypes are the weight types with a batched kernel on this CPU.
func gemmTypes() []Type {
	var ts []Type
	for _, w := range dotWeightTypes {
		if GemmFor(w) != nil {
			ts = append(ts, w)
		}
	}
	return ts
}

// q8sFromQ8_0 converts Q8_0 activation blocks into the Gemm's layout for weight g.Weight(): the same quants
// and scale, so that the Gemm and the reference dot see identical data (including bytes no quantizer makes).
func q8sFromQ8_0(g *Gemm, q8 []byte) []byte {
	off := map[Type]int{Q4_0: 8, Q5_0: 16, Q8_0: 128}[g.w]
	nb := len(q8) / 34
	out := make([]byte, nb*q8sBlock)
	for i := 0; i < nb; i++ {
		x, y := q8[i*34:i*34+34], out[i*q8sBlock:(i+1)*q8sBlock]
		putF32(y, 0, f16at(x, 0))
		s := 0
		for _, q := range x[2:] {
			s += int(int8(q))
		}
		putU32(y, 4, uint32(int32(-off*s)))
		copy(y[8:], x[2:])
	}
	return out
}

// gemmActivation converts an activation row made for the reference dot (ActivationType(w)) into the
// Gemm's layout, keeping every quant and scale.
func gemmActivation(g *Gemm, ref []byte) []byte {
	switch g.w {
	case Q4_K, Q5_K:
		out := append([]byte(nil), ref...)
		for i := 0; i < len(ref)/292; i++ {
			b := out[i*292:]
			for j := 0; j < 8; j++ {
				putF32(b, 260+4*j, float32(bsum(ref[i*292+260:], 2*j)+bsum(ref[i*292+260:], 2*j+1)))
			}
		}
		return out
	case Q6_K:
		nb := len(ref) / 292
		out := make([]byte, nb*q8ks6Block)
		for i := 0; i < nb; i++ {
			x, y := ref[i*292:], out[i*q8ks6Block:]
			copy(y[:4], x[:4])
			for k := 0; k < 16; k++ {
				putU32(y, 4+20*k, uint32(int32(-32*bsum(x[260:], k))))
				copy(y[8+20*k:8+20*k+16], x[4+16*k:])
			}
		}
		return out
	}
	return q8sFromQ8_0(g, ref)
}

// gemmExact reports whether the Gemm for w keeps the reference's float order (the 32-element formats).
func gemmExact(w Type) bool { return w.BlockElems() == QK }

// termMagnitude returns Σ|terms| of the dot product of weight row w with activation row a: the scale part
// and, for Q4_K/Q5_K, the minimum part separately (they may cancel), for a rounding tolerance.
func termMagnitude(t *testing.T, wt Type, n int, w, a []byte) float64 {
	parts := [][]byte{w}
	if wt == Q4_K || wt == Q5_K {
		scale, mins := append([]byte(nil), w...), append([]byte(nil), w...)
		for i := 0; i < n/QKK; i++ {
			bb := wt.BlockBytes()
			scale[i*bb+2], scale[i*bb+3] = 0, 0 // dmin = 0
			mins[i*bb], mins[i*bb+1] = 0, 0     // d = 0
		}
		parts = [][]byte{scale, mins}
	}
	ad := mustDequantize(t, ActivationType(wt), a, n)
	var m float64
	for _, p := range parts {
		wd := mustDequantize(t, wt, p, n)
		for i := range wd {
			m += math.Abs(float64(wd[i]) * float64(ad[i]))
		}
	}
	return m
}

// checkGemm multiplies rows×cols with the Gemm and compares every output with the reference dot product:
// bit for bit where the kernel keeps the reference's float order, else within 1e-6 of Σ|terms| (see
// dot_fast_test.go for the reasoning).
func checkGemm(t *testing.T, g *Gemm, n, rows, cols int, w, aRef []byte, what string) {
	t.Helper()
	wt := g.Weight()
	wRow, _ := wt.RowBytes(n)
	aRow, _ := ActivationType(wt).RowBytes(n)
	ga := make([]byte, 0, cols*g.ActivationRowBytes(n))
	for c := 0; c < cols; c++ {
		ga = append(ga, gemmActivation(g, aRef[c*aRow:(c+1)*aRow])...)
	}
	outStride := rows + 3
	out := make([]float32, cols*outStride)
	for i := range out {
		out[i] = -7 // sentinel: what Mul must not touch
	}
	g.Mul(n, w, wRow, rows, ga, g.ActivationRowBytes(n), cols, out, outStride, make([]byte, g.ScratchBytes(n)))
	ref := RefDotFunc(wt)
	for c := 0; c < cols; c++ {
		for r := 0; r < outStride; r++ {
			got := out[c*outStride+r]
			if r >= rows {
				if got != -7 {
					t.Fatalf("%s: out[%d][%d] past the rows was written", what, c, r)
				}
				continue
			}
			wr, ar := w[r*wRow:(r+1)*wRow], aRef[c*aRow:(c+1)*aRow]
			want := ref(n, wr, ar)
			if gemmExact(wt) {
				if math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("%s, n=%d %dx%d: out[%d][%d] = %v, reference %v", what, n, rows, cols, c, r, got, want)
				}
			} else if d := math.Abs(float64(got) - float64(want)); d > 1e-6*termMagnitude(t, wt, n, wr, ar) || math.IsNaN(d) {
				t.Fatalf("%s, n=%d %dx%d: out[%d][%d] = %v, reference %v", what, n, rows, cols, c, r, got, want)
			}
		}
	}
}

func TestGemmMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, wt := range gemmTypes() {
		g := GemmFor(wt)
		t.Run(wt.String(), func(t *testing.T) {
			be, at := wt.BlockElems(), ActivationType(wt)
			for _, shape := range [][3]int{{1, 1, 1}, {2, 8, 8}, {8, 5, 3}, {16, 13, 9}, {64, 16, 17}, {3, 19, 24}} {
				n, rows, cols := shape[0]*be, shape[1], shape[2]
				var w, a []byte
				for i := 0; i < rows; i++ {
					w = append(w, mustQuantize(t, wt, randRow(r, n), false)...)
				}
				for i := 0; i < cols; i++ {
					a = append(a, mustQuantize(t, at, randRow(r, n), true)...)
				}
				checkGemm(t, g, n, rows, cols, w, a, "quantized rows")
				// The Gemm's own activation quantizer must give the same data as QuantizeActivation.
				x := randRow(r, n)
				mine := make([]byte, g.ActivationRowBytes(n))
				g.QuantizeActivation(x, mine)
				if want := gemmActivation(g, mustQuantize(t, at, x, true)); string(mine) != string(want) {
					t.Fatalf("n=%d: Gemm.QuantizeActivation differs from QuantizeActivation(%s)", n, at)
				}
			}
			// Random bytes (every quant value, −128 included) with finite random scales.
			for trial := 0; trial < 20; trial++ {
				n, rows, cols := be*(1+r.IntN(9)), 1+r.IntN(17), 1+r.IntN(19)
				w := randScaled(r, wt, n*rows/be)
				a := randScaled(r, at, n*cols/be)
				checkGemm(t, g, n, rows, cols, w, a, fmt.Sprintf("random bytes %d", trial))
			}
		})
	}
}

// randScaled returns nb blocks of random bytes whose f16 scales are random normal numbers.
func randScaled(r *rand.Rand, t Type, nb int) []byte {
	bb := t.BlockBytes()
	b := make([]byte, nb*bb)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for i := 0; i < nb; i++ {
		blk := b[i*bb : (i+1)*bb]
		for _, f := range scaleFields[t] {
			v := float32(r.NormFloat64() * 0.01)
			if f.f16 {
				binary.LittleEndian.PutUint16(blk[f.off:], F32ToF16(v))
			} else {
				putF32(blk, f.off, v)
			}
		}
		if t == Q8_K { // bsums must be the quants' sums
			for k := 0; k < 16; k++ {
				s := 0
				for _, q := range blk[4+16*k : 20+16*k] {
					s += int(int8(q))
				}
				binary.LittleEndian.PutUint16(blk[260+2*k:], uint16(int16(s)))
			}
		}
	}
	return b
}

func TestGemmBadShapes(t *testing.T) {
	for _, wt := range gemmTypes() {
		g := GemmFor(wt)
		n := 2 * wt.BlockElems()
		wRow, _ := wt.RowBytes(n)
		aRow := g.ActivationRowBytes(n)
		mustPanic := func(what string, f func()) {
			t.Helper()
			defer func() {
				if recover() == nil {
					t.Errorf("%s %s: no panic", wt, what)
				}
			}()
			f()
		}
		w, a, out, s := make([]byte, 3*wRow), make([]byte, 2*aRow), make([]float32, 6), make([]byte, g.ScratchBytes(n))
		g.Mul(n, w, wRow, 3, a, aRow, 2, out, 3, s) // fits exactly
		mustPanic("short weights", func() { g.Mul(n, w[:3*wRow-1], wRow, 3, a, aRow, 2, out, 3, s) })
		mustPanic("short activations", func() { g.Mul(n, w, wRow, 3, a[:2*aRow-1], aRow, 2, out, 3, s) })
		mustPanic("short output", func() { g.Mul(n, w, wRow, 3, a, aRow, 2, out[:5], 3, s) })
		mustPanic("short scratch", func() { g.Mul(n, w, wRow, 3, a, aRow, 2, out, 3, s[:len(s)-1]) })
		mustPanic("partial block", func() { g.Mul(n+1, w, wRow, 3, a, aRow, 2, out, 3, s) })
	}
}

// BenchmarkGemm reports multiply-accumulates per second as bytes (1 "byte" = 1 MAC), for 64 weight rows
// against 512 activation rows, next to the same product through DotFunc.
func BenchmarkGemm(b *testing.B) {
	const n, rows, cols = 2048, 64, 512
	for _, wt := range []Type{Q4_0, Q5_0, Q8_0, Q4_K, Q5_K, Q6_K} {
		r := rand.New(rand.NewPCG(1, 1))
		var w []byte
		x := randRow(r, n)
		for i := 0; i < rows; i++ {
			w = append(w, mustQuantizeB(wt, x)...)
		}
		wRow, _ := wt.RowBytes(n)
		out := make([]float32, rows*cols)
		b.Run(fmt.Sprintf("%s/%dx%dx%d/dot", benchName(wt), rows, n, cols), func(b *testing.B) {
			at := ActivationType(wt)
			aRow, _ := at.RowBytes(n)
			a := make([]byte, 0, cols*aRow)
			for i := 0; i < cols; i++ {
				a = append(a, mustQuantizeA(at, x)...)
			}
			dot := DotFunc(wt)
			b.SetBytes(rows * n * cols)
			loopCPU(b, func() {
				for c := 0; c < cols; c++ {
					for i := 0; i < rows; i++ {
						out[c*rows+i] = dot(n, w[i*wRow:(i+1)*wRow], a[c*aRow:(c+1)*aRow])
					}
				}
			})
		})
		g := GemmFor(wt)
		if g == nil {
			continue
		}
		b.Run(fmt.Sprintf("%s/%dx%dx%d/gemm", benchName(wt), rows, n, cols), func(b *testing.B) {
			aRow := g.ActivationRowBytes(n)
			ga := make([]byte, cols*aRow)
			for c := 0; c < cols; c++ {
				g.QuantizeActivation(x, ga[c*aRow:])
			}
			scratch := make([]byte, g.ScratchBytes(n))
			b.SetBytes(rows * n * cols)
			loopCPU(b, func() {
				g.Mul(n, w, wRow, rows, ga, aRow, cols, out, rows, scratch)
			})
		})
	}
}

func mustQuantizeB(t Type, x []float32) []byte {
	nb, _ := t.RowBytes(len(x))
	b := make([]byte, nb)
	if err := Quantize(t, x, b); err != nil {
		panic(err)
	}
	return b
}

func mustQuantizeA(t Type, x []float32) []byte {
	nb, _ := t.RowBytes(len(x))
	b := make([]byte, nb)
	if err := QuantizeActivation(t, x, b); err != nil {
		panic(err)
	}
	return b
}

// BenchmarkGemmPack reports the packing of one group of GemmRows rows of 2048 elements (bytes = weight
// bytes packed).
func BenchmarkGemmPack(b *testing.B) {
	const n = 2048
	for _, wt := range gemmTypes() {
		g := GemmFor(wt)
		r := rand.New(rand.NewPCG(1, 1))
		var w []byte
		for i := 0; i < GemmRows; i++ {
			w = append(w, mustQuantizeB(wt, randRow(r, n))...)
		}
		wRow, _ := wt.RowBytes(n)
		scratch := make([]byte, g.ScratchBytes(n))
		b.Run(benchName(wt), func(b *testing.B) {
			b.SetBytes(int64(len(w)))
			loopCPU(b, func() { g.pack(n/wt.BlockElems(), w, wRow, GemmRows, scratch) })
		})
	}
}

// BenchmarkGemmSmall compares Gemm with the dot-product loop for small batches (the backend's gemmMinRows):
// 256 rows of 2048 against 1…32 activation rows, MACs per second as bytes.
func BenchmarkGemmSmall(b *testing.B) {
	const n, rows = 2048, 256
	for _, wt := range []Type{Q4_0, Q4_K} {
		g := GemmFor(wt)
		if g == nil {
			continue
		}
		r := rand.New(rand.NewPCG(1, 1))
		x := randRow(r, n)
		var w []byte
		for i := 0; i < rows; i++ {
			w = append(w, mustQuantizeB(wt, x)...)
		}
		wRow, _ := wt.RowBytes(n)
		at := ActivationType(wt)
		aRow, _ := at.RowBytes(n)
		gRow := g.ActivationRowBytes(n)
		for _, cols := range []int{1, 2, 4, 8, 16, 32} {
			a, ga := make([]byte, cols*aRow), make([]byte, cols*gRow)
			for c := 0; c < cols; c++ {
				_ = QuantizeActivation(at, x, a[c*aRow:])
				g.QuantizeActivation(x, ga[c*gRow:])
			}
			out := make([]float32, rows*cols)
			dot := DotFunc(wt)
			b.Run(fmt.Sprintf("%s/cols=%d/dot", benchName(wt), cols), func(b *testing.B) {
				b.SetBytes(int64(rows * n * cols))
				loopCPU(b, func() {
					for i := 0; i < rows; i++ {
						for c := 0; c < cols; c++ {
							out[c*rows+i] = dot(n, w[i*wRow:(i+1)*wRow], a[c*aRow:(c+1)*aRow])
						}
					}
				})
			})
			scratch := make([]byte, g.ScratchBytes(n))
			b.Run(fmt.Sprintf("%s/cols=%d/gemm", benchName(wt), cols), func(b *testing.B) {
				b.SetBytes(int64(rows * n * cols))
				loopCPU(b, func() { g.Mul(n, w, wRow, rows, ga, gRow, cols, out, rows, scratch) })
			})
		}
	}
}
