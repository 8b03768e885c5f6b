package gputest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

// RandomBlocks returns n source blocks of type typ with finite values (quantized from random floats where
// quant can, else random bytes whose values are finite and below 1e4).
func RandomBlocks(t testing.TB, typ quant.Type, n int, r *rand.Rand) []byte {
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
