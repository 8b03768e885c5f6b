package runtime

import "time"

// draftSizer picks how many of the lookup drafts the span allows a step evaluates. A draft costs a row of the
// pass whether it stands or not, and what a row costs depends on the model and the machine: on a model bound
// by reading its weights a pass of 17 rows costs about what one of 1 does; on a small one each row adds, and
// more where the attention's kernels start a new block of lanes. So the sizer times the passes by their rows
// and asks for the d drafts with the least expected time per token, cost(1+d) / E(d), where E(d) = 1 + p₁ +
// p₁p + … + p₁p^(d−1) is the expected tokens of the step: p₁ the recent rate at which a step's first draft
// stood, p the rate at which a later one stood after the one before it did (n-gram drafts stand in runs).
//
// A pass's cost is the least of the last costWindow passes of its rows: the time of the work itself, which
// passes slowed by other programs on the machine do not raise. A size not timed yet is tried when the span
// asks for it, at the price of the largest timed size below it, and timed then.
type draftSizer struct {
	times [][costWindow]time.Duration // by rows: the last passes' times, a ring
	seen  []int                       // by rows: passes timed
	// decayed counts of drafts that stood: first drafts, and later ones whose predecessor stood
	firstOK, first, nextOK, next float64
}

const (
	costWindow  = 16
	draftDecay  = 0.95 // the weight of the record per step: the last ~20 steps count
	maxSizeRows = 64   // passes of more rows are not timed (their drafts are taken as the span gives them)
)

// reset starts the record of a generation whose passes hold at most rows rows.
func (z *draftSizer) reset(rows int) {
	rows = min(rows, maxSizeRows) + 1
	if cap(z.seen) < rows {
		z.times, z.seen = make([][costWindow]time.Duration, rows), make([]int, rows)
	}
	z.times, z.seen = z.times[:rows], z.seen[:rows]
	clear(z.seen)
	z.firstOK, z.first, z.nextOK, z.next = 0, 0, 0, 0
}

// observe records the time of a pass of rows rows.
func (z *draftSizer) observe(rows int, t time.Duration) {
	if rows < len(z.seen) {
		z.times[rows][z.seen[rows]%costWindow] = t
		z.seen[rows]++
	}
}

// cost returns the least recent time of a pass of rows rows, and whether one was timed.
func (z *draftSizer) cost(rows int) (time.Duration, bool) {
	if rows >= len(z.seen) || z.seen[rows] == 0 {
		return 0, false
	}
	c := z.times[rows][0]
	for _, t := range z.times[rows][1:min(z.seen[rows], costWindow)] {
		c = min(c, t)
	}
	return c, true
}

// feedback records that accepted of the drafted drafts of a step stood.
func (z *draftSizer) feedback(drafted, accepted int) {
	if drafted == 0 {
		return
	}
	z.firstOK, z.first, z.nextOK, z.next = z.firstOK*draftDecay, z.first*draftDecay, z.nextOK*draftDecay, z.next*draftDecay
	z.first++
	if accepted > 0 {
		z.firstOK++
	}
	// drafts 2 … accepted+1 were judged after their predecessor stood
	judged := min(drafted, accepted+1) - 1
	z.next += float64(judged)
	z.nextOK += float64(min(accepted, drafted) - min(accepted, 1))
}

// size returns how many of n drafts (n ≥ 1) to evaluate: at least one.
func (z *draftSizer) size(n int) int {
	c1, ok := z.cost(1)
	if !ok {
		return n
	}
	p1, p := (z.firstOK+1)/(z.first+2), (z.nextOK+1)/(z.next+2) // with one success and one failure as a prior
	best, bestPer := n, 0.0
	known, q, e := c1, 1.0, 1.0
	for d := 1; d <= n; d++ {
		if d == 1 {
			q = p1
		} else {
			q *= p
		}
		e += q
		c, ok := z.cost(1 + d)
		switch {
		case ok:
			known = c
		case d < n:
			continue // tried when the span asks for it
		default:
			c = known
		}
		if per := float64(c) / e; d == 1 || per < bestPer {
			best, bestPer = d, per
		}
	}
	return best
}
