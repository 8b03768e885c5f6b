package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"text/tabwriter"
	"time"

	"github.com/forma-llm/forma/hub"
)

func init() {
	register(command{name: "pull", summary: "download a model from Hugging Face or Ollama's registry", run: runPull})
	register(command{name: "list", summary: "list the models in the store", run: runList})
	register(command{name: "rm", summary: "remove models from the store", run: runRm})
}

func runPull(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("pull", "REF [--registry hf|ollama] [--mmproj] [--quiet]\n\n"+
		"REF: hf.co/ORG/REPO[:QUANT] or ORG/REPO[:QUANT] (Hugging Face; QUANT defaults to "+hub.DefaultQuant+"),\n"+
		"     ollama.com/[NAMESPACE/]NAME[:TAG] or NAME[:TAG] (Ollama's registry)", stderr)
	registry := fs.String("registry", "", "`registry` for a REF without a host: hf or ollama")
	mmproj := fs.Bool("mmproj", false, "also pull the repository's vision projector (mmproj)")
	quiet := fs.Bool("quiet", false, "print nothing but errors")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return errUsage
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pr := newPullProgress(stderr, *quiet)
	m, err := modelClient().Pull(ctx, pos[0], hub.PullOptions{Registry: hub.Registry(*registry), MMProj: *mmproj,
		Progress: pr.report})
	pr.finish(err)
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted (run the same pull again to resume)")
	}
	if err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stdout, "%s (%s) %s\n", m.Name, hub.HumanBytes(m.Manifest.Size), m.Path)
	}
	return nil
}

func runList(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("list", "[--json]", stderr)
	asJSON := fs.Bool("json", false, "print JSON: name, path, size, quant, architecture, modified, source")
	pos, err := parseFlags(fs, args)
	if err != nil || len(pos) != 0 {
		return errUsage
	}
	list, err := modelClient().List()
	if err != nil {
		return err
	}
	if *asJSON {
		if list == nil {
			list = []hub.Entry{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSIZE\tQUANT\tARCH\tMODIFIED")
	for _, e := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Name, hub.HumanBytes(e.Size), dash(e.Quant), dash(e.Architecture),
			e.Modified.Local().Format(time.DateTime))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func runRm(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("rm", "NAME...", stderr)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return errUsage
	}
	if len(pos) == 0 {
		fs.Usage()
		return errUsage
	}
	c := modelClient()
	var errs []error
	for _, name := range pos {
		m, err := c.Remove(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(stdout, "deleted %s\n", m.Name)
	}
	return errors.Join(errs...)
}
