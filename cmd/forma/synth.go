package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/synth"
)

func init() {
	register(command{name: "synth", summary: "write a random-weight model with the shapes of a named preset", run: runSynth})
}

func runSynth(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("synth", "--preset NAME --type TYPE [--seed N] [--layers N] [--ctx N] [--denormals] -o FILE", stderr)
	preset := fs.String("preset", "", "model shape: "+strings.Join(synth.Presets(), ", "))
	typ := fs.String("type", "q8_0", "type of the matrices and embeddings, e.g. f16, q8_0, q4_0, q4_k")
	seed := fs.Uint64("seed", 1, "random seed")
	layers := fs.Int("layers", 0, "override the preset's layer count")
	ctx := fs.Int("ctx", 0, "override the preset's context length")
	denormals := fs.Bool("denormals", false, "BF16 only: a numerics test whose logits depend on denormal weights")
	out := fs.String("o", "", "output file")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *preset == "" || *out == "" {
		fs.Usage()
		return errUsage
	}
	t, err := quant.ParseType(*typ)
	if err != nil {
		return err
	}
	opts := synth.Options{Preset: *preset, Type: t, Seed: *seed, NumLayers: *layers, ContextLength: *ctx,
		Denormals: *denormals}
	if err := synth.Write(*out, opts); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%s, %s)\n", *out, *preset, t)
	return nil
}
