package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// TestAttentionLanes checks the lane kernels of every width the CPU runs (16 with AVX-512, 8 with AVX2)
// against attnStep.head (the reference path) bit for bit: batches and single queries, grouped-query
// attention, sliding windows, soft-capping, positions out of order, head sizes from 1 to 256 (multiples of 16
// and partial chunks; the width 8 takes multiples of 8).
func TestAttentionLanes(t *testing.T) {
	if len(laneWidths()) == 0 {
		t.Skip("no lane kernels on this CPU")
	}
	r := rand.New(rand.NewPCG(31, 32))
	cases := []struct {
		nq, heads, kvHeads, size, vsize, ctx int
		p                                    accel.AttentionParams
	}{
		{1, 4, 4, 64, 64, 40, accel.AttentionParams{Scale: 0.125}},
		{1, 32, 4, 64, 64, 200, accel.AttentionParams{Scale: 0.125}},
		{7, 8, 2, 16, 32, 30, accel.AttentionParams{Scale: 0.25}},
		{33, 16, 8, 128, 128, 100, accel.AttentionParams{Scale: 0.088}},
		{20, 6, 2, 256, 256, 64, accel.AttentionParams{Scale: 0.0625, SoftCap: 50}},
		{40, 4, 1, 80, 96, 90, accel.AttentionParams{Scale: 0.1, Window: 13}},
		{5, 3, 3, 32, 16, 300, accel.AttentionParams{Scale: 1}},
		{4, 8, 4, 8, 8, 70, accel.AttentionParams{Scale: 0.35}}, // stories260K's heads
		{5, 8, 4, 8, 8, 90, accel.AttentionParams{Scale: 0.35}}, // and a block of 10 lanes (value16T)
		{8, 8, 4, 8, 8, 600, accel.AttentionParams{Scale: 0.35}},
		{7, 8, 4, 8, 8, 100, accel.AttentionParams{Scale: 0.35, Window: 5}},
		{11, 6, 2, 16, 8, 80, accel.AttentionParams{Scale: 0.2, SoftCap: 20}}, // blocks of 16, 16 and 1
		{9, 6, 3, 24, 40, 50, accel.AttentionParams{Scale: 0.2, Window: 11}},
		{3, 2, 1, 1, 7, 33, accel.AttentionParams{Scale: 1}},
		{17, 4, 2, 72, 72, 129, accel.AttentionParams{Scale: 0.1}},
		{1, 5, 1, 136, 136, 61, accel.AttentionParams{Scale: 0.09}},            // a block of 5 lanes
		{3, 3, 1, 40, 24, 45, accel.AttentionParams{Scale: 0.15, SoftCap: 30}}, // 9 pairs: blocks of 8 and 1
		{2, 14, 2, 128, 128, 300, accel.AttentionParams{Scale: 0.088}},         // 7 lanes per query
		{1, 16, 8, 128, 128, 500, accel.AttentionParams{Scale: 0.088}},         // qwen3's decode
		{12, 16, 8, 128, 128, 80, accel.AttentionParams{Scale: 0.088, Window: 5}},
	}
	for ci, c := range cases {
		for _, lw := range laneWidths() {
			if lw == 8 && (c.size%8 != 0 || c.vsize%8 != 0) {
				continue
			}
			t.Run(fmt.Sprintf("%d/lanes=%d", ci, lw), func(t *testing.T) {
				for trial := 0; trial < 3; trial++ {
					pos := make([]int32, c.nq)
					start := r.IntN(c.ctx - c.nq + 1)
					for i := range pos {
						pos[i] = int32(start + i)
					}
					if trial == 2 {
						r.Shuffle(len(pos), func(i, j int) { pos[i], pos[j] = pos[j], pos[i] })
					}
					s := &attnStep{kF16: true, vF16: true, heads: c.heads, kvHeads: c.kvHeads, size: c.size,
						vsize: c.vsize, vstride: c.vsize, ctx: c.ctx, p: c.p, pos: pos, pageSize: c.ctx, maxPages: 1,
						seqs: 1, sinksID: -1, lw: lw}
					s.q = make([]float32, c.nq*c.heads*c.size)
					for i := range s.q {
						s.q[i] = float32(r.NormFloat64() * 2)
					}
					s.k = randF16Bytes(r, c.ctx*c.kvHeads*c.size, 1.5)
					s.v = randF16Bytes(r, c.ctx*c.kvHeads*c.vsize, 1)
					checkLanes(t, s, fmt.Sprintf("trial %d", trial))
				}
			})
		}
	}
}

// TestAttentionLanesPaged checks the lane kernels against attnStep.head on paged caches: batches of
// sequences of different lengths (runs of queries of each, several sequences in one batch, pages in any order
// of the cache), random head counts and groups (so blocks of every size from 1 to the lane width), head
// sizes, windows and soft caps.
func TestAttentionLanesPaged(t *testing.T) {
	if len(laneWidths()) == 0 {
		t.Skip("no lane kernels on this CPU")
	}
	r := rand.New(rand.NewPCG(33, 34))
	sizes := []int{8, 16, 20, 24, 40, 64, 72, 128, 136}
	for ci := 0; ci < 40; ci++ {
		kvHeads, group := 1+r.IntN(3), 1+r.IntN(9)
		size, vsize := sizes[r.IntN(len(sizes))], sizes[r.IntN(len(sizes))]
		if ci%3 == 0 {
			vsize = size
		}
		pageSize, maxPages, seqs := 1+r.IntN(40), 1+r.IntN(6), 1+r.IntN(4)
		var p accel.AttentionParams
		p.Scale = float32(0.05 + r.Float64()*0.3)
		if r.IntN(4) == 0 {
			p.SoftCap = float32(10 + r.IntN(40))
		}
		if r.IntN(4) == 0 {
			p.Window = 1 + r.IntN(30)
		}
		for _, lw := range laneWidths() {
			t.Run(fmt.Sprintf("%d/lanes=%d", ci, lw), func(t *testing.T) {
				rows := seqs * maxPages * pageSize
				pages := make([]int32, seqs*maxPages)
				for i, v := range r.Perm(len(pages)) {
					pages[i] = int32(v)
				}
				// each sequence's queries: a run of consecutive positions ending at its length
				var pos, seq []int32
				for sq := 0; sq < seqs; sq++ {
					n := 1 + r.IntN(maxPages*pageSize)
					nq := 1 + r.IntN(min(n, 12))
					for i := n - nq; i < n; i++ {
						pos, seq = append(pos, int32(i)), append(seq, int32(sq))
					}
				}
				heads := kvHeads * group
				s := &attnStep{kF16: true, vF16: true, heads: heads, kvHeads: kvHeads, size: size, vsize: vsize,
					vstride: vsize, ctx: rows, p: p, pos: pos, seq: seq, pages: pages, pageSize: pageSize,
					maxPages: maxPages, seqs: seqs, sinksID: -1, lw: lw}
				if lw == 8 && (size%8 != 0 || vsize%8 != 0) {
					t.Skip("width 8 takes head sizes that are multiples of 8")
				}
				s.q = make([]float32, len(pos)*heads*size)
				for i := range s.q {
					s.q[i] = float32(r.NormFloat64() * 2)
				}
				s.k = randF16Bytes(r, rows*kvHeads*size, 1.5)
				s.v = randF16Bytes(r, rows*kvHeads*vsize, 1)
				checkLanes(t, s, "")
			})
		}
	}
}

// checkLanes runs s (its inputs set) on the lane kernels with 1 and 3 workers and compares each output with
// attnStep.head's bit for bit.
func checkLanes(t *testing.T, s *attnStep, what string) {
	t.Helper()
	if !s.useLanes() {
		t.Fatal("the step does not take the lane kernels")
	}
	s.formBlocks()
	nq := len(s.pos)
	want := make([]float32, nq*s.heads*s.vsize)
	nc := s.cells()
	ws := make([]float32, nc+s.size+s.vsize*f32Lanes)
	group := s.heads / s.kvHeads
	for u := 0; u < nq*s.heads; u++ {
		i, h := u/s.heads, u%s.heads
		scores, qh, acc := ws[:nc], ws[nc:nc+s.size], ws[nc+s.size:]
		s.head(i, h, s.q[u*s.size:(u+1)*s.size], want[u*s.vsize:(u+1)*s.vsize], int(s.pos[i]), h/group, scores, qh, acc)
	}
	for _, nw := range []int{1, 3} {
		s.y = make([]float32, len(want))
		for i := range s.y {
			s.y[i] = 99
		}
		const guard = 64
		buf := make([]float32, nw*s.perShare()+guard)
		for i := range buf {
			buf[i] = -7
		}
		s.ws = buf[:nw*s.perShare()]
		for w := 0; w < nw; w++ {
			s.run(w, nw)
		}
		for _, v := range buf[len(s.ws):] {
			if v != -7 {
				t.Fatalf("%s: written past the workspace", what)
			}
		}
		for i := range want {
			if math.Float32bits(s.y[i]) != math.Float32bits(want[i]) && !(s.y[i] != s.y[i] && want[i] != want[i]) {
				t.Fatalf("%s, %d workers, lane width %d: y[%d] (query %d, head %d) = %v, reference %v", what, nw, s.lw,
					i, i/s.vsize/s.heads, i/s.vsize%s.heads, s.y[i], want[i])
			}
		}
	}
}

func randF16Bytes(r *rand.Rand, n int, scale float64) []byte {
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		h := quant.F32ToF16(float32(r.NormFloat64() * scale))
		b[2*i], b[2*i+1] = byte(h), byte(h>>8)
	}
	return b
}

// TestAttentionPageRuns checks paged attention whose pages lie partly in runs of consecutive cache pages (read
// as one span each, attnStep.pageEnd) against the same cells laid out contiguously without pages: the head
// path and the lanes, bit for bit. A span that ran past a break in the page order would read another page's
// cells.
func TestAttentionPageRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	const pageSize, maxPages = 4, 8
	for ci, pages := range [][]int32{
		{0, 1, 2, 3, 4, 5, 6, 7},
		{5, 6, 7, 0, 1, 2, 3, 4},
		{3, 4, 0, 1, 7, 2, 5, 6},
		{7, 6, 5, 4, 3, 2, 1, 0},
	} {
		for _, c := range []struct{ heads, kvHeads, size, nq int }{{8, 4, 8, 1}, {8, 4, 8, 4}, {4, 1, 64, 3}} {
			rows := maxPages * pageSize
			k := randF16Bytes(r, rows*c.kvHeads*c.size, 1.5)
			v := randF16Bytes(r, rows*c.kvHeads*c.size, 1)
			// the cells in position order, as the contiguous cache holds them
			kc, vc := make([]byte, len(k)), make([]byte, len(v))
			rowBytes := 2 * c.kvHeads * c.size
			for cell := 0; cell < rows; cell++ {
				phys := int(pages[cell/pageSize])*pageSize + cell%pageSize
				copy(kc[cell*rowBytes:(cell+1)*rowBytes], k[phys*rowBytes:])
				copy(vc[cell*rowBytes:(cell+1)*rowBytes], v[phys*rowBytes:])
			}
			n := rows - r.IntN(6)
			pos, seq := make([]int32, c.nq), make([]int32, c.nq)
			for i := range pos {
				pos[i] = int32(n - c.nq + i)
			}
			q := make([]float32, c.nq*c.heads*c.size)
			for i := range q {
				q[i] = float32(r.NormFloat64() * 2)
			}
			p := accel.AttentionParams{Scale: 0.3}
			flat := &attnStep{kF16: true, vF16: true, heads: c.heads, kvHeads: c.kvHeads, size: c.size, vsize: c.size,
				vstride: c.size, ctx: rows, p: p, pos: pos, pageSize: rows, maxPages: 1, seqs: 1, sinksID: -1, q: q, k: kc, v: vc}
			want := headOutputs(flat)
			paged := *flat
			paged.k, paged.v, paged.seq, paged.pages, paged.pageSize, paged.maxPages = k, v, seq, pages, pageSize, maxPages
			got := headOutputs(&paged)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("case %d %+v: y[%d] = %v paged, %v contiguous", ci, c, i, got[i], want[i])
				}
			}
			for _, lw := range laneWidths() {
				paged.lw = lw
				checkLanes(t, &paged, fmt.Sprintf("case %d %+v, lanes %d", ci, c, lw))
			}
		}
	}
}

// headOutputs computes every (query, head) of s with attnStep.head.
func headOutputs(s *attnStep) []float32 {
	nq, nc := len(s.pos), s.cells()
	out := make([]float32, nq*s.heads*s.vsize)
	ws := make([]float32, nc+s.size+s.vsize*f32Lanes)
	group := s.heads / s.kvHeads
	for u := 0; u < nq*s.heads; u++ {
		i, h := u/s.heads, u%s.heads
		s.head(i, h, s.q[u*s.size:(u+1)*s.size], out[u*s.vsize:(u+1)*s.vsize], int(s.pos[i]), h/group, ws[:nc],
			ws[nc:nc+s.size], ws[nc+s.size:])
	}
	return out
}
