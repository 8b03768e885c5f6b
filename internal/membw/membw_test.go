package membw

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/forma-llm/forma/gguf/quant"
)

// streamBytes is the buffer streamed per operation: far larger than any cache.
const streamBytes = 1 << 30

// BenchmarkStream reads a 1 GiB buffer with 1, 2, … GOMAXPROCS goroutines, each summing its part with the
// SIMD float32 dot product (quant.DotFunc(F32), reading the buffer against itself), and reports bytes read
// per second.
func BenchmarkStream(b *testing.B) {
	buf := make([]byte, streamBytes)
	for i := 0; i < len(buf); i += 4 {
		buf[i+3], buf[i+2] = 0x3f, byte(i>>2)|0x80 // floats in [1, 2): no denormal products to slow the FMAs
	}
	dot := quant.DotFunc(quant.F32)
	byThreads(b, "", streamBytes, func(t, threads int) {
		part := streamBytes / threads
		p := buf[t*part : (t+1)*part]
		// in 64 KiB pieces, so that the dot's float sums stay small
		for off := 0; off < len(p); off += 1 << 16 {
			dot(1<<14, p[off:off+1<<16], p[off:off+1<<16])
		}
	})
}

// BenchmarkStreamDot streams about 1 GiB of weight rows of each type through its dot product against one
// activation row (in cache), as a decode step did before the stored layouts (and still does for F16 and
// BF16), with 1 and 2 goroutines: bytes of weights per second.
// Compared with BenchmarkStream it tells whether a kernel keeps up with memory.
func BenchmarkStreamDot(b *testing.B) {
	const n = 2048
	for _, wt := range []quant.Type{quant.Q4_0, quant.Q8_0, quant.Q4_K, quant.Q6_K, quant.F16, quant.BF16} {
		rowBytes, _ := wt.RowBytes(n)
		rows := streamBytes / rowBytes
		w := make([]byte, rows*rowBytes)
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(i%17) - 8
		}
		row := make([]byte, rowBytes)
		if err := quant.Quantize(wt, x, row); err != nil {
			b.Fatal(err)
		}
		for r := 0; r < rows; r++ {
			copy(w[r*rowBytes:], row)
		}
		at := quant.ActivationType(wt)
		aBytes, _ := at.RowBytes(n)
		a := make([]byte, aBytes)
		if err := quant.QuantizeActivation(at, x, a); err != nil {
			b.Fatal(err)
		}
		dot := quant.DotFunc(wt)
		byThreads(b, strings.ToLower(wt.String()), int64(len(w)), func(t, threads int) {
			for r := rows * t / threads; r < rows*(t+1)/threads; r++ {
				dot(n, w[r*rowBytes:(r+1)*rowBytes], a)
			}
		})
	}
}

// BenchmarkStreamGemm streams about 1 GiB of weights of each type in its Gemm's stored layout (the layout the
// CPU backend keeps its matrices in) through MulPacked against one activation row, as a decode step does, with 1
// and 2 goroutines each taking a contiguous half of the row groups: bytes of weights per second, to set beside
// BenchmarkStream.
func BenchmarkStreamGemm(b *testing.B) {
	const n = 2048
	for _, wt := range []quant.Type{quant.Q4_0, quant.Q8_0, quant.Q4_K, quant.Q5_K, quant.Q6_K, quant.IQ4_XS} {
		for o := quant.OrderVecDot; o <= quant.OrderRepacked; o++ {
			g := quant.GemmFor(wt, o)
			if g == nil || g.PackedBytes(n, quant.GemmRows) == 0 {
				continue
			}
			streamGemm(b, g, n)
		}
	}
}

func streamGemm(b *testing.B, g *quant.Gemm, n int) {
	wt := g.Weight()
	rowBytes, _ := wt.RowBytes(n)
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i%17) - 8
	}
	w := make([]byte, quant.GemmRows*rowBytes)
	for r := 0; r < quant.GemmRows; r++ {
		if err := quant.Quantize(wt, x, w[r*rowBytes:(r+1)*rowBytes]); err != nil {
			b.Fatal(err)
		}
	}
	gb := g.PackedBytes(n, quant.GemmRows)
	groups := streamBytes / gb
	packed := make([]byte, groups*gb)
	g.Pack(n, w, rowBytes, quant.GemmRows, packed[:gb])
	for i := 1; i < groups; i++ {
		copy(packed[i*gb:], packed[:gb])
	}
	a := make([]byte, g.ActivationRowBytes(n))
	g.QuantizeActivation(x, a)
	rows := groups * quant.GemmRows
	out := make([]float32, rows)
	name := fmt.Sprintf("%s/%s", strings.ToLower(wt.String()), g.Order())
	byThreads(b, name, int64(groups*quant.GemmRows*rowBytes), func(t, threads int) {
		lo, hi := groups*t/threads, groups*(t+1)/threads
		g.MulPacked(n, packed[lo*gb:hi*gb], (hi-lo)*quant.GemmRows, a, len(a), 1, out[lo*quant.GemmRows:], rows)
	})
}

// byThreads runs a sub-benchmark name/threads=T for T = 1 … GOMAXPROCS, each operation part(t, T) on T
// goroutines at once (t = 0 … T−1), reading bytes in all.
func byThreads(b *testing.B, name string, bytes int64, part func(t, threads int)) {
	for threads := 1; threads <= runtime.GOMAXPROCS(0); threads++ {
		sub := fmt.Sprintf("threads=%d", threads)
		if name != "" {
			sub = name + "/" + sub
		}
		b.Run(sub, func(b *testing.B) {
			b.SetBytes(bytes)
			var wg sync.WaitGroup
			for b.Loop() {
				for t := 0; t < threads; t++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						part(t, threads)
					}()
				}
				wg.Wait()
			}
		})
	}
}
