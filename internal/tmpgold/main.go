package main

import (
	"fmt"
	"os"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/internal/golden"
	"github.com/forma-llm/forma/runtime"
)

func main() {
	dir := "/work/shared/testdata"
	names, _ := golden.Cases(dir)
	kv := runtime.KVF32
	if len(os.Args) > 1 && os.Args[1] == "f16" {
		kv = runtime.KVF16
	}
	for _, n := range names {
		c, err := golden.Load(dir, n)
		if err != nil {
			panic(err)
		}
		be, _ := cpu.New(cpu.Options{})
		r, err := golden.Run(c, be, kv, 1e-3)
		be.Close()
		if err != nil {
			fmt.Println(n, "ERR", err)
			continue
		}
		maxKL, argFail, minGapFail := 0.0, 0, 99.0
		V := c.Vocab
		for i, x := range append(r.Prompt, r.Gen...) {
			maxKL = max(maxKL, x.KL)
			if !x.NearTie && x.RefArgmax != x.GotArgmax {
				argFail++
				var ref []float32
				if i < len(r.Prompt) {
					ref = c.Logits[i*V : (i+1)*V]
				} else {
					g := i - len(r.Prompt)
					ref = c.GenLogits[g*V : (g+1)*V]
				}
				minGapFail = min(minGapFail, golden.TopGap(ref))
			}
		}
		greedy := "ok"
		for _, f := range r.Failures {
			if len(f) > 6 && f[:6] == "greedy" {
				greedy = f
			}
		}
		fmt.Printf("%-28s maxKL %.2g argmaxFail %d (min ref gap %.3g) %s\n", n, maxKL, argFail, minGapFail, greedy)
	}
}
