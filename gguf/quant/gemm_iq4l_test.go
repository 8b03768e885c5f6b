package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIQ4_XSLRef holds the IQ4_XSL layouts (packIQ4_XSL, quantizeQ8KL) to DotIQ4_XSQ8_K through the layout's
// scalar reference, on every platform: a group of 13 rows (the rest padding) of 3 super-blocks, 5 columns.
func TestIQ4_XSLRef(t *testing.T) {
	const n, rows, cols = 3 * QKK, 13, 5
	r := rand.New(rand.NewPCG(41, 42))
	rb, _ := IQ4_XS.RowBytes(n)
	w := make([]byte, rows*rb)
	for i := 0; i < rows; i++ {
		if err := Quantize(IQ4_XS, randRow(r, n), w[i*rb:]); err != nil {
			t.Fatal(err)
		}
	}
	ab, _ := Q8_K.RowBytes(n)
	a := make([]byte, cols*ab)
	al := make([]byte, cols*(n/QKK)*q8klBlock)
	for c := 0; c < cols; c++ {
		x := randRow(r, n)
		if err := QuantizeActivation(Q8_K, x, a[c*ab:]); err != nil {
			t.Fatal(err)
		}
		quantizeQ8KL(x, al[c*len(al)/cols:(c+1)*len(al)/cols])
	}
	p := make([]byte, (n/QKK)*ix4lBlock)
	packIQ4_XSL(n/QKK, w, rb, rows, p)
	out := make([]float32, cols*GemmRows)
	mulIQ4_XSLRef(n/QKK, p, al, len(al)/cols, cols, out, GemmRows, rows)
	for c := 0; c < cols; c++ {
		for i := 0; i < rows; i++ {
			want := DotIQ4_XSQ8_K(n, w[i*rb:(i+1)*rb], a[c*ab:(c+1)*ab])
			if got := out[c*GemmRows+i]; math.Float32bits(got) != math.Float32bits(want) {
				t.Fatalf("row %d column %d: %g, DotIQ4_XSQ8_K %g", i, c, got, want)
			}
		}
	}
}

// TestIQ4_XSLPack holds packIQ4_XSL of full groups (the assembly packer on amd64) to packIQ4_XSLGo, byte for
// byte, over random blocks (every scale and nibble) of 1…9 super-blocks with a row stride past the row.
func TestIQ4_XSLPack(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for nb := 1; nb <= 9; nb++ {
		stride := nb*136 + 136*(nb%3)
		w := make([]byte, GemmRows*stride)
		for i := range w {
			w[i] = byte(r.Uint32())
		}
		want := make([]byte, nb*ix4lBlock)
		got := make([]byte, nb*ix4lBlock)
		for i := range got {
			got[i] = 0xa5
		}
		packIQ4_XSLGo(nb, w, stride, GemmRows, want)
		packIQ4_XSL(nb, w, stride, GemmRows, got)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("nb %d: byte %d (lane %d, super-block %d, pair %d, row %d) = %#x, want %#x", nb, i,
					i/(nb*ix4lLane), i/ix4lLane%nb, i%ix4lLane/(4*GemmRows), i%(4*GemmRows)/4, got[i], want[i])
			}
		}
	}
}
