package quant

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestQ8GCorr: the Q8_0G corrections of the CPU's kernel are q8gCorrRef's, byte for byte, for quants over the
// whole int8 range (−128 included) and several packing offsets; the bytes outside the corrections are left.
func TestQ8GCorr(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, nb := range []int{1, 2, 7, 64} {
		for _, off := range []int{128, 8, 1, 0} {
			b := make([]byte, nb*q8gBlock)
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			if nb == 2 {
				for i := 36; i < q8gBlock; i++ {
					b[i] = 0x80 // −128 throughout
				}
			}
			want := bytes.Clone(b)
			q8gCorrRef(want, off)
			q8gCorr(b, off)
			if !bytes.Equal(b, want) {
				t.Fatalf("%d blocks, offset %d: corrections differ from the reference", nb, off)
			}
		}
	}
}
