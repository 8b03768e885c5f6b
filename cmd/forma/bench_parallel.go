package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/forma-llm/forma/runtime"
)

// parallelResult is forma bench --parallel's JSON: aggregate and single-sequence speeds measured in one run,
// as llama-batched-bench's S_PP and S_TG at npl = parallel and at npl = 1.
type parallelResult struct {
	benchResult
	Parallel    int     `json:"parallel"`
	PPTps       float64 `json:"pp_tps"`
	TGTps       float64 `json:"tg_tps"`
	SinglePPTps float64 `json:"single_pp_tps"`
	SingleTGTps float64 `json:"single_tg_tps"`
	PPSamples   []float64
	TGSamples   []float64
}

// benchParallel runs n sequences together — each a prompt of p tokens, then g tokens generated one at a time
// — and the same with one sequence, reps times each after a warm-up, and reports the medians.
func benchParallel(m *runtime.Model, path string, be *backendFlags, n, p, g, reps int, asJSON bool, stdout io.Writer) error {
	sessions := make([]*runtime.Session, n)
	for i := range sessions {
		s, err := m.NewSession(runtime.SessionOptions{Ctx: p + g + 1, KV: be.kvType})
		if err != nil {
			return err
		}
		defer s.Close()
		sessions[i] = s
	}
	r := parallelResult{benchResult: describeModel(m, path), Parallel: n}
	r.Backend, r.KV, r.NPrompt, r.NGen = m.Backend.Caps().Name, be.kvType.String(), p, g
	r.Test = fmt.Sprintf("pp%d+tg%d x%d", p, g, n)
	if t, ok := m.Backend.(interface{ Threads() int }); ok {
		r.Threads = t.Threads()
	}
	var single [2][]float64
	for rep := -1; rep < reps; rep++ {
		for _, k := range []int{n, 1} {
			pp, tg, err := runTogether(sessions[:k], p, g, m.HParams().Vocab, rep)
			if err != nil {
				return err
			}
			if rep < 0 {
				continue
			}
			if k == n {
				r.PPSamples, r.TGSamples = append(r.PPSamples, pp), append(r.TGSamples, tg)
			} else {
				single[0], single[1] = append(single[0], pp), append(single[1], tg)
			}
		}
	}
	r.PPTps, _, _ = stats(r.PPSamples)
	r.TGTps, _, _ = stats(r.TGSamples)
	r.SinglePPTps, _, _ = stats(single[0])
	r.SingleTGTps, _, _ = stats(single[1])
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	fmt.Fprintf(stdout, "| %-30s | %8s | %4s | %4s | %12s | %12s |\n", "model", "parallel", "pp", "tg", "S_PP t/s", "S_TG t/s")
	fmt.Fprintf(stdout, "| %-30s | %8d | %4d | %4d | %12.2f | %12.2f |\n", r.ModelType, 1, p, g, r.SinglePPTps, r.SingleTGTps)
	fmt.Fprintf(stdout, "| %-30s | %8d | %4d | %4d | %12.2f | %12.2f |\n", r.ModelType, n, p, g, r.PPTps, r.TGTps)
	return nil
}

// runTogether evaluates a new prompt of p tokens in every session at once, then generates g tokens in each at
// once, and returns the aggregate prompt and generation tokens per second.
func runTogether(sessions []*runtime.Session, p, g, vocab, rep int) (pp, tg float64, err error) {
	errs := make([]error, len(sessions))
	phase := func(f func(i int, s *runtime.Session) error) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for i, s := range sessions {
			wg.Go(func() { errs[i] = f(i, s) })
		}
		wg.Wait()
		return time.Since(start)
	}
	firstErr := func() error {
		for _, e := range errs {
			if e != nil {
				return e
			}
		}
		return nil
	}
	dpp := phase(func(i int, s *runtime.Session) error {
		if err := s.Truncate(0); err != nil {
			return err
		}
		if p == 0 {
			_, err := s.Eval([]int32{1}, false)
			return err
		}
		_, err := s.Eval(benchTokens(p, vocab, (rep+1)*len(sessions)+i), false)
		return err
	})
	if err := firstErr(); err != nil {
		return 0, 0, err
	}
	dtg := phase(func(i int, s *runtime.Session) error {
		tok := []int32{int32(i % vocab)}
		for range g {
			if _, err := s.Eval(tok, false); err != nil {
				return err
			}
		}
		return nil
	})
	if err := firstErr(); err != nil {
		return 0, 0, err
	}
	n := float64(len(sessions))
	return n * float64(p) / dpp.Seconds(), n * float64(g) / dtg.Seconds(), nil
}
