package vulkan

// region is a byte range of a buffer that a recorded command reads or writes.
type region struct {
	buf    *Buffer
	lo, hi int64
}

func (r region) overlaps(o region) bool { return r.buf == o.buf && r.lo < o.hi && o.lo < r.hi }

// hazards tracks what the commands recorded since the last barrier read and wrote, so that a barrier is
// recorded only where a command depends on an earlier one: it reads or writes what an earlier command wrote,
// or writes what an earlier command read.
type hazards struct {
	reads, writes []region
}

func anyOverlap(rs []region, r region) bool {
	for _, o := range rs {
		if o.overlaps(r) {
			return true
		}
	}
	return false
}

// conflicts reports whether a command with these accesses needs a barrier before it.
func (h *hazards) conflicts(reads, writes []region) bool {
	for _, w := range writes {
		if anyOverlap(h.reads, w) || anyOverlap(h.writes, w) {
			return true
		}
	}
	for _, r := range reads {
		if anyOverlap(h.writes, r) {
			return true
		}
	}
	return false
}

func (h *hazards) add(reads, writes []region) {
	h.reads = append(h.reads, reads...)
	h.writes = append(h.writes, writes...)
}

func (h *hazards) reset() { h.reads, h.writes = h.reads[:0], h.writes[:0] }
