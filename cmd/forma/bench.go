package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/runtime"
)

func init() {
	register(command{name: "bench", summary: "measure prompt processing and generation speed (like llama-bench)", run: runBench})
}

// benchResult is one row of forma bench, named as llama-bench's JSON fields.
type benchResult struct {
	Model     string    `json:"model_filename"`
	ModelType string    `json:"model_type"`
	Size      int64     `json:"model_size"`
	Params    int64     `json:"model_n_params"`
	Backend   string    `json:"backend"`
	Threads   int       `json:"n_threads"`
	KV        string    `json:"type_kv"`
	Flash     bool      `json:"flash_attn"`
	NPrompt   int       `json:"n_prompt"`
	NGen      int       `json:"n_gen"`
	NDepth    int       `json:"n_depth"` // tokens of context before each test (-d)
	Test      string    `json:"test"`
	Median    float64   `json:"median_ts"`
	Avg       float64   `json:"avg_ts"`
	Stddev    float64   `json:"stddev_ts"`
	Samples   []float64 `json:"samples_ts"`
	SamplesNS []int64   `json:"samples_ns"`
	// With --json-schema, the tgN+schema row: the constraint's time per token (mean, 99th percentile, and the
	// mean of the first, cold run).
	SamplesCPUNS []int64 `json:"samples_cpu_ns,omitempty"` // process CPU time of each run (tgN+sample, tgN+schema)
	MaskMeanUS   float64 `json:"constraint_mean_us,omitempty"`
	MaskP99US    float64 `json:"constraint_p99_us,omitempty"`
	ColdMaskUS   float64 `json:"constraint_cold_us,omitempty"`
}

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", "-m MODEL [-p 512] [-n 128] [-d 0] [-r 3] [--parallel N] [-t N] [--backend NAME] [--kv TYPE] [--fa] [--json-schema FILE|JSON] [--json] [--cpuprofile FILE]", stderr)
	modelArg := fs.String("m", "", "model `file` or name")
	nPrompt := fs.Int("p", 512, "prompt `tokens` evaluated in one batch (0: skip)")
	nGen := fs.Int("n", 128, "`tokens` generated one at a time (0: skip)")
	reps := fs.Int("r", 3, "`repetitions` of each test")
	depth := fs.Int("d", 0, "`tokens` of context evaluated (untimed) before each test, as llama-bench -d")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	cpuProfile := fs.String("cpuprofile", "", "write a Go CPU profile of the measured runs to `file` (go tool pprof)")
	parallel := fs.Int("parallel", 0, "run `N` sequences together, as llama-batched-bench (aggregate and single-sequence t/s)")
	var cf constraintFlags
	fs.StringVar(&cf.schema, "json-schema", "", "also measure sampled generation without and with this JSON Schema (a `file`, or the schema itself)")
	be := addBackendFlags(fs, stderr)
	if _, err := parseFlags(fs, args); err != nil {
		return errUsage
	}
	if *modelArg == "" {
		fs.Usage()
		return errUsage
	}
	if *nPrompt < 0 || *nGen < 0 || *reps < 1 || *nPrompt+*nGen == 0 || *parallel < 0 || *depth < 0 {
		return errors.New("need -p ≥ 0, -n ≥ 0 (not both 0), -d ≥ 0, -r ≥ 1 and --parallel ≥ 0")
	}
	if *depth > 0 && (*parallel > 0 || cf.schema != "") {
		return errors.New("-d cannot be combined with --parallel or --json-schema")
	}
	if err := cf.read(); err != nil {
		return err
	}
	path, err := resolveModel(*modelArg)
	if err != nil {
		return err
	}
	m, closeAll, err := be.loadModel(path, runtime.Options{Parallel: max(*parallel, 1)}, isTerminal(stderr))
	if err != nil {
		return err
	}
	defer closeAll()
	fmt.Fprintf(stderr, "%s backend: %s\n", m.Backend.Caps().Name, m.Backend.Caps().Device) // which kernels (FORMA_CPU)
	if *parallel > 0 {
		if *cpuProfile != "" {
			stop, err := startProfile(*cpuProfile)
			if err != nil {
				return err
			}
			defer stop()
		}
		return benchParallel(m, path, be, *parallel, *nPrompt, *nGen, *reps, *asJSON, stdout)
	}
	// Passes of the prompt's size, and at least of llama-bench's 512 for the -d context (a generation test alone
	// would otherwise evaluate it one token a pass).
	batch := max(*nPrompt, min(*depth, 512), 1)
	s, err := m.NewSession(runtime.SessionOptions{Ctx: *depth + max(*nPrompt, *nGen, 1), KV: be.kvType, Batch: batch})
	if err != nil {
		return err
	}
	defer s.Close()
	base := describeModel(m, path)
	base.Backend, base.KV, base.NDepth = m.Backend.Caps().Name, be.kvType.String(), *depth
	base.Flash = be.fa || be.kvType.Quantized()
	ctxTokens := benchTokens(*depth, m.HParams().Vocab, -7)
	fill := func() error { // the -d context, the same every run (the engine may reuse its pages)
		if *depth == 0 {
			return nil
		}
		_, err := s.Eval(ctxTokens, false)
		return err
	}
	if t, ok := m.Backend.(interface{ Threads() int }); ok {
		base.Threads = t.Threads()
	}
	tokens := benchTokens(max(*nPrompt, 1), m.HParams().Vocab, 0)
	if *cpuProfile != "" {
		stop, err := startProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	var results []benchResult
	if *nPrompt > 0 {
		r := base
		r.NPrompt, r.Test = *nPrompt, fmt.Sprintf("pp%d", *nPrompt)+depthLabel(*depth)
		vocab := m.HParams().Vocab
		pp := func(rep int) error { _, err := s.Eval(benchTokens(*nPrompt, vocab, rep), false); return err }
		if err := measure(&r, *reps, *nPrompt, fill, pp, s); err != nil {
			return err
		}
		results = append(results, r)
	}
	if *nGen > 0 {
		r := base
		r.NGen, r.Test = *nGen, fmt.Sprintf("tg%d", *nGen)+depthLabel(*depth)
		step := func(int) error {
			for i := 0; i < *nGen; i++ {
				if _, err := s.Eval(tokens[i%len(tokens):i%len(tokens)+1], false); err != nil {
					return err
				}
			}
			return nil
		}
		if err := measure(&r, *reps, *nGen, fill, step, s); err != nil {
			return err
		}
		results = append(results, r)
		if cf.schemaJSON != nil {
			rs, err := benchSchema(s, base, *nGen, *reps, cf.schemaJSON)
			if err != nil {
				return err
			}
			results = append(results, rs...)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	printBenchTable(stdout, results)
	printMaskStats(stdout, results)
	return nil
}

// startProfile starts a CPU profile into the file at path; the returned function stops it and closes the file.
func startProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// depthLabel is llama-bench's suffix of a test at depth d (" @ d4096"), or "".
func depthLabel(d int) string {
	if d == 0 {
		return ""
	}
	return fmt.Sprintf(" @ d%d", d)
}

// measure runs fn once to warm up (compiling its programs), then reps times on an empty cache after prep (the
// -d context, untimed; nil for none), and records the tokens per second of each run. fn is given the run's
// index (-1 for the warm-up), so that each prompt is new to the engine's prefix cache.
func measure(r *benchResult, reps, tokens int, prep func() error, fn func(rep int) error, s *runtime.Session) error {
	for i := -1; i < reps; i++ {
		if err := s.Truncate(0); err != nil {
			return err
		}
		if prep != nil {
			if err := prep(); err != nil {
				return err
			}
		}
		start := time.Now()
		if err := fn(i); err != nil {
			return err
		}
		d := time.Since(start)
		if i >= 0 {
			r.SamplesNS = append(r.SamplesNS, d.Nanoseconds())
			r.Samples = append(r.Samples, float64(tokens)/d.Seconds())
		}
	}
	r.Median, r.Avg, r.Stddev = stats(r.Samples)
	return nil
}

func stats(x []float64) (median, mean, stddev float64) {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	median = s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	for _, v := range s {
		mean += v
	}
	mean /= float64(n)
	if n > 1 {
		for _, v := range s {
			stddev += (v - mean) * (v - mean)
		}
		stddev = math.Sqrt(stddev / float64(n-1))
	}
	return median, mean, stddev
}

// benchTokens returns n arbitrary valid token ids, the same every run for a given seed.
func benchTokens(n, vocab, seed int) []int32 {
	t := make([]int32, n)
	x := uint64(0x9e3779b97f4a7c15) + uint64(seed+1)*0x2545f4914f6cdd1d
	for i := range t {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		t[i] = int32(x % uint64(vocab))
	}
	return t
}

// describeModel fills the model columns: "arch params type", file size and parameter count.
func describeModel(m *runtime.Model, path string) benchResult {
	var params, bytes int64
	mix := map[quant.Type]int64{}
	for _, t := range m.File.Tensors {
		params += int64(t.Elements())
		bytes += int64(t.Size)
		if len(t.Dims) == 2 {
			mix[t.Type] += int64(t.Size)
		}
	}
	typ := ftypeName(m)
	if typ == "" {
		var best quant.Type
		for t, b := range mix {
			if b > mix[best] || (b == mix[best] && t < best) {
				best = t
			}
		}
		typ = strings.ToUpper(best.String())
	}
	return benchResult{Model: filepath.Base(path), ModelType: fmt.Sprintf("%s %s %s", m.HParams().Arch, paramLabel(params), typ),
		Size: bytes, Params: params}
}

// llamaFtypes names general.file_type values (llama.cpp's llama_ftype).
var llamaFtypes = map[int64]string{0: "all F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1",
	10: "Q2_K - Medium", 11: "Q3_K - Small", 12: "Q3_K - Medium", 13: "Q3_K - Large", 14: "Q4_K - Small",
	15: "Q4_K - Medium", 16: "Q5_K - Small", 17: "Q5_K - Medium", 18: "Q6_K", 25: "IQ4_NL", 30: "IQ4_XS", 32: "BF16",
	38: "MXFP4 MoE"}

func ftypeName(m *runtime.Model) string {
	v, err := m.File.Int("general.file_type")
	if err != nil {
		return ""
	}
	return llamaFtypes[v]
}

func paramLabel(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1fB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%.0fK", float64(n)/1e3)
}

func printBenchTable(w io.Writer, rs []benchResult) {
	fmt.Fprintf(w, "| %-30s | %10s | %10s | %-10s | %7s | %12s | %20s |\n", "model", "size", "params", "backend", "threads", "test", "t/s")
	fmt.Fprintf(w, "| %s | %s: | %s: | %s | %s: | %s: | %s: |\n", strings.Repeat("-", 30), strings.Repeat("-", 9),
		strings.Repeat("-", 9), strings.Repeat("-", 10), strings.Repeat("-", 6), strings.Repeat("-", 11), strings.Repeat("-", 19))
	for _, r := range rs {
		threads := "-"
		if r.Threads > 0 {
			threads = fmt.Sprint(r.Threads)
		}
		fmt.Fprintf(w, "| %-30s | %10s | %10s | %-10s | %7s | %12s | %20s |\n", r.ModelType, sizeLabel(r.Size),
			paramsLabel(r.Params), r.Backend, threads, r.Test, fmt.Sprintf("%.2f ± %.2f", r.Median, r.Stddev))
	}
}

func sizeLabel(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
}

func paramsLabel(n int64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.2f B", float64(n)/1e9)
	}
	return fmt.Sprintf("%.2f M", float64(n)/1e6)
}
