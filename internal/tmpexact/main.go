// throwaway: count inexact rows per golden case (KL != 0), quantized cases only.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/internal/golden"
	"github.com/forma-llm/forma/runtime"
)

func main() {
	dir := "/work/shared/testdata"
	names, _ := golden.Cases(dir)
	filter := ""
	if len(os.Args) > 1 {
		filter = os.Args[1]
	}
	tot, totBad := 0, 0
	for _, n := range names {
		if filter != "" && !strings.Contains(n, filter) {
			continue
		}
		c, _ := golden.Load(dir, n)
		be, _ := cpu.New(cpu.Options{})
		r, err := golden.Run(c, be, runtime.KVF32, 1e-3)
		be.Close()
		if err != nil {
			fmt.Println(n, err)
			continue
		}
		bad := []string{}
		for i, x := range r.Prompt {
			if x.KL != 0 {
				bad = append(bad, fmt.Sprintf("p%d", i))
			}
		}
		for i, x := range r.Gen {
			if x.KL != 0 {
				bad = append(bad, fmt.Sprintf("g%d", i))
			}
		}
		rows := len(r.Prompt) + len(r.Gen)
		tot += rows
		totBad += len(bad)
		fmt.Printf("%-28s maxKL %-8.2g inexact %d/%d %s\n", n, r.MaxKL, len(bad), rows, strings.Join(bad[:min(len(bad), 12)], " "))
	}
	fmt.Printf("TOTAL inexact %d/%d\n", totBad, tot)
}
