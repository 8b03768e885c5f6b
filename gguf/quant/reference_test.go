package quant

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/forma-llm/forma/internal/testdir"
)

// refTypes are the types with reference vectors in testdata/quant, by file stem.
var refTypes = []struct {
	stem  string
	t     Type
	exact bool // quantization must reproduce ggml's .bin bit for bit (all do today)
}{
	{"f16", F16, true},
	{"bf16", BF16, true},
	{"q4_0", Q4_0, true},
	{"q4_1", Q4_1, true},
	{"q5_0", Q5_0, true},
	{"q5_1", Q5_1, true},
	{"q8_0", Q8_0, true},
	{"q2_K", Q2_K, true},
	{"q3_K", Q3_K, true},
	{"q4_K", Q4_K, true},
	{"q5_K", Q5_K, true},
	{"q6_K", Q6_K, true},
	{"iq4_nl", IQ4_NL, true},
	{"iq4_xs", IQ4_XS, true},
	{"mxfp4", MXFP4, true},
}

const refRows, refCols = 64, 256

func readRef(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdir.Sub(t, "quant"), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readF32(t *testing.T, name string) []float32 {
	t.Helper()
	b := readRef(t, name)
	f := make([]float32, len(b)/4)
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return f
}

func rmse(a, b []float32) float64 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return math.Sqrt(s / float64(len(a)))
}

func TestDequantizeMatchesGGML(t *testing.T) {
	for _, rt := range refTypes {
		t.Run(rt.stem, func(t *testing.T) {
			bin := readRef(t, rt.stem+".bin")
			want := readF32(t, rt.stem+".dequant.f32")
			got := make([]float32, refRows*refCols)
			if err := Dequantize(rt.t, bin, got); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("element %d (row %d): got %v (%#08x), ggml %v (%#08x)", i, i/refCols,
						got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
			}
		})
	}
}

func TestQuantizeMatchesGGML(t *testing.T) {
	input := readF32(t, "input.f32")
	for _, rt := range refTypes {
		t.Run(rt.stem, func(t *testing.T) {
			want := readRef(t, rt.stem+".bin")
			got := make([]byte, len(want))
			// row by row, as ggml_quantize_chunk does
			rb, _ := rt.t.RowBytes(refCols)
			for r := 0; r < refRows; r++ {
				if err := Quantize(rt.t, input[r*refCols:(r+1)*refCols], got[r*rb:(r+1)*rb]); err != nil {
					t.Fatal(err)
				}
			}
			diffBlocks := 0
			bb := rt.t.BlockBytes()
			for i := 0; i < len(got); i += bb {
				if string(got[i:i+bb]) != string(want[i:i+bb]) {
					diffBlocks++
				}
			}
			if rt.exact && diffBlocks > 0 {
				t.Fatalf("%d of %d blocks differ from ggml's", diffBlocks, len(got)/bb)
			}
			deq := make([]float32, len(input))
			if err := Dequantize(rt.t, got, deq); err != nil {
				t.Fatal(err)
			}
			ours := rmse(deq, input)
			ref := rmse(readF32(t, rt.stem+".dequant.f32"), input)
			t.Logf("blocks differing from ggml: %d/%d; RMSE ours %.6g, ggml %.6g", diffBlocks, len(got)/bb, ours, ref)
			if ours > ref*(1+1e-9) {
				t.Fatalf("RMSE %.6g worse than ggml's %.6g", ours, ref)
			}
		})
	}
}
