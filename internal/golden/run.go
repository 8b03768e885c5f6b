package golden

import (
	"fmt"
	"strings"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/runtime"
)

// Report is the outcome of running a case.
type Report struct {
	Prompt   []RowResult // one per reference prompt row
	Gen      []RowResult // one per compared generation step
	GenIDs   []int32     // forma's greedy tokens (up to the first near-tie of the reference, inclusive)
	TieStep  int         // the first generation step whose reference top two are within NearTie; -1 if none
	MaxKL    float64
	Failures []string
}

// Criteria bound the difference of a row from the reference.
type Criteria struct {
	MaxKL float64 // KL(softmax(ref) ‖ softmax(got)) at most this
	// TieGap: where the reference's top two logits are closer than this, argmax is not compared and a greedy
	// comparison ends. The acceptance rule uses NearTie (1e-3).
	TieGap float64
}

// Strict is the acceptance rule for an F32 KV cache: KL ≤ 1e-3, same argmax unless within NearTie.
var Strict = Criteria{MaxKL: 1e-3, TieGap: NearTie}

// Run evaluates c on a model loaded into be, with the given KV cache type, exactly as the reference was made
// (batch or token-by-token prompt, then greedy generation feeding each chosen token back), and compares every
// row under the criteria.
func Run(c *Case, be accel.Backend, kv runtime.KVType, crit Criteria) (*Report, error) {
	return RunOptions(c, runtime.Options{Backend: be}, kv, crit)
}

// RunOptions is Run with the model loaded with opt (its Backend included), e.g. with flash attention.
func RunOptions(c *Case, opt runtime.Options, kv runtime.KVType, crit Criteria) (*Report, error) {
	maxKL := crit.MaxKL
	m, err := runtime.Load(c.Model, opt)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	s, err := m.NewSession(runtime.SessionOptions{Ctx: len(c.Prompt) + len(c.Gen) + 16, KV: kv})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	r := &Report{TieStep: -1}
	V := c.Vocab
	var last []float32
	check := func(kind string, i int, ref, got []float32) RowResult {
		rr := CompareRow(ref, got)
		rr.NearTie = TopGap(ref) < crit.TieGap
		if rr.KL > r.MaxKL {
			r.MaxKL = rr.KL
		}
		if !rr.OK(maxKL) {
			r.Failures = append(r.Failures, fmt.Sprintf("%s row %d: KL %.3g (max %.3g), argmax ref %d got %d",
				kind, i, rr.KL, maxKL, rr.RefArgmax, rr.GotArgmax))
		}
		return rr
	}
	if c.Seq {
		for i, t := range c.Prompt {
			if last, err = s.Eval([]int32{t}, false); err != nil {
				return nil, err
			}
			if c.All || i == len(c.Prompt)-1 {
				row := i
				if !c.All {
					row = 0
				}
				r.Prompt = append(r.Prompt, check("prompt", i, c.Logits[row*V:(row+1)*V], last))
			}
		}
	} else {
		out, err := s.Eval(c.Prompt, c.All)
		if err != nil {
			return nil, err
		}
		rows := len(out) / V
		for i := 0; i < rows; i++ {
			r.Prompt = append(r.Prompt, check("prompt", i, c.Logits[i*V:(i+1)*V], out[i*V:(i+1)*V]))
		}
		last = append([]float32(nil), out[(rows-1)*V:]...)
	}
	for g := range c.Gen {
		ref := c.GenLogits[g*V : (g+1)*V]
		rr := check("gen", g, ref, last)
		r.Gen = append(r.Gen, rr)
		id := int32(Argmax(last))
		r.GenIDs = append(r.GenIDs, id)
		if rr.NearTie {
			r.TieStep = g
			break
		}
		if id != c.Gen[g] {
			r.Failures = append(r.Failures, fmt.Sprintf("greedy step %d: got token %d, reference %d", g, id, c.Gen[g]))
			break
		}
		if g == len(c.Gen)-1 {
			break
		}
		if last, err = s.Eval([]int32{id}, false); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Summary is a one-line description of a report.
func (r *Report) Summary() string {
	s := fmt.Sprintf("%d prompt rows, %d gen steps, max KL %.3g", len(r.Prompt), len(r.Gen), r.MaxKL)
	if len(r.Failures) > 0 {
		s += "; FAIL: " + strings.Join(r.Failures[:min(len(r.Failures), 5)], "; ")
	}
	return s
}
