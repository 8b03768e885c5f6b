// Command forma runs large language models from GGUF files.
//
// Each subcommand lives in its own file and registers itself in init; main dispatches on the first argument.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/forma-llm/forma/gguf/quant"
)

// command is one subcommand. run receives the arguments after the subcommand's name and its output streams;
// an error it returns is printed as one line on stderr and makes forma exit with status 1.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(c command) { commands[c.name] = c }

// errUsage is returned after a usage message has been printed; main then exits with status 2.
var errUsage = errors.New("usage")

// started is when forma's main package was initialized: after the Go runtime and the packages it imports
// (GODEBUG=inittrace=1 shows what those take). forma run --verbose reports start-up from here.
var started = time.Now()

// badInput marks an error in what the user gave beyond the flags' syntax (a grammar, a JSON schema): main prints
// it and exits with status 2, as for a usage error.
type badInput struct{ error }

func (e badInput) Unwrap() error { return e.error }

func main() { os.Exit(entry(os.Args[1:])) }

// entry runs forma with the command line's arguments: a desktop launch (see desktopLaunch) runs the app with
// them, anything else is a command.
func entry(args []string) int {
	if desktopLaunch(args) {
		args = append([]string{"app"}, args...)
	}
	return mainArgs(args, os.Stdout, os.Stderr)
}

func mainArgs(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if err := quant.CheckCPU(); err != nil { // FORMA_CPU, read at start-up
		fmt.Fprintf(stderr, "forma: %v\n", err)
		return 2
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "forma: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	err := c.run(args[1:], stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage), errors.Is(err, flag.ErrHelp):
		return 2
	case errors.As(err, new(badInput)):
		fmt.Fprintf(stderr, "forma %s: %v\n", c.name, err)
		return 2
	default:
		fmt.Fprintf(stderr, "forma %s: %v\n", c.name, err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: forma COMMAND [flags] [args]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'forma COMMAND -h' for a command's flags.")
}

// newFlags returns a flag set that reports errors (not exits) and prints its usage to stderr.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("forma "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: forma %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, allowing flags after positional arguments (forma info MODEL --json), and returns the
// positional arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
