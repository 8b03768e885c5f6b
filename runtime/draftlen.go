package runtime

import "time"

// Prompt lookup sizes its drafts by what they are expected to earn against what they cost. A pass of r rows
// costs c(r), measured on the session's own passes (a running mean per row count); each draft stands with a
// probability p estimated from the latest drafts (the older, the less they weigh). The k-th draft stands only if
// all before it did, so k drafts are expected to give 1 + p + … + p^k tokens, and the drafter asks for the k
// with the most tokens per second of pass. Where a pass costs about the same whatever its rows (a model bound by
// reading its weights) that is as many as the match offers; where every row costs as much as the first (a model
// small enough to stay in cache, whose attention work grows with the rows) few, or none.
type draftSizer struct {
	cost        []float64 // seconds of a pass of r rows at index r, a running mean; 0: not measured yet
	stood, fell float64   // drafts that stood, and drafting passes cut short by a rejection, decayed
}

const (
	costWeight = 0.25 // the weight of a new measurement in its row count's mean
	draftDecay = 0.75 // the weight the acceptance counts keep at each pass that drafts, or could have
)

// reset sizes the cost table for passes of up to maxRows rows (kept measurements stay: they are the
// session's) and starts the acceptance estimate from its prior, p = 1/2.
func (z *draftSizer) reset(maxRows int) {
	if len(z.cost) < maxRows+1 {
		z.cost = append(z.cost, make([]float64, maxRows+1-len(z.cost))...)
	}
	z.stood, z.fell = 1, 1
}

// observe records that a pass of rows rows took d.
func (z *draftSizer) observe(rows int, d time.Duration) {
	if rows <= 0 || rows >= len(z.cost) {
		return
	}
	if c := &z.cost[rows]; *c == 0 {
		*c = d.Seconds()
	} else {
		*c += costWeight * (d.Seconds() - *c)
	}
}

// feedback records that accepted of drafted drafts stood; a pass without drafts by choice moves the estimate
// back toward its prior, so that a run of misses does not end drafting for good.
func (z *draftSizer) feedback(drafted, accepted int) {
	z.stood *= draftDecay
	z.fell *= draftDecay
	switch {
	case drafted == 0:
		z.stood += 1 - draftDecay
		z.fell += 1 - draftDecay
	case accepted < drafted:
		z.stood += float64(accepted)
		z.fell++
	default:
		z.stood += float64(accepted)
	}
}

// length returns the drafts to ask for: 0, or from least to most, whichever earns the most tokens per second.
func (z *draftSizer) length(least, most int) int {
	least = max(least, 1)
	p := z.stood / (z.stood + z.fell)
	best, bestRate := 0, 1/z.passCost(1)
	expect, pk := 1.0, 1.0
	for k := 1; k <= most; k++ {
		pk *= p
		expect += pk
		if rate := expect / z.passCost(k+1); k >= least && rate > bestRate {
			best, bestRate = k, rate
		}
	}
	return best
}

// passCost returns c(rows): the measured mean, else the line between the nearest measured counts on either
// side, else (none above) the nearest below, so that a size not tried yet looks cheap and gets tried; 1 when
// nothing is measured.
func (z *draftSizer) passCost(rows int) float64 {
	if rows < len(z.cost) && z.cost[rows] > 0 {
		return z.cost[rows]
	}
	lo, hi := 0, 0
	for r := min(rows, len(z.cost)) - 1; r > 0 && lo == 0; r-- {
		if z.cost[r] > 0 {
			lo = r
		}
	}
	for r := rows + 1; r < len(z.cost) && hi == 0; r++ {
		if z.cost[r] > 0 {
			hi = r
		}
	}
	switch {
	case lo > 0 && hi > 0:
		return z.cost[lo] + (z.cost[hi]-z.cost[lo])*float64(rows-lo)/float64(hi-lo)
	case lo > 0:
		return z.cost[lo]
	case hi > 0:
		return z.cost[hi]
	}
	return 1
}
