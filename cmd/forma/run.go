package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/forma-llm/forma/runtime"
	"github.com/forma-llm/forma/runtime/chat"
	"github.com/forma-llm/forma/runtime/sample"
)

func init() {
	register(command{name: "run", summary: "generate text or chat with a model (like ollama run / llama-cli)", run: runRun})
}

// stdin is the command's input; tests replace it.
var stdin *os.File = os.Stdin

// runFlags are the flags of forma run, named as llama-cli names them.
type runFlags struct {
	be         *backendFlags
	n          int
	ctx        int
	batch      int
	keep       int
	shift      bool
	system     string
	tmplVars   map[string]any
	template   string
	raw        bool
	verbose    bool
	printIDs   bool
	ignoreEOS  bool
	noPrompt   bool
	stop       stringList
	constraint constraintFlags
	sampling   sample.Options
	samplerSet map[string]bool
	draft      string // --draft MODEL
	spec       runtime.Speculation

	loadTime    time.Duration // of the model, for --verbose's start-up line
	showStartup bool          // --verbose, not interactive (the user's typing would count), and no answer yet
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func addRunFlags(fs *flag.FlagSet, stderr io.Writer) *runFlags {
	f := &runFlags{be: addBackendFlags(fs, stderr), sampling: sample.Defaults()}
	fs.IntVar(&f.n, "n", -1, "most `tokens` to generate per answer (-1: until the end or a full context)")
	fs.IntVar(&f.n, "n-predict", -1, "same as -n")
	fs.IntVar(&f.ctx, "c", 0, "context size in `tokens` (0: 4096, or the model's training context if smaller)")
	fs.IntVar(&f.ctx, "ctx", 0, "same as -c")
	fs.IntVar(&f.batch, "batch", runtime.DefaultBatch, "prompt `tokens` evaluated per pass")
	fs.IntVar(&f.batch, "b", runtime.DefaultBatch, "same as --batch")
	fs.IntVar(&f.keep, "keep", 0, "prompt `tokens` a context shift keeps (-1: all)")
	fs.BoolVar(&f.shift, "context-shift", false, "when the context is full, drop the oldest half of it (after --keep) and go on")
	fs.StringVar(&f.system, "system", "", "system `message` of the chat")
	fs.Func("chat-template-kwargs", "extra chat template variables, a JSON `object` (e.g. {\"enable_thinking\": false})",
		func(v string) error {
			if err := json.Unmarshal([]byte(v), &f.tmplVars); err != nil || f.tmplVars == nil {
				return fmt.Errorf("want a JSON object: %q", v)
			}
			return nil
		})
	fs.StringVar(&f.template, "chat-template", "", "chat template: Jinja `file` or a built-in name ("+builtinList()+")")
	fs.BoolVar(&f.raw, "raw", false, "plain completion: no chat template")
	fs.BoolVar(&f.verbose, "verbose", false, "print load and start-up times and prompt/generation speed on stderr")
	fs.BoolVar(&f.printIDs, "print-ids", false, "print the generated token ids on stderr (debugging)")
	fs.BoolVar(&f.ignoreEOS, "ignore-eos", false, "keep generating past end-of-generation tokens")
	fs.BoolVar(&f.noPrompt, "no-display-prompt", false, "with --raw, do not print the prompt before its continuation (never printed before constrained output)")
	fs.Var(&f.stop, "stop", "stop at this `text` (repeatable)")
	fs.StringVar(&f.draft, "draft", "", "speculative decoding: a smaller `model` with the same vocabulary drafts tokens")
	fs.IntVar(&f.spec.Max, "draft-max", runtime.DefaultDraftMax, "most draft `tokens` per step")
	fs.IntVar(&f.spec.Min, "draft-min", 0, "fewest draft `tokens` worth a step")
	fs.Func("draft-p-min", fmt.Sprintf("stop drafting below this `probability` (default %g)", runtime.DefaultDraftPMin), func(v string) error {
		p, err := strconv.ParseFloat(v, 32)
		f.spec.PMin = float32(p)
		return err
	})
	fs.IntVar(&f.spec.Lookup, "lookup", 0, "speculative decoding without a draft model: draft from earlier n-grams of the context up to `N` tokens")
	f.constraint.add(fs)
	f.addSamplingFlags(fs)
	return f
}

// addSamplingFlags adds a flag for each parameter of sample.Params that has one; a repeatable list flag
// replaces the default list with the values given.
func (f *runFlags) addSamplingFlags(fs *flag.FlagSet) {
	for _, p := range sample.Params() {
		if p.Flag == "" {
			continue
		}
		help := p.Help
		if p.GGUF != "" {
			help += " (default: the model's, else " + p.Value(f.sampling) + ")"
		} else if p.Kind != sample.Texts {
			help += " (default " + p.Value(f.sampling) + ")"
		}
		if p.Kind == sample.Texts {
			var list []string
			fs.Func(p.Flag, help, func(v string) error {
				if v != "none" {
					list = append(list, v)
				}
				b, _ := json.Marshal(list)
				return p.Set(&f.sampling, string(b))
			})
			continue
		}
		fs.Func(p.Flag, help, func(v string) error { return p.Set(&f.sampling, v) })
	}
}

// samplerOptions returns the model's sampling defaults with the flags given on the command line applied.
func (f *runFlags) samplerOptions(m *runtime.Model) sample.Options {
	o := m.Sampling()
	for _, p := range sample.Params() {
		if p.Flag != "" && f.samplerSet[p.Flag] {
			p.Copy(&o, &f.sampling)
		}
	}
	return o
}

func runRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", "[flags] MODEL [PROMPT] | -m MODEL [flags] [PROMPT]", stderr)
	f := addRunFlags(fs, stderr)
	modelFlag := fs.String("m", "", "model `file` or name (as llama-cli's -m; else the first argument)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return errUsage
	}
	if *modelFlag != "" {
		pos = append([]string{*modelFlag}, pos...)
	}
	if len(pos) == 0 {
		fs.Usage()
		return errUsage
	}
	f.samplerSet = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.samplerSet[fl.Name] = true })
	if err := f.sampling.Validate(); err != nil {
		return err
	}
	if err := f.constraint.read(); err != nil {
		return err
	}
	path, err := resolveOrPull(pos[0], stderr)
	if err != nil {
		return err
	}
	prompt, interactive, err := readPrompt(pos[1:])
	if err != nil {
		return err
	}
	tmplSrc, err := templateOverride(f.template)
	if err != nil {
		return err
	}
	start := time.Now()
	m, closeAll, err := f.be.loadModel(path, runtime.Options{ChatTemplate: tmplSrc, Parallel: 1}, isTerminal(stderr))
	if err != nil {
		return err
	}
	defer closeAll()
	f.loadTime = time.Since(start)
	if f.verbose {
		fmt.Fprintf(stderr, "loaded %s (%s, %s backend: %s) in %.0f ms\n", filepath.Base(path), m.HParams().Arch,
			m.Backend.Caps().Name, m.Backend.Caps().Device, ms(f.loadTime))
	}
	if !f.raw && tmplSrc == "" && !m.File.Has(chat.KeyTemplate) {
		f.raw = true // as llama-cli: no chat template, no conversation
		if f.verbose {
			fmt.Fprintln(stderr, "the model has no chat template: plain completion")
		}
	}
	s, err := m.NewSession(runtime.SessionOptions{Ctx: f.ctx, KV: f.be.kvType, Batch: f.batch,
		ContextShift: f.shift, Keep: f.keep, System: f.system, TemplateVars: f.tmplVars})
	if err != nil {
		return err
	}
	defer s.Close()
	gen := runtime.GenerateOptions{MaxTokens: f.n, Stop: f.stop, IgnoreEOG: f.ignoreEOS}
	if f.draft != "" || f.spec.Lookup > 0 {
		if f.draft != "" {
			dpath, err := resolveOrPull(f.draft, stderr)
			if err != nil {
				return err
			}
			dm, closeDraft, err := f.be.loadModel(dpath, runtime.Options{Parallel: 1}, false)
			if err != nil {
				return fmt.Errorf("draft model: %w", err)
			}
			defer closeDraft()
			f.spec.Draft = dm
		}
		gen.Speculation = &f.spec
	}
	f.constraint.apply(&gen)
	so := f.samplerOptions(m)
	gen.Sampling = &so
	f.showStartup = f.verbose && !interactive
	if interactive {
		r := &repl{m: m, s: s, f: f, gen: gen, in: stdin, out: stdout, errOut: stderr}
		return r.run()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if f.raw && !f.noPrompt && !f.constraint.set() {
		fmt.Fprint(stdout, prompt) // not before constrained output, which should parse as it is
	}
	if err := answer(ctx, s, prompt, f, gen, stdout, stderr); err != nil {
		if errors.Is(err, context.Canceled) {
			return errors.New("interrupted")
		}
		if errors.Is(err, runtime.ErrConstraint) {
			return badInput{err} // a token the grammar names that this vocabulary lacks, say
		}
		return err
	}
	return nil
}

// readPrompt returns the prompt from the arguments, else from stdin when it is not a terminal; on a terminal
// without arguments the session is interactive.
func readPrompt(args []string) (prompt string, interactive bool, err error) {
	if len(args) > 0 {
		prompt = strings.Join(args, " ")
	} else {
		if isTerminal(stdin) {
			return "", true, nil
		}
		b, err := io.ReadAll(stdin)
		if err != nil {
			return "", false, fmt.Errorf("reading the prompt from stdin: %w", err)
		}
		prompt = strings.TrimRight(string(b), "\n")
	}
	if prompt == "" {
		return "", false, errors.New("the prompt is empty")
	}
	return prompt, false, nil
}

// answer streams one answer (a chat turn, or a completion with --raw) to out and ends it with a newline.
func answer(ctx context.Context, s *runtime.Session, prompt string, f *runFlags, gen runtime.GenerateOptions, out, stderr io.Writer) error {
	seq := s.Chat(ctx, prompt, gen)
	if f.raw {
		seq = s.Generate(ctx, prompt, gen)
	}
	var ids []int32
	var err error
	last := byte('\n')
	for tok, e := range seq {
		if e != nil {
			err = e
			break
		}
		if tok.ID >= 0 && f.printIDs {
			ids = append(ids, tok.ID)
		}
		if tok.Text != "" {
			io.WriteString(out, tok.Text)
			last = tok.Text[len(tok.Text)-1]
		}
	}
	if last != '\n' {
		fmt.Fprintln(out)
	}
	if f.printIDs {
		fmt.Fprintf(stderr, "ids: %s\n", strings.Trim(fmt.Sprint(ids), "[]"))
	}
	if f.verbose {
		printStats(stderr, s.Stats())
	}
	if st := s.Stats(); f.showStartup && !st.PromptStart.IsZero() {
		fmt.Fprintf(stderr, "start-up: the first prompt token went to evaluation %.0f ms after forma started "+
			"(load %.0f ms)\n", ms(st.PromptStart.Sub(started)), ms(f.loadTime))
	}
	f.showStartup = false
	return err
}

func printStats(w io.Writer, st runtime.Stats) {
	rate := func(n int, d time.Duration) float64 {
		if d <= 0 {
			return 0
		}
		return float64(n) / d.Seconds()
	}
	evaluated := st.PromptTokens - st.CachedTokens
	if st.Stop == runtime.StopError && st.Generated == 0 {
		// refused or failed before an answer: no speed to report
		fmt.Fprintf(w, "stop: %s: the prompt of %d tokens gave no answer\n", st.Stop, st.PromptTokens)
		return
	}
	fmt.Fprintf(w, "prompt: %d tokens (%d cached), %.1f ms, %.2f t/s\n", st.PromptTokens, st.CachedTokens,
		float64(st.PromptTime.Microseconds())/1e3, rate(evaluated, st.PromptTime))
	if st.Drafted > 0 {
		fmt.Fprintf(w, "speculation: %d drafts, %d accepted (%.0f%%)\n", st.Drafted, st.Accepted, 100*float64(st.Accepted)/float64(st.Drafted))
	}
	fmt.Fprintf(w, "generation: %d tokens, %.1f ms, %.2f t/s\n", st.Generated,
		float64(st.GenTime.Microseconds())/1e3, rate(st.Generated, st.GenTime))
	fmt.Fprintf(w, "stop: %s, seed %d", st.Stop, st.Seed)
	if st.Shifts > 0 {
		fmt.Fprintf(w, ", %d context shifts", st.Shifts)
	}
	fmt.Fprintln(w)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
