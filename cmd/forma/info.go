package main

import (
	"fmt"
	"io"
	"time"

	"github.com/forma-llm/forma/hub"
	"github.com/forma-llm/forma/internal/bundle"
	"github.com/forma-llm/forma/internal/modelinfo"
)

func init() {
	register(command{name: "info", summary: "describe a GGUF model (or a bundle's): shapes, tokenizer, memory needed", run: infoCommand("info")})
	register(command{name: "show", summary: "describe a model by name (forma info on it)", run: infoCommand("show")})
}

// infoCommand is forma info, and forma show by its other name.
func infoCommand(name string) func(args []string, stdout, stderr io.Writer) error {
	return func(args []string, stdout, stderr io.Writer) error { return runInfo(name, args, stdout, stderr) }
}

func runInfo(name string, args []string, stdout, stderr io.Writer) error {
	fs := newFlags(name, "MODEL|BUNDLE [--ctx N] [--tensors] [--json]", stderr)
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
	m, err := modelClient().Resolve(pos[0])
	if err != nil {
		return err
	}
	f, err := bundle.OpenModel(m.Path)
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
	if m.Manifest != nil {
		writeStoreInfo(stdout, m)
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

// writeStoreInfo says where a named model comes from and which files it has.
func writeStoreInfo(w io.Writer, m *hub.Model) {
	mf := m.Manifest
	line := func(label, format string, args ...any) {
		fmt.Fprintf(w, "%-16s  "+format+"\n", append([]any{label}, args...)...)
	}
	line("store name", "%s", mf.Name)
	line("source", "%s", mf.Source)
	if mf.Revision != "" {
		line("revision", "%s", mf.Revision)
	}
	if !mf.PulledAt.IsZero() {
		line("pulled", "%s", mf.PulledAt.Local().Format(time.DateTime))
	}
	for i, f := range mf.Files {
		label := ""
		if i == 0 {
			label = "files"
		}
		line(label, "%-8s %10s  %s  %s", f.Role, hub.HumanBytes(f.Size), f.Digest, f.Path)
	}
}
