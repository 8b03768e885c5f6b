package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"

	"github.com/forma-llm/forma/internal/bundle"
)

func init() {
	register(command{name: "bundle", summary: "write one executable that carries a model and opens its chat page",
		run: runBundle})
}

func runBundle(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bundle", "-m MODEL -o FILE [--target GOOS/GOARCH --from BINARY]", stderr)
	model := fs.String("m", "", "`model` to carry: a GGUF file or a model name")
	out := fs.String("o", "", "the executable to write")
	target := fs.String("target", "", "the `platform` (GOOS/GOARCH) of --from, checked (default: --from's own)")
	from := fs.String("from", "", "the forma `binary` to carry the model: that platform's release binary "+
		"(default: this one)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 || *model == "" || *out == "" {
		fs.Usage()
		return errUsage
	}
	here := goruntime.GOOS + "/" + goruntime.GOARCH
	if *from == "" {
		if *target != "" && *target != here {
			return fmt.Errorf("--target %s: give that platform's forma release binary with --from (this one is %s)",
				*target, here)
		}
		if *from, err = os.Executable(); err != nil {
			return err
		}
	}
	path, err := resolveModel(*model)
	if err != nil {
		return err
	}
	p, tgt, err := bundle.Write(bundle.Options{Exe: *from, Model: path, Out: *out, Target: *target})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: forma for %s carrying %s (%.1f MiB at offset %d)\n", *out, tgt,
		filepath.Base(path), float64(p.Size)/(1<<20), p.Offset)
	if tgt.GOOS == "windows" && !strings.HasSuffix(strings.ToLower(*out), ".exe") {
		fmt.Fprintf(stderr, "forma bundle: note: Windows starts only files named .exe; rename %s\n", *out)
	}
	fmt.Fprintf(stdout, "start it to chat in the browser, or with --no-browser to serve only\n")
	return nil
}
