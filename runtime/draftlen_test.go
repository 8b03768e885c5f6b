package runtime

import (
	"testing"
	"time"
)

// TestDraftSizer: the drafts asked for follow the passes' costs and the drafts' record. With passes that cost
// the same whatever their rows, as many as allowed; with every row costing as much as a pass of one, none
// (the best a draft can do is pay for itself); with a step in the cost after 4 rows (the attention's lanes of a
// small model), as many as fill the step's lanes when drafts stand, no more than fit below it when about two
// in three do, and none when they fall.
func TestDraftSizer(t *testing.T) {
	ms := time.Millisecond
	flat := func(r int) time.Duration { return 10 * ms }
	linear := func(r int) time.Duration { return time.Duration(r) * ms }
	step := func(r int) time.Duration { return time.Duration(200+20*r+150*((r+3)/4)) * time.Microsecond }
	for _, c := range []struct {
		name        string
		cost        func(int) time.Duration
		stood       int // of the 4 drafts of each of six passes
		least, want int // least drafts; the drafts asked for (out of at most 8)
	}{
		{"flat", flat, 4, 0, 8},
		{"flat, misses", flat, 0, 0, 8},
		{"linear", linear, 4, 0, 0},
		{"step, hits", step, 4, 0, 7},
		{"step, two of four", step, 2, 0, 3},
		{"step, misses", step, 0, 0, 0},
		{"step, two of four, least 4", step, 2, 4, 5},
		{"step, misses, least 2", step, 0, 2, 0},
	} {
		var z draftSizer
		z.reset(9)
		for r := 1; r <= 9; r++ {
			z.observe(r, c.cost(r))
		}
		for range 6 {
			z.feedback(4, c.stood)
		}
		if got := z.length(c.least, 8); got != c.want {
			t.Errorf("%s: %d drafts, want %d (p %.2f)", c.name, got, c.want, z.stood/(z.stood+z.fell))
		}
	}
}

// TestDraftSizerCosts: unmeasured pass sizes are costed by the line between measured ones, or as the largest
// measured one below (so that they get tried); the running mean follows new measurements.
func TestDraftSizerCosts(t *testing.T) {
	var z draftSizer
	z.reset(16)
	if c := z.passCost(3); c != 1 {
		t.Errorf("nothing measured: c(3) = %g, want 1", c)
	}
	z.observe(1, 100*time.Millisecond)
	z.observe(5, 500*time.Millisecond)
	for _, c := range []struct {
		rows int
		want float64
	}{{1, 0.1}, {3, 0.3}, {5, 0.5}, {9, 0.5}} {
		if got := z.passCost(c.rows); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("c(%d) = %g, want %g", c.rows, got, c.want)
		}
	}
	z.observe(1, 500*time.Millisecond)
	if got := z.passCost(1); got < 0.2-1e-9 || got > 0.2+1e-9 {
		t.Errorf("after 0.1 s and 0.5 s: c(1) = %g, want 0.2", got)
	}
	z.observe(0, time.Second)  // ignored
	z.observe(17, time.Second) // past the table: ignored
}
