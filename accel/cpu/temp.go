package cpu

import "github.com/forma-llm/forma/accel"

// tempScaleStep multiplies each row by its position's attention temperature (accel.TempFactor).
type tempScaleStep struct {
	plain
	xID, posID, yID int
	x, y            []float32
	pos             []int32
	row             int // elements per row
	scale           float32
	floor           int
}

func newTempScale(g *accel.Graph, id int) *tempScaleStep {
	nd := &g.Nodes[id]
	return &tempScaleStep{xID: nd.Args[0].ID(), posID: nd.Args[1].ID(), yID: id, row: nd.Elements() / nd.Shape[0],
		scale: nd.F, floor: nd.I[0]}
}

func (s *tempScaleStep) bind(p *program, _ []byte) {
	s.x, s.pos, s.y = f32s(p.mem[s.xID]), i32s(p.mem[s.posID]), f32s(p.mem[s.yID])
}
func (s *tempScaleStep) exec(p *pool) { p.run(s, p.shares(len(s.y), elemGrain)) }
func (s *tempScaleStep) run(w, nw int) {
	lo, hi := split(len(s.y), w, nw)
	for i := lo; i < hi; {
		r := i / s.row
		end := min(hi, (r+1)*s.row)
		f := accel.TempFactor(s.pos[r], s.scale, s.floor)
		for j := i; j < end; j++ {
			s.y[j] = s.x[j] * f // ggml_mul by the per-token factor
		}
		i = end
	}
}
