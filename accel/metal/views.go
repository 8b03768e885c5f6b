package metal

// viewPlan places the tensors of one read-only file mapping in no-copy views of it. Metal wraps host memory
// only from a page boundary and in whole pages, and no buffer may exceed maxBufferLength, so a large file is
// covered by several views, each of which must hold whole tensors (a shader binds one buffer per tensor). Views
// are made as tensors need them, on a grid: a view starts at a multiple of half the limit and spans the limit,
// so any tensor up to half the limit lies whole in the view of the grid line before it, whatever order tensors
// come in, and a mapping within the limit is one view. A larger tensor gets a view from its own page. Views
// stop at the mapping's last page. (ggml-metal likewise cuts the file into views overlapping by its largest
// tensor.)
type viewPlan struct {
	size  int64 // bytes of the mapping (its base is page-aligned)
	page  int64 // the OS page size
	limit int64 // the largest view, a whole number of pages
	views []viewRange
}

// viewRange is [lo, hi) of the mapping: lo page-aligned, hi-lo a whole number of pages within limit.
type viewRange struct{ lo, hi int64 }

func newViewPlan(size, page, maxBuffer int64) *viewPlan {
	return &viewPlan{size: size, page: page, limit: maxBuffer / page * page}
}

// place returns the view holding bytes [lo, hi) of the mapping, adding it when no view holds them yet (added).
// ok is false when no view can hold them: the range is outside the mapping or larger than a view may be.
func (v *viewPlan) place(lo, hi int64) (idx int, added, ok bool) {
	if lo < 0 || hi > v.size || lo >= hi {
		return 0, false, false
	}
	for i, r := range v.views {
		if r.lo <= lo && hi <= r.hi {
			return i, false, true
		}
	}
	step := v.limit / 2 / v.page * v.page
	last := (v.size + v.page - 1) / v.page * v.page // the end of the mapping's last page
	start := lo / v.page * v.page
	if step > 0 && hi-lo <= step {
		start = lo / step * step
	}
	start = min(start, max(0, last-v.limit)) // as much of the mapping as the limit allows
	end := min(start+v.limit, last)
	if hi > end {
		return 0, false, false
	}
	v.views = append(v.views, viewRange{start, end})
	return len(v.views) - 1, true, true
}
