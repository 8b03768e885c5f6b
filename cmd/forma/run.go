package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
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
	template   string
	raw        bool
	verbose    bool
	printIDs   bool
	ignoreEOS  bool
	noPrompt   bool
	stop       stringList
	constraint constraintFlags
	seed       int64
	sampling   sample.Options
	samplerSet map[string]bool
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
	fs.StringVar(&f.template, "chat-template", "", "chat template: Jinja `file` or a built-in name ("+builtinList()+")")
	fs.BoolVar(&f.raw, "raw", false, "plain completion: no chat template")
	fs.BoolVar(&f.verbose, "verbose", false, "print load time and prompt/generation speed on stderr")
	fs.BoolVar(&f.printIDs, "print-ids", false, "print the generated token ids on stderr (debugging)")
	fs.BoolVar(&f.ignoreEOS, "ignore-eos", false, "keep generating past end-of-generation tokens")
	fs.BoolVar(&f.noPrompt, "no-display-prompt", false, "with --raw, do not print the prompt before its continuation (never printed before constrained output)")
	fs.Var(&f.stop, "stop", "stop at this `text` (repeatable)")
	f.constraint.add(fs)
	fs.Int64Var(&f.seed, "seed", -1, "random `seed` (-1: a new one each run)")
	s := &f.sampling
	fs.Func("temp", "sampling `temperature` (0: greedy; default: the model's, else 0.8)", floatFlag(&s.Temperature))
	fs.IntVar(&s.TopK, "top-k", s.TopK, "top-k `k` (0: off; default: the model's, else 40)")
	fs.Func("top-p", "top-p `p` (1: off; default: the model's, else 0.95)", floatFlag(&s.TopP))
	fs.Func("min-p", "min-p `p` (0: off; default: the model's, else 0.05)", floatFlag(&s.MinP))
	fs.Func("typical", "locally typical `p` (1: off)", floatFlag(&s.TypicalP))
	fs.Func("repeat-penalty", "repetition `penalty` (1: off)", floatFlag(&s.RepeatPenalty))
	fs.IntVar(&s.RepeatLastN, "repeat-last-n", s.RepeatLastN, "`tokens` the penalties look back on (-1: the context)")
	fs.Func("presence-penalty", "presence `penalty` (0: off)", floatFlag(&s.PresPenalty))
	fs.Func("frequency-penalty", "frequency `penalty` (0: off)", floatFlag(&s.FreqPenalty))
	return f
}

func floatFlag(dst *float32) func(string) error {
	return func(v string) error {
		var x float32
		if _, err := fmt.Sscan(v, &x); err != nil {
			return fmt.Errorf("%q is not a number", v)
		}
		*dst = x
		return nil
	}
}

// samplingFlags maps flag names to the sampler fields they set (to take the others from the model).
var samplingFlags = []string{"temp", "top-k", "top-p", "min-p", "typical", "repeat-penalty", "repeat-last-n",
	"presence-penalty", "frequency-penalty"}

// samplerOptions returns the model's sampling defaults with the flags given on the command line applied.
func (f *runFlags) samplerOptions(m *runtime.Model) sample.Options {
	o := m.Sampling()
	for _, name := range samplingFlags {
		if f.samplerSet[name] {
			setSampling(&o, name, &f.sampling)
		}
	}
	if f.seed >= 0 {
		o.Seed = uint64(f.seed)
	}
	return o
}

func setSampling(o *sample.Options, name string, from *sample.Options) {
	switch name {
	case "temp":
		o.Temperature = from.Temperature
	case "top-k":
		o.TopK = from.TopK
	case "top-p":
		o.TopP = from.TopP
	case "min-p":
		o.MinP = from.MinP
	case "typical":
		o.TypicalP = from.TypicalP
	case "repeat-penalty":
		o.RepeatPenalty = from.RepeatPenalty
	case "repeat-last-n":
		o.RepeatLastN = from.RepeatLastN
	case "presence-penalty":
		o.PresPenalty = from.PresPenalty
	case "frequency-penalty":
		o.FreqPenalty = from.FreqPenalty
	}
}

func runRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", "[flags] MODEL [PROMPT]", stderr)
	f := addRunFlags(fs, stderr)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return errUsage
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
	path, err := resolveModel(pos[0])
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
	m, closeAll, err := f.be.loadModel(path, runtime.Options{ChatTemplate: tmplSrc}, isTerminal(stderr))
	if err != nil {
		return err
	}
	defer closeAll()
	if f.verbose {
		fmt.Fprintf(stderr, "loaded %s (%s, %s backend) in %.0f ms\n", filepath.Base(path), m.HParams().Arch,
			m.Backend.Caps().Name, msSince(start))
	}
	if !f.raw && tmplSrc == "" && !m.File.Has(chat.KeyTemplate) {
		f.raw = true // as llama-cli: no chat template, no conversation
		if f.verbose {
			fmt.Fprintln(stderr, "the model has no chat template: plain completion")
		}
	}
	s, err := m.NewSession(runtime.SessionOptions{Ctx: f.ctx, KV: f.be.kvType, Batch: f.batch,
		ContextShift: f.shift, Keep: f.keep, System: f.system})
	if err != nil {
		return err
	}
	defer s.Close()
	gen := runtime.GenerateOptions{MaxTokens: f.n, Stop: f.stop, IgnoreEOG: f.ignoreEOS}
	f.constraint.apply(&gen)
	so := f.samplerOptions(m)
	gen.Sampling = &so
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
	fmt.Fprintf(w, "prompt: %d tokens (%d cached), %.1f ms, %.2f t/s\n", st.PromptTokens, st.CachedTokens,
		float64(st.PromptTime.Microseconds())/1e3, rate(evaluated, st.PromptTime))
	fmt.Fprintf(w, "generation: %d tokens, %.1f ms, %.2f t/s\n", st.Generated,
		float64(st.GenTime.Microseconds())/1e3, rate(st.Generated, st.GenTime))
	fmt.Fprintf(w, "stop: %s, seed %d", st.Stop, st.Seed)
	if st.Shifts > 0 {
		fmt.Fprintf(w, ", %d context shifts", st.Shifts)
	}
	fmt.Fprintln(w)
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1e3 }

// isTerminal reports whether w is a terminal.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
