package vulkan

import "sort"

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

// interval is a request for workspace: size bytes from step first to step last (inclusive).
type interval struct {
	first, last int
	size        int64
	off         int64 // assigned
}

// packIntervals gives every interval an offset so that intervals live at the same time do not overlap,
// reusing the space of finished ones (first fit in offset order), and returns the total size. Offsets are
// multiples of align.
func packIntervals(iv []*interval, align int64) int64 {
	order := append([]*interval(nil), iv...)
	sort.SliceStable(order, func(i, j int) bool { return order[i].first < order[j].first })
	var live []*interval
	var top int64
	for _, it := range order {
		kept := live[:0]
		for _, l := range live {
			if l.last >= it.first {
				kept = append(kept, l)
			}
		}
		live = kept
		sort.Slice(live, func(i, j int) bool { return live[i].off < live[j].off })
		size := (it.size + align - 1) &^ (align - 1)
		off := int64(0)
		for _, l := range live {
			if off+size <= l.off {
				break
			}
			off = max(off, l.off+((l.size+align-1)&^(align-1)))
		}
		it.off = off
		top = max(top, off+size)
		live = append(live, it)
	}
	return top
}
