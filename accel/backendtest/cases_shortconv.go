package backendtest

import (
	"fmt"
	"math"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// testShortConv checks the short convolution against float64 sums: kernels of 3 and 4 taps (LFM2's) and of 20
// and 25 (the reference's vectorised blocks of 16 and 8 taps), over one sequence whose cells are cache rows and
// over sequences in shuffled pages, with the pages behind every token's taps released.
func testShortConv(e *env) {
	taps := []int{3, 4, 20, 25}
	if e.short {
		taps = taps[:2]
	}
	for _, k := range taps {
		runShortConv(e, k, 2, 12, []int{10}, 10, [][]int{{0, 0, 1, 5, 9}})
		runShortConv(e, k, 1, 40, []int{9, 14, 3}, 4, [][]int{{1, 13}, {0, 8}, {2, 0, 1, 2}, {1, 3, 4, 5}})
	}
}

// runShortConv stores every cell of sequences of the given lengths (in pages of page rows, the table shuffled;
// one sequence with one page of all rows is the single-sequence form) and convolves the tokens of runs (each
// a sequence followed by positions) with a kernel of taps.
func runShortConv(e *env, taps, heads, size int, lens []int, page int, runs [][]int) {
	d := heads * size
	paged := len(lens) > 1
	maxPages := 0
	for _, l := range lens {
		maxPages = max(maxPages, (l+page-1)/page)
	}
	pages := len(lens)*maxPages + 1
	if !paged {
		pages = maxPages
	}
	perm := e.rng.Perm(pages)
	table := make([]int32, len(lens)*maxPages)
	for i := range table {
		table[i] = int32(perm[i])
	}
	cells := make([][]float32, len(lens))
	var slots []int32
	var in []float32
	for q, l := range lens {
		cells[q] = e.normal(l*d, 1)
		for c := range l {
			slots = append(slots, table[q*maxPages+c/page]*int32(page)+int32(c%page))
		}
		in = append(in, cells[q]...)
	}
	var seq, pos []int32
	for _, r := range runs {
		for _, p := range r[1:] {
			seq, pos = append(seq, int32(r[0])), append(pos, int32(p))
		}
	}
	convTable := append([]int32(nil), table...)
	for q := range lens { // pages wholly behind every token's taps are released
		first := lens[q]
		for i := range pos {
			if int(seq[i]) == q {
				first = min(first, max(0, int(pos[i])-taps+1))
			}
		}
		for j := 0; j < first/page; j++ {
			convTable[q*maxPages+j] = -1
		}
	}
	w := e.normal(d*taps, 0.5)
	g := e.graph()
	cache := g.b.KVStore(g.b.Buffer(e.buffer("conv", quant.F32, pages*page, heads, size)),
		g.inputF32("in", in, len(slots), heads, size), g.inputI32("slots", slots))
	kernel := g.b.Weight(e.f32Weight("kernel", []int{d, taps}, w))
	var y accel.Tensor
	if paged {
		y = g.b.PagedShortConv(cache, kernel, g.inputI32("pos", pos), g.inputI32("seq", seq),
			g.inputI32("pages", convTable, len(lens), maxPages), page)
	} else {
		y = g.b.ShortConv(cache, kernel, g.inputI32("pos", pos))
	}
	got := g.run(y)[0]
	want, mag := make([]float64, len(pos)*d), make([]float64, len(pos)*d)
	for i, p := range pos {
		for c := range d {
			for k := range taps {
				cell := int(p) - taps + 1 + k
				if cell < 0 {
					continue
				}
				v := float64(cells[seq[i]][cell*d+c]) * float64(w[c*taps+k])
				want[i*d+c] += v
				mag[i*d+c] += math.Abs(v)
			}
		}
	}
	expect(e.t, fmt.Sprintf("short convolution of %d taps, %d×%d channels, sequences %v in pages of %d", taps, heads, size, lens, page),
		got, want, func(i int) float64 { return float64(taps) * 0x1p-24 * mag[i] })
}

// testShortConvPositions checks that a short convolution refuses positions outside its sequence's cells and
// pages released within its taps.
func testShortConvPositions(e *env) {
	const page, taps, d = 4, 3, 8
	g := e.graph()
	slots := []int32{4, 5, 6, 7, 0, 1}
	cache := g.b.KVStore(g.b.Buffer(e.buffer("conv", quant.F32, 2*page, 1, d)), g.inputF32("in", e.normal(6*d, 1), 6, 1, d),
		g.inputI32("slots", slots))
	pos, pages := g.inputI32("pos", []int32{5}), g.inputI32("pages", []int32{1, 0}, 1, 2)
	g.b.Output(g.b.PagedShortConv(cache, g.b.Weight(e.f32Weight("kernel", []int{d, taps}, e.normal(d*taps, 1))), pos,
		g.inputI32("seq", []int32{0}), pages, page))
	prog := g.program()
	for _, bad := range []struct {
		pos, pages []int32
	}{{[]int32{8}, []int32{1, 0}}, {[]int32{-1}, []int32{1, 0}}, {[]int32{5}, []int32{-1, 0}}, {[]int32{5}, []int32{1, 2}}} {
		if err := prog.SetInt32(pos, bad.pos); err != nil {
			e.t.Fatal(err)
		}
		if err := prog.SetInt32(pages, bad.pages); err != nil {
			e.t.Fatal(err)
		}
		if err := prog.Run(); err == nil {
			e.t.Errorf("short convolution at position %v with pages %v: no error", bad.pos, bad.pages)
		}
	}
	// Position 6 sees cells 4…6, all in page 1: page 0 may be released.
	if err := prog.SetInt32(pos, []int32{6}); err != nil {
		e.t.Fatal(err)
	}
	if err := prog.SetInt32(pages, []int32{-1, 0}); err != nil {
		e.t.Fatal(err)
	}
	if err := prog.Run(); err != nil {
		e.t.Errorf("valid position after failed runs: %v", err)
	}
}
