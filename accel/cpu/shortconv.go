package cpu

import "github.com/forma-llm/forma/accel"

// shortConvStep is the short convolution (accel.Builder.ShortConv): per token and channel, the sequence's last
// taps cells times the kernel, cells before position 0 zero, summed as ggml_compute_forward_ssm_conv_f32 in the
// reference build (accel.ShortConvUnfused). It reads the cells through the page table like attention does.
type shortConvStep struct {
	cacheID, wID, posID, seqID, pagesID, yID int
	cache, w, y                              []float32
	pos, seq, pages                          []int32
	d, taps, unfused                         int
	lay                                      accel.AttnLayout
}

func newShortConv(g *accel.Graph, id int) *shortConvStep {
	nd := &g.Nodes[id]
	l := accel.ConvLayoutOf(g, id)
	s := &shortConvStep{cacheID: nd.Args[0].ID(), wID: nd.Args[1].ID(), posID: nd.Args[2].ID(), seqID: -1, pagesID: -1,
		yID: id, d: l.Size, taps: l.Window, unfused: accel.ShortConvUnfused(l.Window), lay: l}
	if l.Paged {
		s.seqID, s.pagesID = nd.Args[3].ID(), nd.Args[4].ID()
	}
	return s
}

func (s *shortConvStep) bind(p *program, _ []byte) {
	s.cache, s.w, s.pos, s.y = f32s(p.mem[s.cacheID]), f32s(p.mem[s.wID]), i32s(p.mem[s.posID]), f32s(p.mem[s.yID])
	if s.seqID >= 0 {
		s.seq, s.pages = i32s(p.mem[s.seqID]), i32s(p.mem[s.pagesID])
	}
}

// check rejects positions outside the cache and pages outside it before anything reads them.
func (s *shortConvStep) check() error { return s.lay.Check(s.pos, s.seq, s.pages) }

func (s *shortConvStep) workspace(int) int { return 0 }

func (s *shortConvStep) exec(p *pool) {
	p.run(s, min(len(s.pos), p.shares(len(s.y)*s.taps, elemGrain)))
}

// row returns the first element of cell c of token i's sequence.
func (s *shortConvStep) row(i, c int) int {
	if s.pages == nil {
		return c * s.d
	}
	ps := s.lay.PageSize
	return (int(s.pages[int(s.seq[i])*s.lay.MaxPages+c/ps])*ps + c%ps) * s.d
}

func (s *shortConvStep) run(w, nw int) {
	lo, hi := split(len(s.pos), w, nw)
	for i := lo; i < hi; i++ {
		y := s.y[i*s.d : (i+1)*s.d]
		clear(y)
		first := int(s.pos[i]) - s.taps + 1
		for k := range s.taps {
			c := first + k
			if c < 0 {
				// A zero cell: 0·w adds nothing to the sum, fused or not.
				continue
			}
			x := s.cache[s.row(i, c):][:s.d]
			if k < s.unfused {
				for ch := range y {
					y[ch] += float32(x[ch] * s.w[ch*s.taps+k]) // rounded: never fused
				}
				continue
			}
			for ch := range y {
				y[ch] = fma32(x[ch], s.w[ch*s.taps+k], y[ch])
			}
		}
	}
}
