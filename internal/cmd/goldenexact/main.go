// Command goldenexact counts, per golden case, the rows whose logits are not bit-identical to llama.cpp's
// reference (KL ≠ 0) on the CPU backend with an F32 KV cache. It is the tool for kernel work that must keep the
// reference build's rounding order: go run ./internal/cmd/goldenexact [case-substring].
// The reference folder is found as the tests find it (internal/testdir: $FORMA_TESTDATA, relative to the module
// root, else ../shared/testdata); the cases of its extra folder are counted too, and the synth cases
// (internal/golden/testdata/synth, labelled "synth/…"), whose models it writes into a temporary folder.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/internal/golden"
	"github.com/forma-llm/forma/internal/testdir"
	"github.com/forma-llm/forma/runtime"
)

func main() {
	dir, err := testdir.Find()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	refs, err := golden.AllCases(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	filter := ""
	if len(os.Args) > 1 {
		filter = os.Args[1]
	}
	type entry struct {
		label string
		load  func() (*golden.Case, error)
	}
	var entries []entry
	for _, ref := range refs {
		entries = append(entries, entry{ref.Label(), ref.Load})
	}
	synthDir := golden.SynthDir()
	names, err := golden.Cases(synthDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	models, err := os.MkdirTemp("", "goldenexact")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(models)
	for _, name := range names {
		entries = append(entries, entry{"synth/" + name, func() (*golden.Case, error) {
			c, err := golden.Load(synthDir, name)
			if err != nil {
				return nil, err
			}
			return c, golden.SynthModel(c, models)
		}})
	}
	tot, totBad := 0, 0
	for _, ref := range entries {
		if filter != "" && !strings.Contains(ref.label, filter) {
			continue
		}
		c, err := ref.load()
		if err != nil {
			fmt.Println(ref.label, err)
			continue
		}
		be, err := cpu.New(cpu.Options{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		r, err := golden.Run(c, be, runtime.KVF32, golden.Strict)
		be.Close()
		if err != nil {
			fmt.Println(ref.label, err)
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
		fmt.Printf("%-34s maxKL %-8.2g inexact %d/%d %s\n", ref.label, r.MaxKL, len(bad), rows, strings.Join(bad[:min(len(bad), 12)], " "))
	}
	fmt.Printf("TOTAL inexact %d/%d\n", totBad, tot)
}
