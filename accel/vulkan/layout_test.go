package vulkan

import (
	"bytes"
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

// TestQ8SExact checks that every type converted to Q8S keeps its values bit for bit: s·q + m equals
// gguf/quant's dequantization of the source.
func TestQ8SExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for typ, conv := range q8sConverters {
		t.Run(typ.String(), func(t *testing.T) {
			const blocks = 40
			src := randomBlocks(t, typ, blocks, r)
			n := blocks * typ.BlockElems()
			want := make([]float32, n)
			if err := quant.Dequantize(typ, src, want); err != nil {
				t.Fatal(err)
			}
			per := typ.BlockElems() / q8sElems * q8sBytes
			dev := make([]byte, blocks*per)
			for b := 0; b < blocks; b++ {
				conv(src[b*typ.BlockBytes():(b+1)*typ.BlockBytes()], q8sWriter(dev[b*per:(b+1)*per]))
			}
			got := make([]float32, n)
			dequantizeQ8S(dev, got)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(got[i] == 0 && want[i] == 0) {
					t.Fatalf("element %d: %g, want %g", i, got[i], want[i])
				}
			}
		})
	}
}

// TestLayoutFillChunks converts a weight in chunks of awkward sizes (as staging does, 16 MiB at a time, with
// block boundaries anywhere) and compares with converting it in one piece.
func TestLayoutFillChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, typ := range weightTypes {
		lay := layouts[typ]
		t.Run(typ.String(), func(t *testing.T) {
			blocks := 9
			if typ.BlockElems() == 1 {
				blocks = 301
			}
			src := randomBlocks(t, typ, blocks, r)
			size := (lay.deviceBytes(typ, int64(blocks*typ.BlockElems())) + 3) &^ 3
			whole := make([]byte, size)
			lay.fill(typ, src, whole, 0)
			for _, chunk := range []int64{1, 7, 36, 100, 1000} {
				got := make([]byte, size)
				for pos := int64(0); pos < size; pos += chunk {
					lay.fill(typ, src, got[pos:min(size, pos+chunk)], pos)
				}
				if !bytes.Equal(got, whole) {
					t.Fatalf("chunks of %d bytes convert differently", chunk)
				}
			}
			if lay.convert == nil && !bytes.Equal(whole[:len(src)], src) {
				t.Fatalf("%s is stored as it is, but the device bytes differ", typ)
			}
		})
	}
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
