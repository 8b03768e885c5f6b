package runtime

import (
	"math"
	"sync/atomic"
	"time"
)

// passCosts keeps the recent times of the engine's generation steps by the rows (tokens) a session evaluated
// (the chosen token and its drafts), with the context they ran at, for sizing lookup drafts: a size's cost at
// a context is the least of its last costWindow steps taken within an eighth of that context (costNear), the
// time of the work itself, which steps slowed by other programs on the machine do not raise. A pass's time
// grows with the cells its rows attend to (on a small model nearly in proportion), and sessions at other
// lengths share the table: the least time of a size last used at a shorter context would make it look cheaper
// than the sizes in use now. Prompts are not timed: the few rows left after the prefix cache's pages would
// stand for rows of generation at a shorter context. Sessions write and read it concurrently (atomics: a
// reader may see a step more or less).
type passCosts struct {
	times [maxSizeRows + 1][costWindow]atomic.Int64 // a ring per size: nanoseconds<<costCtxBits | context
	seen  [maxSizeRows + 1]atomic.Int64             // passes timed per size
}

const (
	costWindow  = 16
	costTrust   = 3  // timings after which a size's least time stands for it
	maxSizeRows = 64 // passes of more rows are not timed (drafts beyond are taken as the lookup gives them)
	costCtxBits = 24 // the context of a timing, in cells (longer ones count as 2^24−1)
	costCtxMask = 1<<costCtxBits - 1
)

// costNear reports whether a timing taken at context at stands for one at cells (cells < 0: any context).
func costNear(at, cells int) bool {
	return cells < 0 || at >= cells-max(cells/8, 32) && at <= cells+max(cells/8, 32)
}

// observe records the time of a pass of rows rows at a context of cells.
func (c *passCosts) observe(rows, cells int, t time.Duration) {
	if rows <= maxSizeRows {
		i := c.seen[rows].Add(1) - 1
		c.times[rows][i%costWindow].Store(min(int64(t), math.MaxInt64>>costCtxBits)<<costCtxBits | int64(min(cells, costCtxMask)))
	}
}

// cost returns the least recent time of a pass of rows rows near a context of cells (costNear) and how many
// of the recent ones (at most costWindow) were near it.
func (c *passCosts) cost(rows, cells int) (time.Duration, int) {
	if rows > maxSizeRows {
		return 0, 0
	}
	least, near := int64(math.MaxInt64), 0
	for i := range min(c.seen[rows].Load(), costWindow) {
		v := c.times[rows][i].Load()
		if costNear(int(v&costCtxMask), min(cells, costCtxMask)) {
			least, near = min(least, v>>costCtxBits), near+1
		}
	}
	if near == 0 {
		return 0, 0
	}
	return time.Duration(least), near
}

// draftSizer picks how many of the lookup drafts (up to Speculation.Max) a step evaluates. A draft costs a row
// of the pass whether it stands or not, and what a row costs depends on the model and the machine: on a model
// bound by reading its weights a pass of 17 rows costs about what one of 1 does; on a small one each row adds,
// and more where the attention's kernels start a new block of lanes. So the sizer asks for the d drafts with
// the least expected time per token, cost(1+d) / E(d), with the engine's pass costs (passCosts) and E(d) = 1 +
// p₁ + p₁p + … + p₁p^(d−1) the expected tokens of the step: p₁ the recent rate at which a step's first draft
// stood, p the rate at which a later one stood after the one before it did (n-gram drafts stand in runs). A
// size not timed yet is tried when the lookup offers that many drafts or when it is one row more than the
// largest size timed costTrust times (so the sizes are learned one by one, up to where they stop paying),
// priced by extrapolating the two largest sizes timed costTrust times below it (or as the one, if there is
// one); a size timed fewer times is priced at the lesser of its time and that, so that one slow first pass
// (which builds the size's program) does not rule it out.
type draftSizer struct {
	// decayed counts of drafts that stood: first drafts, and later ones whose predecessor stood
	firstOK, first, nextOK, next float64
}

const draftDecay = 0.7 // the weight of the record per step: the last ~3 steps count

// reset starts the record of a generation.
func (z *draftSizer) reset() { *z = draftSizer{} }

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
	z.next += float64(min(drafted, accepted+1) - 1)
	z.nextOK += float64(min(accepted, drafted) - min(accepted, 1))
}

// size returns how many of n drafts (n ≥ 1) to evaluate at a context of cells with the passes' costs c: at
// least one.
func (z *draftSizer) size(c *passCosts, n, cells int) int {
	c1, seen := c.cost(1, cells)
	if seen == 0 {
		c1, seen = c.cost(1, -1) // a session drafting in every step times few one-row passes
	}
	if seen == 0 {
		return n
	}
	p1, p := (z.firstOK+1)/(z.first+2), (z.nextOK+1)/(z.next+2) // with one success and one failure as a prior
	best, bestPer := n, math.Inf(1)
	q, e := 1.0, 1.0
	r1, t1, r2, t2 := 1, c1, 0, time.Duration(0) // the two largest sizes timed costTrust times so far
	for d := 1; d <= n; d++ {
		if d == 1 {
			q = p1
		} else {
			q *= p
		}
		e += q
		est := t1 // the price of an untimed size: the two largest timed below, extended
		if r2 > 0 {
			est = t1 + time.Duration(float64(max(t1-t2, 0))*float64(1+d-r1)/float64(r1-r2))
		}
		t, seen := c.cost(1+d, cells)
		switch {
		case seen >= costTrust:
			r2, t2, r1, t1 = r1, t1, 1+d, t
		case seen > 0:
			t = min(t, est) // a size timed once or twice (its first pass builds its program) is tried again
		case d < n && d > r1: // 1+d rows, more than one above the largest known
			continue // tried when the lookup offers that many, or when the size below is known
		default:
			t = est
		}
		if per := float64(t) / e; per < bestPer {
			best, bestPer = d, per
		}
	}
	return best
}
