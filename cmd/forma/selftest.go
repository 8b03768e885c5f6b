package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/backendtest"
	"github.com/forma-llm/forma/accel/cpu"
	"github.com/forma-llm/forma/gguf/quant"
	"github.com/forma-llm/forma/internal/golden"
	"github.com/forma-llm/forma/internal/synth"
	"github.com/forma-llm/forma/runtime"
)

// forma selftest checks a backend on this machine's device: the conformance suite every backend passes in
// forma's own tests (accel/backendtest, with the very cases and data of the backend packages' TestConformance),
// then one model — a golden case of llama.cpp's logits when the reference data is at hand, else a synthesized
// model whose logits must equal the CPU backend's bit for bit. It prints a pass/fail table: the command a user
// runs to report a problem with a GPU.
func init() {
	register(command{name: "selftest", summary: "check a backend on this machine: conformance suite and one model, as a pass/fail table",
		run: runSelftest})
}

// selftestDevice is a backend's device, opened once for the self-test; each case gets a backend of its own
// on it.
type selftestDevice struct {
	desc       string
	newBackend func() (accel.Backend, error)
	close      func() error
}

// selftestDevices open each backend's device; files for optional backends add theirs in init.
var selftestDevices = map[string]func() (*selftestDevice, error){
	"cpu": func() (*selftestDevice, error) {
		return &selftestDevice{desc: fmt.Sprintf("this machine's CPU, %d threads", cpu.DefaultThreads()),
			newBackend: func() (accel.Backend, error) { return cpu.New(cpu.Options{}) }, close: func() error { return nil }}, nil
	},
}

// selftestGolden is the golden case the model check runs when the reference data is found: Q4_K weights,
// which Metal maps from the file in place, through a llama block.
const selftestGolden = "rand-llama-q4_k.short"

func runSelftest(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("selftest", "[--backend metal|vulkan|cpu|auto] [--short] [--testdata DIR] [-v]", stderr)
	name := fs.String("backend", "auto", "`backend` to check: metal, vulkan, cpu, or auto (the one --backend auto picks)")
	short := fs.Bool("short", false, "fewer shapes per case")
	data := fs.String("testdata", os.Getenv("FORMA_TESTDATA"), "reference data `folder` (forma's shared/testdata) for a golden case")
	verbose := fs.Bool("v", false, "print every case's messages, not only the failures'")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		fs.Usage()
		return errUsage
	}
	backend, dev, err := openSelftestDevice(*name, stderr)
	if err != nil {
		return err
	}
	defer dev.close()
	fmt.Fprintf(stdout, "forma selftest: %s backend on %s\n\n", backend, dev.desc)
	rep := backendtest.NewReporter("TestConformance", *short)
	backendtest.Run(rep, func(t *backendtest.Reporter) accel.Backend {
		be, err := dev.newBackend()
		if err != nil {
			t.Fatalf("opening a backend: %v", err)
		}
		return be
	})
	results := rep.Results()
	results = append(results, modelCheck(backend, dev, *data))
	return printSelftest(stdout, results, *verbose)
}

// openSelftestDevice opens the named backend's device; auto takes the first that opens in --backend auto's
// order, saying on stderr why it passed over the others.
func openSelftestDevice(name string, stderr io.Writer) (string, *selftestDevice, error) {
	if name != "auto" {
		open, ok := selftestDevices[name]
		if !ok {
			return "", nil, fmt.Errorf("unknown backend %q (known: %s)", name, knownBackends())
		}
		d, err := open()
		return name, d, err
	}
	for _, n := range autoOrder {
		open, ok := selftestDevices[n]
		if !ok {
			continue
		}
		d, err := open()
		if err == nil {
			return n, d, nil
		}
		if !errors.Is(err, errNotHere) {
			fmt.Fprintf(stderr, "forma: %s backend unavailable (%v); trying the next\n", n, err)
		}
	}
	return "", nil, errors.New("no backend could be opened")
}

// modelCheck runs one model on the device: the golden case when the reference data is found, else a
// synthesized model compared with the CPU backend.
func modelCheck(backend string, dev *selftestDevice, data string) backendtest.Result {
	start := time.Now()
	var res backendtest.Result
	if data != "" {
		if _, err := os.Stat(filepath.Join(data, "golden", selftestGolden+".meta.txt")); err == nil {
			res = goldenCheck(dev, data)
		}
	}
	if res.Name == "" {
		if backend == "cpu" {
			return backendtest.Result{Name: "model (synthesized)", Messages: []string{
				"skipped: the CPU backend is the reference; give --testdata for a golden case"}}
		}
		res = synthCheck(dev)
	}
	res.Elapsed = time.Since(start)
	return res
}

func goldenCheck(dev *selftestDevice, data string) backendtest.Result {
	res := backendtest.Result{Name: "model golden/" + selftestGolden}
	fail := func(err error) backendtest.Result {
		res.Failed, res.Messages = true, append(res.Messages, err.Error())
		return res
	}
	c, err := golden.Load(data, selftestGolden)
	if err != nil {
		return fail(err)
	}
	be, err := dev.newBackend()
	if err != nil {
		return fail(err)
	}
	defer be.Close()
	r, err := golden.Run(c, be, runtime.KVF32, golden.Strict)
	if err != nil {
		return fail(err)
	}
	res.Failed = len(r.Failures) > 0
	res.Messages = append(res.Messages, r.Summary())
	return res
}

// synthCheck writes a small random-weight llama (Q4_K) and compares every logit of a prompt and of greedy
// steps on the device with the CPU backend's: the GPU backends compute its results bit for bit.
func synthCheck(dev *selftestDevice) backendtest.Result {
	const preset, typ = "tiny-llama", quant.Q4_K
	res := backendtest.Result{Name: fmt.Sprintf("model %s %s (synthesized) = CPU", preset, typ)}
	fail := func(err error) backendtest.Result {
		res.Failed, res.Messages = true, append(res.Messages, err.Error())
		return res
	}
	dir, err := os.MkdirTemp("", "forma-selftest")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.gguf")
	if err := synth.Write(path, synth.Options{Preset: preset, Type: typ, Seed: 1}); err != nil {
		return fail(err)
	}
	prompt := []int32{1, 17, 300, 4, 922, 51, 8, 600}
	want, err := greedyLogits(path, nil, prompt, 8)
	if err != nil {
		return fail(fmt.Errorf("on the CPU: %w", err))
	}
	be, err := dev.newBackend()
	if err != nil {
		return fail(err)
	}
	got, err := greedyLogits(path, be, prompt, 8)
	be.Close()
	if err != nil {
		return fail(err)
	}
	diff, worst := 0, 0.0
	for i := range want {
		if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
			diff++
			worst = math.Max(worst, math.Abs(float64(want[i])-float64(got[i])))
		}
	}
	if diff > 0 {
		res.Failed = true
		res.Messages = append(res.Messages, fmt.Sprintf("%d of %d logits differ from the CPU backend's (largest difference %.3g)", diff, len(want), worst))
	} else {
		res.Messages = append(res.Messages, fmt.Sprintf("%d logits equal the CPU backend's", len(want)))
	}
	return res
}

// greedyLogits evaluates prompt (every row's logits) and steps greedy tokens on be (the CPU backend if nil) and
// returns all the logits.
func greedyLogits(path string, be accel.Backend, prompt []int32, steps int) ([]float32, error) {
	opt := runtime.Options{Backend: be}
	if be == nil {
		cb, err := cpu.New(cpu.Options{})
		if err != nil {
			return nil, err
		}
		opt.Backend, opt.CloseBackend = cb, true
	}
	m, err := runtime.Load(path, opt)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	s, err := m.NewSession(runtime.SessionOptions{Ctx: len(prompt) + steps + 1, KV: runtime.KVF32})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	out, err := s.Eval(prompt, true)
	if err != nil {
		return nil, err
	}
	all := append([]float32(nil), out...)
	last := out[len(out)-len(out)/len(prompt):]
	for i := 0; i < steps; i++ {
		tok := int32(golden.Argmax(last))
		if last, err = s.Eval([]int32{tok}, false); err != nil {
			return nil, err
		}
		all = append(all, last...)
	}
	return all, nil
}

// printSelftest prints the table and returns an error when a check failed.
func printSelftest(w io.Writer, results []backendtest.Result, verbose bool) error {
	width := len("check")
	for _, r := range results {
		width = max(width, len(r.Name))
	}
	fmt.Fprintf(w, "%-*s  %-6s  %s\n", width, "check", "result", "time")
	failed := 0
	for _, r := range results {
		status := "PASS"
		if r.Failed {
			status = "FAIL"
			failed++
		}
		fmt.Fprintf(w, "%-*s  %-6s  %.2fs\n", width, r.Name, status, r.Elapsed.Seconds())
		if r.Failed || verbose || strings.HasPrefix(r.Name, "model") {
			for _, m := range r.Messages {
				for _, line := range strings.Split(m, "\n") {
					fmt.Fprintf(w, "    %s\n", line)
				}
			}
		}
	}
	fmt.Fprintf(w, "\n%d checks: %d passed, %d failed\n", len(results), len(results)-failed, failed)
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(results))
	}
	return nil
}
