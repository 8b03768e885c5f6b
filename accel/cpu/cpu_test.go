package cpu

import (
	"math"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/backendtest"
)

func newTestBackend(t *testing.T, threads int) *Backend {
	t.Helper()
	b, err := New(Options{Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConformance runs the shared backend suite with several threads (so work really is split) and with one.
func TestConformance(t *testing.T) {
	for _, threads := range []int{3, 1} {
		if threads == 1 && testing.Short() {
			continue
		}
		t.Run(map[int]string{1: "1thread", 3: "3threads"}[threads], func(t *testing.T) {
			backendtest.Run(t, func(t *testing.T) accel.Backend { return newTestBackend(t, threads) })
		})
	}
}

// TestVexpf holds ggml_v_expf's AVX-512 form to its accuracy (within 2.5 ulp: the polynomial's 1.45, and the
// rounding of 1 + c1·b before the rest is added, which the AVX2 form avoids), exact 1 at 0, and 0 / +Inf
// beyond its range.
func TestVexpf(t *testing.T) {
	ulp := func(f float32) float64 {
		b := math.Float32bits(f)
		return float64(math.Float32frombits(b+1) - f)
	}
	for x := float32(-87); x < 88; x += 0.0137 {
		want := math.Exp(float64(x))
		got := vexpf(x)
		if d := math.Abs(float64(got)-want) / ulp(float32(want)); d > 2.5 {
			t.Fatalf("vexpf(%v) = %v, exp %v: %.2f ulp", x, got, want, d)
		}
	}
	for _, c := range []struct{ x, want float32 }{{0, 1}, {-200, 0}, {200, float32(math.Inf(1))}} {
		if got := vexpf(c.x); got != c.want {
			t.Errorf("vexpf(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}
