package metal

import (
	"math/rand/v2"
	"testing"
)

// TestViewPlan places tensors of synthetic GGUF-like layouts (32-byte aligned, sizes from bytes to most of a
// view, uploaded in file order and shuffled) with 4 KiB and 16 KiB pages and several view limits, and checks
// every view is page-aligned, whole pages, within the limit and the mapping's last page, and that every tensor
// lies whole in the view it was given, and that a mapping within the limit is one view and a larger one few.
func TestViewPlan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, page := range []int64{4096, 16384} {
		for _, limit := range []int64{8 * page, 100*page + 123, 1 << 30} {
			for trial := 0; trial < 20; trial++ {
				var tensors [][2]int64
				big := 0
				off := int64(r.IntN(3000)) // the header
				for n := 5 + r.IntN(60); n > 0; n-- {
					off = (off + 31) &^ 31
					size := int64(1 + r.IntN(int(min(limit/2, 1<<20))))
					if r.IntN(10) == 0 {
						size = limit - page - int64(r.IntN(int(page))) // nearly a whole view
					}
					if size > limit/2 {
						big++
					}
					tensors = append(tensors, [2]int64{off, off + size})
					off += size
				}
				if trial%2 == 1 {
					r.Shuffle(len(tensors), func(i, j int) { tensors[i], tensors[j] = tensors[j], tensors[i] })
				}
				v := newViewPlan(off, page, limit)
				for _, ts := range tensors {
					idx, _, ok := v.place(ts[0], ts[1])
					if !ok {
						if ts[1]-ts[0] <= v.limit-page {
							t.Fatalf("page %d limit %d: tensor %v of %d bytes was not placed", page, limit, ts, ts[1]-ts[0])
						}
						continue
					}
					w := v.views[idx]
					if w.lo > ts[0] || ts[1] > w.hi {
						t.Fatalf("tensor %v straddles view %v", ts, w)
					}
				}
				last := (off + page - 1) / page * page
				for _, w := range v.views {
					if w.lo%page != 0 || (w.hi-w.lo)%page != 0 || w.hi-w.lo > limit || w.lo < 0 || w.hi > last {
						t.Fatalf("page %d limit %d: bad view %v of a %d-byte mapping", page, limit, w, off)
					}
				}
				if (off+page-1)/page*page <= v.limit && len(v.views) != 1 {
					t.Errorf("a mapping within the limit takes %d views", len(v.views))
				}
				if most := 2*off/v.limit + 2 + int64(big); int64(len(v.views)) > most {
					t.Errorf("%d views for a %d-byte mapping, limit %d, %d tensors over half the limit", len(v.views), off, v.limit, big)
				}
			}
		}
	}
}

func TestViewPlanEdges(t *testing.T) {
	v := newViewPlan(10000, 4096, 8192)
	for _, c := range []struct {
		lo, hi int64
		idx    int
		added  bool
		ok     bool
	}{
		{0, 100, 0, true, true},        // view [0, 8192)
		{100, 8192, 0, false, true},    // inside it
		{8000, 8200, 1, true, true},    // crosses its end: view [4096, 12288), past the mapping's end to its page's
		{9000, 10000, 1, false, true},  // inside the second
		{9000, 10001, 0, false, false}, // past the mapping
		{100, 9000, 0, false, false},   // longer than a view from its page can be
		{5, 5, 0, false, false},        // empty
	} {
		idx, added, ok := v.place(c.lo, c.hi)
		if idx != c.idx || added != c.added || ok != c.ok {
			t.Errorf("place(%d, %d) = %d %v %v, want %d %v %v", c.lo, c.hi, idx, added, ok, c.idx, c.added, c.ok)
		}
	}
}
