package vulkan

import (
	"encoding/binary"
	goruntime "runtime"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/backendtest"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/gputest"
	"github.com/forma-llm/forma/internal/osmem"
)

// TestStaging runs the conformance suite on a device whose device-local memory is not mapped, so that weights
// and caches go through staging buffers (small ones, so that uploads take several chunks), as on a discrete GPU.
func TestStaging(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: the staging path is covered by the full run")
	}
	d := sharedDevice(t)
	d.noMap, d.stagingSize = true, 4096
	backendtest.Run(t, func(t *testing.T) accel.Backend { return newTestBackend(t, d) })
}

// TestSplitWeights splits every weight over buffers of 3 KiB (gputest.SplitWeights).
func TestSplitWeights(t *testing.T) {
	d := sharedDevice(t)
	whole, split := newTestBackend(t, d), newTestBackend(t, d)
	defer whole.Close()
	defer split.Close()
	split.partBytes = 3 << 10
	gputest.SplitWeights(t, whole, split, func(w accel.Weight) int { return len(w.(*weight).Parts) })
}

// TestLargeTensor uploads an F16 table of more than 1 GiB — over lavapipe's 128 MiB binding range, so it is
// split into parts — from memory outside the Go heap, checks that the Go heap stays small, and looks up rows
// in the first, a middle and the last part.
func TestLargeTensor(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode: uploads 1 GiB")
	}
	d := sharedDevice(t)
	b := newTestBackend(t, d)
	defer b.Close()
	const cols = 4096
	rows := (1<<30+64<<20)/(2*cols) + 3
	src, err := osmem.Alloc(rows * cols * 2) // zero pages until written
	if err != nil {
		t.Fatal(err)
	}
	defer osmem.Free(src)
	ids := []int32{0, int32(rows / 2), int32(rows - 1), 7}
	for _, id := range ids {
		for c := 0; c < cols; c++ {
			binary.LittleEndian.PutUint16(src[(int(id)*cols+c)*2:], quant.F32ToF16(float32(id%1000)+float32(c)/8))
		}
	}
	goruntime.GC()
	w, err := b.Upload(accel.WeightData{Name: "token_embd.weight", Type: quant.F16, Shape: []int{rows, cols}, Data: src})
	if err != nil {
		t.Fatal(err)
	}
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	if ms.HeapAlloc > 64<<20 {
		t.Errorf("Go heap %d MiB after uploading a 1 GiB weight", ms.HeapAlloc>>20)
	}
	t.Logf("%d parts; Go heap %d MiB", len(w.(*weight).Parts), ms.HeapAlloc>>20)
	g := accel.NewBuilder()
	it := g.Input("ids", accel.I32, len(ids))
	y := g.Output(g.GetRows(g.Weight(w), it))
	got := gputest.Run(t, b, g, y, nil, map[accel.Tensor][]int32{it: ids})
	for i, id := range ids {
		for _, c := range []int{0, 1, cols - 1} {
			want := quant.F16ToF32(quant.F32ToF16(float32(id%1000) + float32(c)/8))
			if v := got[i*cols+c]; v != want {
				t.Fatalf("row %d column %d: %g, want %g", id, c, v, want)
			}
		}
	}
}

// TestProgramRunAllocs checks that setting inputs, running and reading a compiled program allocates nothing
// (gputest.RunAllocs).
func TestProgramRunAllocs(t *testing.T) {
	b := newTestBackend(t, sharedDevice(t))
	defer b.Close()
	gputest.RunAllocs(t, b)
}

// BenchmarkDecodeStep measures one recorded decode step of gputest.DecodeProgram's layer (gputest.BenchDecode).
func BenchmarkDecodeStep(b *testing.B) {
	d := openDevice(b, false)
	defer d.Close()
	be, err := NewBackendOn(d)
	if err != nil {
		b.Skip(err)
	}
	defer be.Close()
	gputest.BenchDecode(b, be)
}

// TestDebug checks CompileOptions.Debug (gputest.Debug).
func TestDebug(t *testing.T) {
	b := newTestBackend(t, sharedDevice(t))
	defer b.Close()
	gputest.Debug(t, b)
}
