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

// checkGemm multiplies rows×cols with the Gemm and compares every output with the reference dot product
// bit for bit (the kernels keep the reference's integer sums and float order).
func checkGemm(t *testing.T, g *Gemm, n, rows, cols int, w, aRef []byte, what string) {
	t.Helper()
	wt := g.Weight()
	wRow, _ := wt.RowBytes(n)
	aRow, _ := ActivationType(wt).RowBytes(n)
	ga := make([]byte, 0, cols*g.ActivationRowBytes(n))
	for c := 0; c < cols; c++ {
		ga = append(ga, q8sFromQ8_0(g, aRef[c*aRow:(c+1)*aRow])...)
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
			want := ref(n, w[r*wRow:(r+1)*wRow], aRef[c*aRow:(c+1)*aRow])
			if math.Float32bits(got) != math.Float32bits(want) {
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
			for _, shape := range [][3]int{{32, 1, 1}, {64, 8, 8}, {256, 5, 3}, {512, 13, 9}, {2048, 16, 17}, {96, 19, 24}} {
				n, rows, cols := shape[0], shape[1], shape[2]
				var w, a []byte
				for i := 0; i < rows; i++ {
					w = append(w, mustQuantize(t, wt, randRow(r, n), false)...)
				}
				for i := 0; i < cols; i++ {
					a = append(a, mustQuantize(t, Q8_0, randRow(r, n), true)...)
				}
				checkGemm(t, g, n, rows, cols, w, a, "quantized rows")
				// The Gemm's own activation quantizer must give the same data as QuantizeActivation.
				x := randRow(r, n)
				mine := make([]byte, g.ActivationRowBytes(n))
				g.QuantizeActivation(x, mine)
				if want := q8sFromQ8_0(g, mustQuantize(t, Q8_0, x, true)); string(mine) != string(want) {
					t.Fatalf("n=%d: Gemm.QuantizeActivation differs from QuantizeActivation(Q8_0)", n)
				}
			}
			// Random bytes (every quant value, −128 included) with finite random scales.
			for trial := 0; trial < 20; trial++ {
				n, rows, cols := QK*(1+r.IntN(9)), 1+r.IntN(17), 1+r.IntN(19)
				w := randScaled(r, wt, n*rows/QK)
				a := randScaled(r, Q8_0, n*cols/QK)
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
		for _, f := range scaleFields[t] {
			binary.LittleEndian.PutUint16(b[i*bb+f.off:], F32ToF16(float32(r.NormFloat64()*0.01)))
		}
	}
	return b
}

func TestGemmBadShapes(t *testing.T) {
	for _, wt := range gemmTypes() {
		g := GemmFor(wt)
		n := 64
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

// BenchmarkGemm reports multiply-accumulates per second as bytes (1 "byte" = 1 MAC), for a group of rows
// against 512 activation rows, next to the same product through DotFunc.
func BenchmarkGemm(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, rows, cols = 2048, 64, 512
	for _, wt := range []Type{Q4_0, Q5_0, Q8_0, Q4_K, Q6_K} {
		var w, a []byte
		for i := 0; i < rows; i++ {
			w = append(w, mustQuantizeB(wt, randRow(r, n))...)
		}
		at := ActivationType(wt)
		for i := 0; i < cols; i++ {
			a = append(a, mustQuantizeA(at, randRow(r, n))...)
		}
		wRow, _ := wt.RowBytes(n)
		aRow, _ := at.RowBytes(n)
		out := make([]float32, rows*cols)
		dot := DotFunc(wt)
		b.Run(fmt.Sprintf("%s/%dx%dx%d/dot", benchName(wt), rows, n, cols), func(b *testing.B) {
			b.SetBytes(rows * n * cols)
			for b.Loop() {
				for c := 0; c < cols; c++ {
					for i := 0; i < rows; i++ {
						out[c*rows+i] = dot(n, w[i*wRow:(i+1)*wRow], a[c*aRow:(c+1)*aRow])
					}
				}
			}
		})
		g := GemmFor(wt)
		if g == nil {
			continue
		}
		ga := make([]byte, cols*g.ActivationRowBytes(n))
		for c := 0; c < cols; c++ {
			g.QuantizeActivation(randRow(r, n), ga[c*g.ActivationRowBytes(n):])
		}
		scratch := make([]byte, g.ScratchBytes(n))
		b.Run(fmt.Sprintf("%s/%dx%dx%d/gemm", benchName(wt), rows, n, cols), func(b *testing.B) {
			b.SetBytes(rows * n * cols)
			for b.Loop() {
				g.Mul(n, w, wRow, rows, ga, g.ActivationRowBytes(n), cols, out, rows, scratch)
			}
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
