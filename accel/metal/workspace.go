package metal

import "sort"

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
		size := alignUp(it.size, align)
		off := int64(0)
		for _, l := range live {
			if off+size <= l.off {
				break
			}
			off = max(off, l.off+alignUp(l.size, align))
		}
		it.off = off
		top = max(top, off+size)
		live = append(live, it)
	}
	return top
}
