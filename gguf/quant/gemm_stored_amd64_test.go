//go:build amd64 && !noasm

package quant

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// setPolicy sets the one-column kernels' prefetching policy (prefetch_amd64.go): Zen 4's or the others'.
func setPolicy(zen4 bool) {
	streamAhead, streamL2 = 1, false
	if zen4 {
		streamAhead, streamL2 = 0, true
	}
}

// TestStreamAheadExact runs the stored Gemms under both prefetching policies (the one this CPU does not pick
// included): the bits are the same, no register the kernels use for their work is taken for the distance,
// and nothing is allocated.
func TestStreamAheadExact(t *testing.T) {
	defer setPolicy(isZen4(x86Family()))
	for _, zen4 := range []bool{false, true} {
		setPolicy(zen4)
		t.Run(fmt.Sprint("zen4=", zen4), func(t *testing.T) {
			testGemmStoredExact(t, storedGemms())
			testGemmStoredAllocs(t)
		})
	}
}

func TestIsZen4(t *testing.T) {
	for _, c := range []struct {
		vendor string
		family uint32
		want   bool
	}{{"AuthenticAMD", 0x19, true}, {"AuthenticAMD", 0x1a, false}, {"AuthenticAMD", 0x17, false}, {"GenuineIntel", 6, false}} {
		if got := isZen4(c.vendor, c.family); got != c.want {
			t.Errorf("isZen4(%q, %#x) = %v, want %v", c.vendor, c.family, got, c.want)
		}
	}
	if v, f := x86Family(); len(v) != 12 || f == 0 {
		t.Errorf("x86Family() = %q, %#x", v, f)
	}
}

// BenchmarkStreamAhead streams 512 MiB of stored groups of each type with a one-column kernel through MulPacked
// against one activation row, as a decode step does, under both prefetching policies (zen4=false: into L1
// ahead; zen4=true: touching, Q5_K and Q6_K into L2 ahead), with 1 and 2 goroutines: bytes of weights per
// second (the policy's choice for this CPU, against BenchmarkStream of internal/membw).
func BenchmarkStreamAhead(b *testing.B) {
	const n, bytes = 4096, 512 << 20
	defer setPolicy(isZen4(x86Family()))
	for _, wt := range []Type{Q4_K, Q5_K, Q6_K} {
		g := GemmFor(wt, OrderRepacked)
		if g == nil || g.storedBlock == 0 {
			g = GemmFor(wt, OrderVecDot)
		}
		if g == nil || g.storedBlock == 0 {
			continue
		}
		x := randRow(rand.New(rand.NewPCG(1, 1)), n)
		rowBytes, _ := wt.RowBytes(n)
		w := make([]byte, GemmRows*rowBytes)
		for r := 0; r < GemmRows; r++ {
			if err := Quantize(wt, x, w[r*rowBytes:]); err != nil {
				b.Fatal(err)
			}
		}
		gb := g.PackedBytes(n, GemmRows)
		groups := bytes / gb
		packed := make([]byte, groups*gb)
		g.Pack(n, w, rowBytes, GemmRows, packed[:gb])
		for i := 1; i < groups; i++ {
			copy(packed[i*gb:], packed[:gb])
		}
		a := make([]byte, g.ActivationRowBytes(n))
		g.QuantizeActivation(x, a)
		out := make([]float32, groups*GemmRows)
		for _, zen4 := range []bool{false, true} {
			for threads := 1; threads <= min(2, runtime.GOMAXPROCS(0)); threads++ {
				b.Run(fmt.Sprintf("%s/zen4=%v/threads=%d", benchName(wt), zen4, threads), func(b *testing.B) {
					setPolicy(zen4)
					b.SetBytes(int64(groups * GemmRows * rowBytes))
					var wg sync.WaitGroup
					for b.Loop() {
						for t := range threads {
							wg.Go(func() {
								lo, hi := groups*t/threads, groups*(t+1)/threads
								g.MulPacked(n, packed[lo*gb:hi*gb], (hi-lo)*GemmRows, a, len(a), 1, out[lo*GemmRows:], len(out))
							})
						}
						wg.Wait()
					}
				})
			}
		}
	}
}
