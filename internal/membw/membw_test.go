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
	for threads := 1; threads <= runtime.GOMAXPROCS(0); threads++ {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			part := streamBytes / threads
			b.SetBytes(streamBytes)
			var wg sync.WaitGroup
			for b.Loop() {
				for t := 0; t < threads; t++ {
					wg.Add(1)
					go func(p []byte) {
						defer wg.Done()
						// in 64 KiB pieces, so that the dot's float sums stay small
						for off := 0; off < len(p); off += 1 << 16 {
							dot(1<<14, p[off:off+1<<16], p[off:off+1<<16])
						}
					}(buf[t*part : (t+1)*part])
				}
				wg.Wait()
			}
		})
	}
}

// BenchmarkStreamDot streams about 1 GiB of weight rows of each type through its dot product against one
// activation row (in cache), as a decode step does, with 1 and 2 goroutines: bytes of weights per second.
// Compared with BenchmarkStream it tells whether a kernel keeps up with memory.
func BenchmarkStreamDot(b *testing.B) {
	const n = 2048
	for _, wt := range []quant.Type{quant.Q4_0, quant.Q8_0, quant.Q4_K, quant.Q6_K} {
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
		for threads := 1; threads <= runtime.GOMAXPROCS(0); threads++ {
			b.Run(fmt.Sprintf("%s/threads=%d", strings.ToLower(wt.String()), threads), func(b *testing.B) {
				b.SetBytes(int64(len(w)))
				var wg sync.WaitGroup
				for b.Loop() {
					for t := 0; t < threads; t++ {
						wg.Add(1)
						go func(lo, hi int) {
							defer wg.Done()
							for r := lo; r < hi; r++ {
								dot(n, w[r*rowBytes:(r+1)*rowBytes], a)
							}
						}(rows*t/threads, rows*(t+1)/threads)
					}
					wg.Wait()
				}
			})
		}
	}
}
