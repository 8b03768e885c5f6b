package runtime

// The sliding-window layers' pages (see kvPool): a sequence holds the window cells of the pages its next token
// can see, from swaFirst on, and lets the others go as it advances. Everything here runs on the loop goroutine.

// swaPoolPages sizes the sliding-window pool for a window of w cells: per table row, the pages a window spans
// and the ones its next chunk starts and ends in, and the pages of a whole batch; at most the main pool's.
func swaPoolPages(w, pages, seqs, batch int) int {
	span := (w-1+PageSize-1)/PageSize + 1
	return min(pages, seqs*(span+2)+(batch+PageSize-1)/PageSize)
}

// swaFirst is the first page of s with cells within the window of its next token.
func (e *engine) swaFirst(s *sequence) int { return max(0, s.held-e.window+1) / PageSize }

// holdSWA takes s's hold of the window cells of its page j; false when the page has lost them.
func (e *engine) holdSWA(s *sequence, j int) bool {
	if s.swaRef[j] {
		return true
	}
	if !e.pool.holdSWA(s.pages[j]) {
		return false
	}
	s.swaRef[j] = true
	e.setSWAEntry(s, j)
	return true
}

// dropSWA drops s's hold of the window cells of its page j.
func (e *engine) dropSWA(s *sequence, j int) {
	if !s.swaRef[j] {
		return
	}
	e.pool.dropSWA(s.pages[j])
	s.swaRef[j] = false
	e.setSWAEntry(s, j)
}

// setSWAEntry writes s's page j into its row of the sliding-window page table: its window page, or -1 (released).
func (e *engine) setSWAEntry(s *sequence, j int) {
	if s.row < 0 || e.window == 0 {
		return
	}
	v := int32(-1)
	if s.swaRef[j] {
		v = e.pool.swaOf(s.pages[j])
	}
	e.in.swaTable[s.row*e.maxPages+j] = v
}

// releaseBehind drops s's holds of the pages wholly behind the window of its next token.
func (e *engine) releaseBehind(s *sequence) {
	if e.window == 0 {
		return
	}
	for j := range min(e.swaFirst(s), len(s.pages)) {
		e.dropSWA(s, j)
	}
}

// holdWindow makes s hold the window cells of every computed page its next token can see. Where a page has
// lost them (a cached prefix whose window cells were freed, or a request that goes back before what s let go),
// the sequence computes its cells again from that page on.
func (e *engine) holdWindow(s *sequence) {
	if e.window == 0 {
		return
	}
	for j := e.swaFirst(s); j < min((s.held+PageSize-1)/PageSize, len(s.pages)); j++ {
		if !e.holdSWA(s, j) {
			e.dropPages(s, j*PageSize)
			j = e.swaFirst(s) - 1 // the window now starts earlier
		}
	}
	e.releaseBehind(s)
}
