package cpu

import (
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
