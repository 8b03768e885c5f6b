package membw

import (
	"fmt"
	"runtime"
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
