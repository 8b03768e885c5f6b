package quant

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestGemmFloat checks the F16 and BF16 Gemms against their references on lengths of many chunks (with and
// without BF16's tail after the last 64), every tile shape of rows and columns (whole tiles of four, the
// remainders of columns and rows, few columns), and random 16-bit values (NaN and infinities included).
func TestGemmFloat(t *testing.T) {
	for _, k := range bf16Kernels() {
		t.Run(k.name, func(t *testing.T) {
			defer k.use()()
			testGemmFloat(t)
		})
	}
}

func testGemmFloat(t *testing.T) {
	for _, c := range []struct {
		w Type
		o Order
	}{{F16, OrderTiled}, {BF16, OrderVecDot}} {
		g := GemmFor(c.w, c.o)
		if g == nil {
			t.Logf("no %s Gemm on this CPU", c.w)
			continue
		}
		r := rand.New(rand.NewPCG(31, 32))
		for _, shape := range [][3]int{{160, 12, 7}, {2048, 8, 9}, {48, 7, 4}, {64, 4, 1}, {4096, 4, 5}, {192, 16, 64}, {128, 9, 70},
			{1344, 4, 6}, {64, 20, 2048 + 70}} { // 2118 columns: see bf16MagCols
			n, rows, cols := shape[0], shape[1], shape[2]
			checkGemm(t, g, n, rows, cols, randFloats(r, c.w, n*rows), randFloats(r, c.w, n*cols), fmt.Sprint(c.w, shape))
			checkGemm(t, g, n, rows, cols, randScaled(r, c.w, n*rows), randScaled(r, c.w, n*cols), fmt.Sprint(c.w, " bytes ", shape))
			if c.w == BF16 { // the instruction's flushes
				wd, ad := randBF16Pairs(r, n, rows, cols)
				checkGemm(t, g, n, rows, cols, wd, ad, fmt.Sprint("BF16 denormals ", shape))
				checkGemm(t, g, n, rows, cols, randBF16Row(r, n*rows, true, false), randBF16Row(r, n*cols, true, false),
					fmt.Sprint("BF16 tiny sums ", shape))
				wb, ab := make([]byte, 2*n*rows), make([]byte, 2*n*cols)
				put := func(b []byte, i int, f float32) { h := F32ToBF16(f); b[2*i], b[2*i+1] = byte(h), byte(h>>8) }
				for i, v := range []float32{0x1p-76, 0x1p-63, 0x1p-76, 0x1p-63} { // sums at 2^-126 (TestDotExact)
					for row := 0; row < rows; row++ {
						put(wb, row*n+i, v)
					}
				}
				for i, v := range []float32{-0x1p-76, 0x1p-63, -0x1p-74 * 0.75, 0x1p-63} {
					for col := 0; col < cols; col++ {
						put(ab, col*n+i, v)
					}
				}
				checkGemm(t, g, n, rows, cols, wb, ab, fmt.Sprint("BF16 sums at 2^-126 ", shape))
				if cols > 64 { // the same columns beside ordinary ones, which must not lend them their checks
					for col := 64; col < cols; col++ {
						for i := 0; i < 4; i++ {
							put(ab, col*n+i, 1)
						}
					}
					checkGemm(t, g, n, rows, cols, wb, ab, fmt.Sprint("BF16 sums at 2^-126 beside ordinary ", shape))
				}
			}
		}
	}
}
