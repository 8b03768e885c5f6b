package layout

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/gputest"
)

// TestQ8SExact checks that every type converted to Q8S keeps its values bit for bit: s·q + m equals
// gguf/quant's dequantization of the source.
func TestQ8SExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for typ, conv := range q8sConverters {
		t.Run(typ.String(), func(t *testing.T) {
			const blocks = 40
			src := gputest.RandomBlocks(t, typ, blocks, r)
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
			DequantizeQ8S(dev, got)
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
	for _, typ := range types {
		lay := Lookup(typ)
		t.Run(typ.String(), func(t *testing.T) {
			blocks := 9
			if typ.BlockElems() == 1 {
				blocks = 301
			}
			src := gputest.RandomBlocks(t, typ, blocks, r)
			size := (lay.DeviceBytes(typ, int64(blocks*typ.BlockElems())) + 3) &^ 3
			whole := make([]byte, size)
			lay.Fill(typ, src, whole, 0)
			for _, chunk := range []int64{1, 7, 36, 100, 1000} {
				got := make([]byte, size)
				for pos := int64(0); pos < size; pos += chunk {
					lay.Fill(typ, src, got[pos:min(size, pos+chunk)], pos)
				}
				if !bytes.Equal(got, whole) {
					t.Fatalf("chunks of %d bytes convert differently", chunk)
				}
			}
			if lay.Verbatim() && !bytes.Equal(whole[:len(src)], src) {
				t.Fatalf("%s is stored as it is, but the device bytes differ", typ)
			}
		})
	}
}

// TestLayoutFacts pins what the shaders assume of the layouts: the index unit, activation types and K-quants.
func TestLayoutFacts(t *testing.T) {
	for _, c := range []struct {
		typ    quant.Type
		index  int64 // Index of the second device block
		act    quant.Type
		kquant bool
	}{
		{quant.F32, 1, quant.F32, false}, {quant.F16, 1, quant.F16, false}, {quant.BF16, 1, quant.BF16, false},
		{quant.Q4_0, 5, quant.Q8_0, false}, {quant.Q8_0, 9, quant.Q8_0, false},
		{quant.Q4_K, 36, quant.Q8_K, true}, {quant.Q5_K, 44, quant.Q8_K, true}, {quant.Q6_K, 53, quant.Q8_K, true},
		{quant.Q4_1, 12, quant.Q8_1, false}, {quant.Q2_K, 12, quant.Q8_K, false},
	} {
		l := Lookup(c.typ)
		if got := l.Index(int64(l.DevElems)); got != c.index || l.Act != c.act || l.KQuant() != c.kquant {
			t.Errorf("%s: index %d act %s kquant %v, want %d %s %v", c.typ, got, l.Act, l.KQuant(), c.index, c.act, c.kquant)
		}
	}
	if _, err := Of("w", quant.Q8_K); err == nil {
		t.Error("Q8_K is not a weight type the shaders handle")
	}
	for _, typ := range quant.WeightTypes() { // the GPU backends take every weight type the CPU backend does
		l := Lookup(typ)
		if l == nil {
			t.Errorf("%s: no device layout", typ)
			continue
		}
		if shader, _ := Quantize(l.Act, 1, 256); shader == "" && l.Act != quant.F32 {
			t.Errorf("%s: no shader converts activations to %s", typ, l.Act)
		}
	}
}
