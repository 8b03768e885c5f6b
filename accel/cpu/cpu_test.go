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

// TestConformance runs the shared backend suite with three threads splitting every step however small (the
// small test shapes would otherwise stay on one thread), with three threads as in use, and with one.
func TestConformance(t *testing.T) {
	cases := []struct {
		name    string
		threads int
		eager   bool
	}{{"3threads-split", 3, true}, {"3threads", 3, false}, {"1thread", 1, false}}
	for _, c := range cases {
		if testing.Short() && c.name != "3threads-split" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			backendtest.Run(t, func(t *testing.T) accel.Backend {
				b := newTestBackend(t, c.threads)
				b.eager = c.eager
				return b
			})
		})
	}
}

// TestBatchInvariance: every op gives a row the same bits alone, in batches of any size and composition, and
// with 1, 2, 3 or 5 threads (backendtest.Invariance).
func TestBatchInvariance(t *testing.T) {
	var bes []accel.Backend
	for _, threads := range []int{1, 2, 3, 5} {
		be, err := New(Options{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		defer be.Close()
		bes = append(bes, be)
	}
	backendtest.Invariance(t, bes...)
}
