package vulkan

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

// randomBlocks returns n source blocks of type t with finite values (quantized from random floats where quant
// can, else random bytes).
func randomBlocks(t *testing.T, typ quant.Type, n int, r *rand.Rand) []byte {
	t.Helper()
	data := make([]byte, n*typ.BlockBytes())
	vals := make([]float32, n*typ.BlockElems())
	for i := range vals {
		vals[i] = float32(r.NormFloat64())
	}
	if quant.CanQuantize(typ) {
		if err := quant.Quantize(typ, vals, data); err != nil {
			t.Fatal(err)
		}
		return data
	}
	out := make([]float32, typ.BlockElems())
	for b := 0; b < n; b++ {
		blk := data[b*typ.BlockBytes() : (b+1)*typ.BlockBytes()]
		for {
			for i := range blk {
				blk[i] = byte(r.Uint32())
			}
			if quant.Dequantize(typ, blk, out) == nil && finite(out) {
				break
			}
		}
	}
	return data
}

func finite(v []float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) || math.Abs(float64(x)) > 1e4 {
			return false
		}
	}
	return true
}

func TestPackIntervals(t *testing.T) {
	iv := []*interval{{first: 0, last: 2, size: 100}, {first: 1, last: 1, size: 50}, {first: 3, last: 4, size: 120},
		{first: 2, last: 5, size: 10}, {first: 5, last: 5, size: 40}}
	top := packIntervals(iv, 16)
	for i, a := range iv {
		if a.off%16 != 0 || a.off+a.size > top {
			t.Errorf("interval %d at %d (+%d) outside [0, %d) or unaligned", i, a.off, a.size, top)
		}
		for _, b := range iv[i+1:] {
			live := a.first <= b.last && b.first <= a.last
			if live && a.off < b.off+b.size && b.off < a.off+a.size {
				t.Errorf("intervals %+v and %+v overlap", *a, *b)
			}
		}
	}
	if top > 112+64+128 {
		t.Errorf("total %d: freed space is not reused", top)
	}
}
