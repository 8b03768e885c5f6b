package runtime

import (
	"testing"
	"time"
)

// TestDraftSizer: the sizer asks for the drafts with the least expected pass time per token. With passes whose
// cost steps up after 4 rows (a small model: the attention's lanes) and drafts that stand in runs, it stops
// before the step; with passes that cost the same whatever their rows (a model bound by reading its weights),
// it takes all the lookup gives; a pass slowed by the machine does not raise a size's cost (the least of the
// recent passes counts); a size not timed yet is tried when the lookup offers that many or when it is one row
// more than the largest known, and one timed once, slowly (its first pass), is tried again; and with drafts
// that rarely stand, on passes whose rows cost, it takes one.
func TestDraftSizer(t *testing.T) {
	us := func(v float64) time.Duration { return time.Duration(v * 1e3) }
	const at = 600 // the context of every pass, in cells
	step := []float64{0, 145, 150, 196, 198, 289, 293, 310, 336, 474, 490, 500, 526, 560, 600, 630, 662, 810}
	flat := []float64{0, 1000, 1001, 1002, 1004, 1005, 1006, 1007, 1008, 1010, 1011, 1012, 1013, 1014, 1015, 1016, 1017, 1018}
	run := func(costs []float64, accepted func(drafted int) int, slow bool) (*draftSizer, *passCosts) {
		var z draftSizer
		var c passCosts
		for rows := 1; rows < len(costs); rows++ {
			for range costTrust {
				c.observe(rows, at, us(costs[rows]))
			}
			if slow && rows == 4 {
				c.observe(rows, at, us(costs[rows]*3)) // a pass while the machine was busy
			}
		}
		for range 40 {
			z.feedback(16, accepted(16))
		}
		return &z, &c
	}
	runs := func(drafted int) int { return min(drafted, 6) } // drafts stand in runs of ~6
	rare := func(int) int { return 0 }
	for _, c := range []struct {
		name     string
		costs    []float64
		accepted func(int) int
		slow     bool
		n, want  int
	}{
		{"step", step, runs, false, 16, 3},
		{"step, busy machine", step, runs, true, 16, 3},
		{"step, a short match", step, runs, false, 2, 2},
		{"flat", flat, runs, false, 16, 16},
		{"step, rare", step, rare, false, 16, 1},
	} {
		z, costs := run(c.costs, c.accepted, c.slow)
		if got := z.size(costs, c.n, at); got != c.want {
			t.Errorf("%s: %d of %d drafts, want %d", c.name, got, c.n, c.want)
		}
	}
	var z draftSizer
	var c passCosts
	for range 40 {
		z.feedback(9, 9) // every draft stands
	}
	if got := z.size(&c, 9, at); got != 9 {
		t.Errorf("no pass timed: %d of 9 drafts, want all", got)
	}
	for range costTrust {
		c.observe(1, at, us(100))
		c.observe(3, at, us(110))
	}
	if got := z.size(&c, 9, at); got != 9 {
		t.Errorf("10 rows not timed: %d of 9 drafts, want all (priced from 1 and 3 rows)", got)
	}
	c.observe(5, at, us(1000)) // its first pass, which built its program
	if got := z.size(&c, 9, at); got != 9 {
		t.Errorf("10 rows not timed, 5 rows timed once, slowly: %d of 9 drafts, want all (5 rows tried again)", got)
	}
	for range costTrust {
		c.observe(5, at, us(300))
	}
	if got := z.size(&c, 9, at); got != 3 {
		t.Errorf("10 rows not timed, 5 rows dear: %d of 9 drafts, want 3 (4 rows, the size after 3, tried)", got)
	}
	for range costTrust {
		c.observe(4, at, us(280))
	}
	if got := z.size(&c, 9, at); got != 2 {
		t.Errorf("10 rows not timed, 4 and 5 rows dear: %d of 9 drafts, want 2", got)
	}
}

// TestDraftSizerContext: a size's timings price it only near the context they were taken at. Passes cost
// twice as much at 800 cells as at 400 (a small model's attention); a size last used at 400 cells, whose least
// time there is what a size in use costs at 800, is not taken for as cheap at 800, and one-row passes timed
// elsewhere still price the sizes when none was timed near the step's context.
func TestDraftSizerContext(t *testing.T) {
	us := func(v float64) time.Duration { return time.Duration(v * 1e3) }
	step := []float64{0, 145, 150, 196, 198, 289, 293, 310, 336}
	var z draftSizer
	for range 40 {
		z.feedback(16, 6) // drafts stand in runs of ~6
	}
	var c passCosts
	for range costTrust {
		for rows := 1; rows <= 5; rows++ {
			c.observe(rows, 800, us(2*step[rows]))
		}
		c.observe(8, 400, us(step[8]))
	}
	if got := z.size(&c, 16, 800); got != 3 {
		t.Errorf("at 800 cells, 8 rows timed at 400: %d of 16 drafts, want 3 (4 rows)", got)
	}
	if got := z.size(&c, 7, 410); got != 7 {
		t.Errorf("at 410 cells, 8 rows timed at 400, one row at 800: %d of 7 drafts, want 7", got)
	}
	for _, q := range []struct{ cells, near int }{{457, costTrust}, {458, 0}, {356, costTrust}, {355, 0}, {-1, costTrust}} {
		if _, n := c.cost(8, q.cells); n != q.near {
			t.Errorf("8 rows at %d cells: %d timings near, want %d (an eighth of the context from 400)", q.cells, n, q.near)
		}
	}
}
