package main

import (
	"fmt"
	"io"

	"github.com/forma-llm/forma/internal/bundle"
	"github.com/forma-llm/forma/internal/modelinfo"
)

func init() {
	register(command{name: "info", summary: "describe a GGUF model (or a bundle's): shapes, tokenizer, memory needed", run: runInfo})
}

func runInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("info", "MODEL.gguf|BUNDLE [--ctx N] [--tensors] [--json]", stderr)
	ctx := fs.Int("ctx", 0, "context length for the memory estimate (default: the model's)")
	tensors := fs.Bool("tensors", false, "list every tensor: name, type, dims, bytes")
	asJSON := fs.Bool("json", false, "print everything as JSON (metadata and tensors included)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	if *ctx < 0 {
		return fmt.Errorf("--ctx %d: must be positive", *ctx)
	}
	f, err := bundle.OpenModel(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	if p, _ := bundle.Find(pos[0]); p != nil && !*asJSON {
		fmt.Fprintf(stdout, "forma bundle: the model is %d bytes at offset %d, sha256 %x\n\n", p.Size, p.Offset, p.Sum)
	}
	in, err := modelinfo.Read(f)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	if *asJSON {
		r, err := modelinfo.NewReport(f, in, *ctx)
		if err != nil {
			return err
		}
		return r.WriteJSON(stdout)
	}
	if err := in.WriteText(stdout, in.Estimate(*ctx)); err != nil {
		return err
	}
	if *tensors {
		fmt.Fprintln(stdout)
		return in.WriteTensors(stdout)
	}
	return nil
}
