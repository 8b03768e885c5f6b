package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/grammar/jsonschema"
	"github.com/forma-llm/forma/runtime/sample"
)

// benchSchema measures generation with sampling without a constraint (tgN+sample) and with a JSON schema
// (tgN+schema), the runs of the two alternating so that both see the same machine. The schema row also
// reports the constraint's time per token: mask, applying it to the logits, accepting the token. A warm-up run
// of each comes first (it compiles the programs and fills the grammar's mask caches; its schema time is
// reported as the cold time).
func benchSchema(s *runtime.Session, base benchResult, nGen, reps int, schema []byte) ([]benchResult, error) {
	g, err := jsonschema.Compile(schema, jsonschema.Options{})
	if err != nil {
		return nil, badInput{err}
	}
	c, err := s.Model().GrammarVocab().Compile(g)
	if err != nil {
		return nil, badInput{err}
	}
	mt := c.NewMatcher()
	plain, constrained := base, base
	plain.NGen, plain.Test = nGen, fmt.Sprintf("tg%d+sample", nGen)
	constrained.NGen, constrained.Test = nGen, fmt.Sprintf("tg%d+schema", nGen)
	var maskTimes []time.Duration
	run := func(r *benchResult, constrain bool, record bool) error {
		o := sample.Defaults()
		o.Seed = 1
		sm, err := sample.New(o)
		if err != nil {
			return err
		}
		if err := s.Truncate(0); err != nil {
			return err
		}
		mt.Reset()
		mt.SetBudget(nGen)
		one := []int32{0}
		var cold time.Duration
		cpu0, cpuOK := processCPU()
		start := time.Now()
		for i := 0; i < nGen; i++ {
			logits, err := s.Eval(one, false)
			if err != nil {
				return err
			}
			if !constrain {
				one[0] = sm.Sample(logits, nil)
				continue
			}
			t0 := time.Now()
			mt.MaskLogits(logits)
			d := time.Since(t0)
			id := sm.Sample(logits, nil)
			t0 = time.Now()
			if one[0], err = mt.Choose(id, logits); err != nil {
				return err
			}
			if mt.Done() { // a whole document: start another
				mt.Reset()
				mt.SetBudget(nGen - i - 1)
			}
			d += time.Since(t0)
			cold += d
			if record {
				maskTimes = append(maskTimes, d)
			}
		}
		elapsed := time.Since(start)
		cpu1, _ := processCPU()
		if !record {
			if constrain {
				r.ColdMaskUS = float64(cold.Microseconds()) / float64(nGen)
			}
			return nil
		}
		r.SamplesNS = append(r.SamplesNS, elapsed.Nanoseconds())
		if cpuOK {
			r.SamplesCPUNS = append(r.SamplesCPUNS, cpu1-cpu0)
		}
		r.Samples = append(r.Samples, float64(nGen)/elapsed.Seconds())
		return nil
	}
	for i := -1; i < reps; i++ {
		if err := run(&plain, false, i >= 0); err != nil {
			return nil, err
		}
		if err := run(&constrained, true, i >= 0); err != nil {
			return nil, err
		}
	}
	plain.Median, plain.Avg, plain.Stddev = stats(plain.Samples)
	constrained.Median, constrained.Avg, constrained.Stddev = stats(constrained.Samples)
	slices.Sort(maskTimes)
	var sum time.Duration
	for _, d := range maskTimes {
		sum += d
	}
	constrained.MaskMeanUS = float64(sum.Nanoseconds()) / 1e3 / float64(len(maskTimes))
	constrained.MaskP99US = float64(maskTimes[len(maskTimes)*99/100].Nanoseconds()) / 1e3
	return []benchResult{plain, constrained}, nil
}

// printMaskStats writes the constraint times of the schema rows under the table, and the process CPU time
// per token of the sampled rows (which other programs on the machine disturb less than wall time).
func printMaskStats(w io.Writer, rs []benchResult) {
	for i, r := range rs {
		if r.MaskMeanUS == 0 {
			continue
		}
		fmt.Fprintf(w, "%s: constraint %.1f µs/token mean, %.1f µs p99 (cold first run %.1f µs/token)\n",
			r.Test, r.MaskMeanUS, r.MaskP99US, r.ColdMaskUS)
		if i > 0 && len(r.SamplesCPUNS) > 0 && len(rs[i-1].SamplesCPUNS) > 0 {
			a, b := medianNS(rs[i-1].SamplesCPUNS)/float64(r.NGen), medianNS(r.SamplesCPUNS)/float64(r.NGen)
			fmt.Fprintf(w, "process CPU per token: %s %.2f ms, %s %.2f ms (ratio %.3f)\n", rs[i-1].Test, a/1e6, r.Test, b/1e6, b/a)
		}
	}
}

func medianNS(x []int64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return float64(s[n/2-1]+s[n/2]) / 2
	}
	return float64(s[len(s)/2])
}
