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
	promptMain = ">>> "
	promptMore = "... "
	multiQuote = `"""`
	exitHint   = "Use Ctrl + d or /bye to exit."
	replHelp   = `Available commands:
  /set PARAMETER VALUE   set a sampling parameter: temperature, top_k, top_p, min_p, typical_p,
                         repeat_penalty, repeat_last_n, presence_penalty, frequency_penalty, seed, num_predict
  /set system MESSAGE    start over with a new system message
  /set verbose|quiet     show or hide speed statistics after each answer
  /show info             show the model and the current settings
  /clear                 clear the conversation
  /bye                   exit
  /?, /help              this help

Use """ to begin and end a multi-line message.
Ctrl-C stops an answer; Ctrl-D (on an empty line) exits.
`
)

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
		fmt.Fprint(r.out, replHelp)
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
	if len(args) != 2 {
		fmt.Fprintln(r.out, "Usage: /set PARAMETER VALUE (see /?)")
		return
	}
	if err := setParam(r.gen.Sampling, &r.gen.MaxTokens, args[0], args[1]); err != nil {
		fmt.Fprintf(r.out, "Couldn't set parameter: %v\n", err)
		return
	}
	fmt.Fprintf(r.out, "Set parameter '%s' to '%s'\n", args[0], args[1])
}

// setParam sets one sampling parameter by its ollama/llama.cpp name, validating the result.
func setParam(o *sample.Options, maxTokens *int, name, value string) error {
	next := *o
	f, ferr := strconv.ParseFloat(value, 32)
	i, ierr := strconv.Atoi(value)
	num := func(err error) error {
		if err != nil {
			return fmt.Errorf("%q is not a number", value)
		}
		return nil
	}
	var err error
	switch strings.ReplaceAll(name, "-", "_") {
	case "temperature", "temp":
		next.Temperature, err = float32(f), num(ferr)
	case "top_k":
		next.TopK, err = i, num(ierr)
	case "top_p":
		next.TopP, err = float32(f), num(ferr)
	case "min_p":
		next.MinP, err = float32(f), num(ferr)
	case "typical_p", "typical":
		next.TypicalP, err = float32(f), num(ferr)
	case "repeat_penalty":
		next.RepeatPenalty, err = float32(f), num(ferr)
	case "repeat_last_n":
		next.RepeatLastN, err = i, num(ierr)
	case "presence_penalty":
		next.PresPenalty, err = float32(f), num(ferr)
	case "frequency_penalty":
		next.FreqPenalty, err = float32(f), num(ferr)
	case "seed":
		s, serr := strconv.ParseUint(value, 10, 64)
		next.Seed, err = s, num(serr)
	case "num_predict", "n":
		if err = num(ierr); err == nil {
			*maxTokens = i
		}
		return err
	default:
		return fmt.Errorf("unknown parameter %q", name)
	}
	if err != nil {
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
	fmt.Fprintf(r.out, "  Parameters\n    temperature     %g\n    top_k           %d\n    top_p           %g\n    min_p           %g\n"+
		"    repeat_penalty  %g\n    repeat_last_n   %d\n    num_predict     %d\n",
		o.Temperature, o.TopK, o.TopP, o.MinP, o.RepeatPenalty, o.RepeatLastN, r.gen.MaxTokens)
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
