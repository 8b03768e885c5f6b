package quant

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestGemmF16Tiled checks the F16 Gemm against DotF16F16Tiled on lengths of many chunks, every tile shape of
// rows and columns (whole tiles of four, the one-column and one-row remainders), and random halves (NaN and
// infinities included).
func TestGemmF16Tiled(t *testing.T) {
	g := GemmFor(F16, OrderTiled)
	if g == nil {
		t.Skip("no F16 Gemm on this CPU")
	}
	r := rand.New(rand.NewPCG(31, 32))
	for _, shape := range [][3]int{{160, 12, 7}, {2048, 8, 9}, {48, 7, 4}, {16, 4, 1}, {4096, 4, 5}} {
		n, rows, cols := shape[0], shape[1], shape[2]
		checkGemm(t, g, n, rows, cols, randFloats(r, F16, n*rows), randFloats(r, F16, n*cols), fmt.Sprint(shape))
		checkGemm(t, g, n, rows, cols, randScaled(r, F16, n*rows), randScaled(r, F16, n*cols), fmt.Sprint("bytes ", shape))
	}
}
