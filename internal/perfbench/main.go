// Command perfbench measures prompt processing and decoding speed the way llama-bench (and
// ../shared/bin/llama-ref bench) do, until forma has a bench command: a prompt of p tokens evaluated in one
// batch, then n single-token decode steps on a fresh context; tokens/s of each, the median of r runs.
//
//	go run ./internal/perfbench [-p 512] [-n 128] [-t 2] [-r 3] [-cpuprofile FILE] MODEL.gguf
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/runtime"
)

func main() {
	p := flag.Int("p", 512, "prompt `tokens`, evaluated as one batch")
	n := flag.Int("n", 128, "decode `steps` of one token")
	t := flag.Int("t", 0, "`threads` (0: physical cores)")
	r := flag.Int("r", 3, "`runs`; the median is reported")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the timed part to `file`")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: perfbench [flags] MODEL.gguf")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *p, *n, *t, *r, *prof); err != nil {
		fmt.Fprintln(os.Stderr, "perfbench:", err)
		os.Exit(1)
	}
}

func run(path string, p, n, threads, runs int, prof string) error {
	b, err := cpu.New(cpu.Options{Threads: threads})
	if err != nil {
		return err
	}
	defer b.Close()
	m, err := runtime.Load(path, runtime.Options{Backend: b})
	if err != nil {
		return err
	}
	defer m.Close()
	vocab := m.Arch.HParams().Vocab
	s, err := m.NewSession(runtime.SessionOptions{Ctx: p + n + 16})
	if err != nil {
		return err
	}
	defer s.Close()
	if prof != "" {
		f, err := os.Create(prof)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var pp, tg []float64
	for rep := 0; rep < runs; rep++ {
		// llama-ref's token choice: arbitrary ids spread over the vocabulary
		if p > 0 {
			prompt := make([]int32, p)
			for i := range prompt {
				prompt[i] = int32(1 + (i*7919+rep)%(vocab-1))
			}
			if err := s.Truncate(0); err != nil {
				return err
			}
			t0 := time.Now()
			if _, err := s.Eval(prompt, false); err != nil {
				return err
			}
			pp = append(pp, float64(p)/time.Since(t0).Seconds())
		}
		if n > 0 {
			if err := s.Truncate(0); err != nil {
				return err
			}
			t0 := time.Now()
			for i := 0; i < n; i++ {
				if _, err := s.Eval([]int32{int32(1 + (i*31+rep)%(vocab-1))}, false); err != nil {
					return err
				}
			}
			tg = append(tg, float64(n)/time.Since(t0).Seconds())
		}
	}
	fmt.Printf("model=%s threads=%d pp%d=%.2f t/s tg%d=%.2f t/s (median of %d; forma)\n",
		path, b.Threads(), p, median(pp), n, median(tg), runs)
	return nil
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	x = slices.Clone(x)
	slices.Sort(x)
	return x[len(x)/2]
}
