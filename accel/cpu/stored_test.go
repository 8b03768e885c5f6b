package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/osmem"
)

// TestStoredWeight multiplies by a matrix and a stack of experts of 40 rows (the last group of 16 rows is
// partial) of three blocks each, of each type that has a stored layout somewhere, through programs of several
// batch sizes, and checks every product bit for bit against quant.RefDot on the original rows, GetRows of the
// same weight against its original rows, and where this CPU stores such weights (quant.Gemm.Pack), that the
// copy is made once, shared by the programs and freed by Close.
//
// With too little memory available for the copies, the same programs multiply in place. Weights in a file
// mapping (several pages long) are checked the same way after their pages were released (osmem.Release).
func TestStoredWeight(t *testing.T) {
	if avail, ok := memAvailable(); ok && avail < 1<<20 {
		t.Fatalf("memAvailable = %d bytes", avail)
	}
	for _, typ := range []quant.Type{quant.Q4_0, quant.Q8_0, quant.Q4_K} {
		t.Run(typ.String(), func(t *testing.T) { testStoredWeight(t, typ, true, false) })
		t.Run(typ.String()+"/mapped", func(t *testing.T) { testStoredWeight(t, typ, true, true) })
	}
	saved := memAvailable
	defer func() { memAvailable = saved }()
	memAvailable = func() (int64, bool) { return 1 << 10, true }
	for _, typ := range []quant.Type{quant.Q4_0, quant.Q8_0, quant.Q4_K} {
		t.Run(typ.String()+"/little-memory", func(t *testing.T) { testStoredWeight(t, typ, false, false) })
	}
}

func testStoredWeight(t *testing.T, typ quant.Type, roomy, mapped bool) {
	const rows, experts, k = 40, 3, 2
	in := 3 * typ.BlockElems()
	if mapped {
		in = 1024 // rows of several pages
	}
	r := rand.New(rand.NewPCG(5, 6))
	quantized := func(n int) []byte {
		rb, _ := typ.RowBytes(in)
		data := make([]byte, n*rb)
		x := make([]float32, in)
		for i := 0; i < n; i++ {
			for j := range x {
				x[j] = float32(r.NormFloat64())
			}
			if err := quant.Quantize(typ, x, data[i*rb:(i+1)*rb]); err != nil {
				t.Fatal(err)
			}
		}
		return data
	}
	wData, eData := quantized(rows), quantized(experts*rows)
	rb, _ := typ.RowBytes(in)
	b := newTestBackend(t, 3)
	b.eager = true
	wIn, eIn, mapping := wData, eData, []byte(nil)
	if mapped {
		mapping = mapFile(t, append(append([]byte{1, 2, 3}, wData...), eData...)) // not page-aligned
		wIn, eIn = mapping[3:3+len(wData)], mapping[3+len(wData):]
	}
	wu, err := b.Upload(accel.WeightData{Name: "w", Type: typ, Shape: []int{rows, in}, Data: wIn, Mapping: mapping})
	if err != nil {
		t.Fatal(err)
	}
	eu, err := b.Upload(accel.WeightData{Name: "experts", Type: typ, Shape: []int{experts, rows, in}, Data: eIn, Mapping: mapping})
	if err != nil {
		t.Fatal(err)
	}
	o := orderFor(typ, in, rows)
	ref := quant.RefDot(typ, o)
	at := quant.ActivationType(typ)
	act := make([]byte, storageBytes(at, in))
	storing := false
	if g := quant.GemmFor(typ, o); g != nil && g.PackedBytes(in, rows) > 0 && roomy {
		storing = true
	}
	var first []byte
	for _, n := range []int{1, 3, 8, 11} {
		bld := accel.NewBuilder()
		x := bld.Input("x", quant.F32, n, in)
		ids := bld.Input("ids", quant.I32, n)
		eids := bld.Input("eids", quant.I32, n, k)
		y := bld.Output(bld.MatMul(bld.Weight(wu), x))
		rowsOut := bld.Output(bld.GetRows(bld.Weight(wu), ids))
		ye := bld.Output(bld.MatMulID(bld.Weight(eu), x, eids))
		g, err := bld.Build()
		if err != nil {
			t.Fatal(err)
		}
		prog, err := b.Compile(g, accel.CompileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		xs := make([]float32, n*in)
		for i := range xs {
			xs[i] = float32(r.NormFloat64())
		}
		idv, eidv := make([]int32, n), make([]int32, n*k)
		for i := range idv {
			idv[i] = int32(r.IntN(rows))
			eidv[2*i], eidv[2*i+1] = int32(r.IntN(experts)), int32(r.IntN(experts))
		}
		prog.SetFloat32(x, xs)
		prog.SetInt32(ids, idv)
		prog.SetInt32(eids, eidv)
		if err := prog.Run(); err != nil {
			t.Fatal(err)
		}
		got, gotRows, gotE := make([]float32, n*rows), make([]float32, n*in), make([]float32, n*k*rows)
		prog.Read(y, got)
		prog.Read(rowsOut, gotRows)
		prog.Read(ye, gotE)
		table := make([]float32, rows*in)
		if err := quant.Dequantize(typ, wData, table); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if err := quant.QuantizeActivation(at, xs[i*in:(i+1)*in], act); err != nil {
				t.Fatal(err)
			}
			for o := 0; o < rows; o++ {
				want := ref(in, wData[o*rb:(o+1)*rb], act)
				if math.Float32bits(got[i*rows+o]) != math.Float32bits(want) {
					t.Fatalf("n=%d: y[%d][%d] = %v, reference %v", n, i, o, got[i*rows+o], want)
				}
				for j := 0; j < k; j++ {
					e := int(eidv[i*k+j])
					want := ref(in, eData[(e*rows+o)*rb:(e*rows+o+1)*rb], act)
					if g := gotE[(i*k+j)*rows+o]; math.Float32bits(g) != math.Float32bits(want) {
						t.Fatalf("n=%d: expert %d: y[%d][%d][%d] = %v, reference %v", n, e, i, j, o, g, want)
					}
				}
			}
			if fmt.Sprint(gotRows[i*in:(i+1)*in]) != fmt.Sprint(table[int(idv[i])*in:(int(idv[i])+1)*in]) {
				t.Fatalf("n=%d: GetRows of row %d differs from the original row", n, idv[i])
			}
		}
		mem := wu.(*weight).stored.mem
		if storing != (mem != nil) || storing != (eu.(*weight).stored.mem != nil) {
			t.Fatalf("n=%d: stored copies %v, %v; this CPU stores %s: %v", n, mem != nil, eu.(*weight).stored.mem != nil, typ, storing)
		}
		if first == nil {
			first = mem
		} else if unsafe.SliceData(mem) != unsafe.SliceData(first) {
			t.Fatalf("n=%d: a second stored copy of the same weight", n)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if wu.(*weight).stored.mem != nil || eu.(*weight).stored.mem != nil {
		t.Error("Close left a stored copy")
	}
}

// mapFile writes data to a temporary file and maps it read-only for the test.
func mapFile(t *testing.T, data []byte) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "weights")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := osmem.MapFile(f, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { osmem.Unmap(m) })
	return m
}
