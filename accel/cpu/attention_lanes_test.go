package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/gguf/quant"
)

// TestAttentionLanes checks the lane kernels against attnStep.head (the reference path) bit for bit: batches
// and single queries, grouped-query attention, sliding windows, soft-capping, positions out of order, head
// sizes from 1 to 256 (multiples of 16 and partial chunks).
func TestAttentionLanes(t *testing.T) {
	if !hasAttnLanes {
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
		{9, 6, 3, 24, 40, 50, accel.AttentionParams{Scale: 0.2, Window: 11}},
		{3, 2, 1, 1, 7, 33, accel.AttentionParams{Scale: 1}},
		{17, 4, 2, 72, 72, 129, accel.AttentionParams{Scale: 0.1}},
	}
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%d", ci), func(t *testing.T) {
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
					vsize: c.vsize, ctx: c.ctx, p: c.p, pos: pos, pageSize: c.ctx, maxPages: 1, seqs: 1}
				s.formBlocks()
				s.q = make([]float32, c.nq*c.heads*c.size)
				for i := range s.q {
					s.q[i] = float32(r.NormFloat64() * 2)
				}
				s.k = randF16Bytes(r, c.ctx*c.kvHeads*c.size, 1.5)
				s.v = randF16Bytes(r, c.ctx*c.kvHeads*c.vsize, 1)
				// reference: head per (query, head)
				want := make([]float32, c.nq*c.heads*c.vsize)
				ref := *s
				ref.kF16 = false // any value but F16/F16 takes the reference path's workspace
				ws := make([]float32, ref.ctx+ref.size+ref.vsize*f32Lanes)
				group := c.heads / c.kvHeads
				for u := 0; u < c.nq*c.heads; u++ {
					i, h := u/c.heads, u%c.heads
					scores, qh, acc := ws[:c.ctx], ws[c.ctx:c.ctx+c.size], ws[c.ctx+c.size:]
					s.head(i, h, s.q[u*c.size:(u+1)*c.size], want[u*c.vsize:(u+1)*c.vsize], int(pos[i]), h/group, scores, qh, acc)
				}
				for _, nw := range []int{1, 3} {
					s.y = make([]float32, len(want))
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
							t.Fatalf("trial %d: written past the workspace", trial)
						}
					}
					for i := range want {
						if math.Float32bits(s.y[i]) != math.Float32bits(want[i]) && !(s.y[i] != s.y[i] && want[i] != want[i]) {
							t.Fatalf("trial %d, %d workers: y[%d] (query %d, head %d) = %v, reference %v", trial, nw, i,
								i/c.vsize/c.heads, i/c.vsize%c.heads, s.y[i], want[i])
						}
					}
				}
			}
		})
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
