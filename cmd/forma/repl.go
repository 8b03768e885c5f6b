package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/sample"
)

// repl is the interactive chat of forma run, modelled on ollama run: ">>> " prompts, `"""` for multi-line
// input, slash commands, Ctrl-C to stop an answer, Ctrl-D or /bye to leave. The terminal stays in its normal
// (line) mode: it echoes and edits the line, and turns Ctrl-C into SIGINT, which the REPL catches.
type repl struct {
	m      *runtime.Model
	s      *runtime.Session
	f      *runFlags
	gen    runtime.GenerateOptions
	in     io.Reader
	out    io.Writer
	errOut io.Writer

	transcript string // with --raw: the text so far, which each input extends
}

const (
	promptMain   = ">>> "
	promptMore   = "... "
	multiQuote   = `"""`
	exitHint     = "Use Ctrl + d or /bye to exit."
	replHelpTail = `  /set system MESSAGE    start over with a new system message
  /set verbose|quiet     show or hide speed statistics after each answer
  /show info             show the model and the current settings
  /clear                 clear the conversation
  /bye                   exit
  /?, /help              this help

Use """ to begin and end a multi-line message.
Ctrl-C stops an answer; Ctrl-D (on an empty line) exits.
`
)

// replHelp is the help of /?: the parameter names come from sample.Params.
func replHelp() string {
	var sb strings.Builder
	sb.WriteString("Available commands:\n  /set PARAMETER VALUE   set a sampling parameter:")
	col := 48
	for _, p := range sample.Params() {
		if col+len(p.Name)+2 > 110 {
			sb.WriteString("\n                        ")
			col = 24
		}
		sb.WriteString(" " + p.Name + ",")
		col += len(p.Name) + 2
	}
	sb.WriteString(" num_predict\n" + replHelpTail)
	return sb.String()
}

func (r *repl) run() error {
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(r.in)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)

	fmt.Fprintln(r.out, `Send a message (/? for help)`)
	var multi []string
	inMulti := false
	for {
		if inMulti {
			fmt.Fprint(r.out, promptMore)
		} else {
			fmt.Fprint(r.out, promptMain)
		}
		var line string
		select {
		case l, ok := <-lines:
			if !ok {
				fmt.Fprintln(r.out)
				return nil // Ctrl-D
			}
			line = l
		case <-sig:
			fmt.Fprintf(r.out, "\n%s\n", exitHint)
			inMulti, multi = false, nil
			continue
		}
		if inMulti {
			if body, done := strings.CutSuffix(line, multiQuote); done {
				multi = append(multi, body)
				inMulti = false
				r.ask(strings.Trim(strings.Join(multi, "\n"), "\n"), sig)
				multi = nil
			} else {
				multi = append(multi, line)
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, multiQuote); ok {
			if body, done := strings.CutSuffix(rest, multiQuote); done && len(rest) >= len(multiQuote) {
				r.ask(body, sig)
			} else {
				inMulti, multi = true, []string{rest}
			}
			continue
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "/"):
			if quit := r.command(line); quit {
				return nil
			}
		default:
			r.ask(line, sig)
		}
	}
}

// ask streams the answer to msg; SIGINT cancels it.
func (r *repl) ask(msg string, sig <-chan os.Signal) {
	if strings.TrimSpace(msg) == "" {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			cancel()
		case <-done:
		}
	}()
	prompt := msg
	if r.f.raw {
		if r.transcript != "" && !strings.HasSuffix(r.transcript, "\n") {
			r.transcript += "\n"
		}
		prompt = r.transcript + msg
	}
	err := answer(ctx, r.s, prompt, r.f, r.gen, r.out, r.errOut)
	close(done)
	if ctx.Err() != nil {
		fmt.Fprintln(r.out, "(stopped)")
	}
	cancel()
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(r.errOut, "error: %v\n", err)
		return
	}
	if r.f.raw {
		r.transcript = prompt + r.s.Reply()
	}
	fmt.Fprintln(r.out)
}

// command runs a slash command and reports whether the REPL should end.
func (r *repl) command(line string) bool {
	fields := strings.Fields(line)
	switch fields[0] {
	case "/bye", "/exit":
		return true
	case "/?", "/help":
		fmt.Fprint(r.out, replHelp())
	case "/clear":
		r.s.Reset()
		r.transcript = ""
		fmt.Fprintln(r.out, "Cleared session context")
	case "/show":
		if len(fields) > 1 && fields[1] == "info" {
			r.showInfo()
		} else {
			fmt.Fprintln(r.out, "Usage: /show info")
		}
	case "/set":
		r.set(fields[1:], line)
	default:
		fmt.Fprintf(r.out, "Unknown command '%s'. Type /? for help\n", fields[0])
	}
	return false
}

func (r *repl) set(args []string, line string) {
	if len(args) > 0 && args[0] == "parameter" { // ollama's spelling: /set parameter NAME VALUE
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(r.out, "Usage: /set PARAMETER VALUE (see /?)")
		return
	}
	switch args[0] {
	case "verbose":
		r.f.verbose = true
		fmt.Fprintln(r.out, "Set 'verbose' mode.")
		return
	case "quiet":
		r.f.verbose = false
		fmt.Fprintln(r.out, "Set 'quiet' mode.")
		return
	case "system":
		_, msg, _ := strings.Cut(line, "system")
		r.s.SetSystem(strings.TrimSpace(msg))
		fmt.Fprintln(r.out, "Set system message (the conversation starts over).")
		return
	}
	if len(args) < 2 {
		fmt.Fprintln(r.out, "Usage: /set PARAMETER VALUE (see /?)")
		return
	}
	_, value, _ := strings.Cut(line, args[0]) // the rest of the line: a list value may hold spaces
	value = strings.TrimSpace(value)
	if err := setParam(r.gen.Sampling, &r.gen.MaxTokens, args[0], value); err != nil {
		fmt.Fprintf(r.out, "Couldn't set parameter: %v\n", err)
		return
	}
	fmt.Fprintf(r.out, "Set parameter '%s' to '%s'\n", args[0], value)
}

// setParam sets one sampling parameter by its name in sample.Params (or num_predict), validating the result.
func setParam(o *sample.Options, maxTokens *int, name, value string) error {
	if name == "num_predict" || name == "n" {
		i, err := strconv.Atoi(value)
		if err != nil {
			return fmt.Errorf("%q is not a number", value)
		}
		*maxTokens = i
		return nil
	}
	p, ok := sample.Lookup(name)
	if !ok {
		return fmt.Errorf("unknown parameter %q", name)
	}
	next := *o
	if err := p.Set(&next, value); err != nil {
		return err
	}
	if err := next.Validate(); err != nil {
		return err
	}
	*o = next
	return nil
}

func (r *repl) showInfo() {
	hp := r.m.HParams()
	o := r.gen.Sampling
	fmt.Fprintf(r.out, "  Model\n    name            %s\n    architecture    %s\n    layers          %d\n    embedding       %d\n"+
		"    vocabulary      %d\n    context length  %d (training %d)\n    backend         %s\n",
		r.m.Name(), hp.Arch, hp.Layers, hp.Embd, hp.Vocab, r.s.Ctx(), hp.CtxTrain, r.m.Backend.Caps().Device)
	fmt.Fprintf(r.out, "  Parameters\n")
	for _, p := range sample.Params() {
		fmt.Fprintf(r.out, "    %-22s %s\n", p.Name, p.Value(*o))
	}
	fmt.Fprintf(r.out, "    %-22s %d\n", "num_predict", r.gen.MaxTokens)
	if sys := r.systemMessage(); sys != "" {
		fmt.Fprintf(r.out, "  System\n    %s\n", sys)
	}
}

func (r *repl) systemMessage() string {
	if h := r.s.History(); len(h) > 0 && h[0].Role == "system" {
		return h[0].Content
	}
	return ""
}
