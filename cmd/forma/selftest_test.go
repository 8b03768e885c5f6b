package main

import (
	"runtime"
	"strings"
	"testing"

	"github.com/forma-llm/forma/accel"
	"github.com/forma-llm/forma/accel/cpu"
)

// TestSelftest runs forma selftest on the CPU backend (and on Vulkan where there is a device): every row of the
// table passes, the suite's cases and the model check are there, and the status is 0.
func TestSelftest(t *testing.T) {
	for _, backend := range []string{"cpu", "vulkan"} {
		t.Run(backend, func(t *testing.T) {
			if backend == "vulkan" {
				needVulkan(t)
			}
			code, out, errOut := runCLI("selftest", "--backend", backend, "--short", "--testdata", "")
			if code != 0 {
				t.Fatalf("exit %d: %s\n%s", code, errOut, out)
			}
			for _, want := range []string{"forma selftest: " + backend + " backend on ", "ops/mat_mul ", "block/q8_0-f16-cache",
				"errors/closed", "model ", "0 failed"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "FAIL") {
				t.Errorf("a check failed:\n%s", out)
			}
		})
	}
}

// TestSelftestReportsFailures: a backend whose results are wrong gets FAIL rows with the reasons, and status 1.
func TestSelftestReportsFailures(t *testing.T) {
	selftestDevices["test-wrong"] = func() (*selftestDevice, error) {
		return &selftestDevice{desc: "a CPU backend that adds one to every output", close: func() error { return nil },
			newBackend: func() (accel.Backend, error) {
				be, err := cpu.New(cpu.Options{Threads: 1})
				return wrongBackend{be}, err
			}}, nil
	}
	defer delete(selftestDevices, "test-wrong")
	code, out, errOut := runCLI("selftest", "--backend", "test-wrong", "--short", "--testdata", "")
	if code != 1 || !strings.Contains(errOut, "checks failed") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "ops/add ") || !strings.Contains(out, "FAIL") || !strings.Contains(out, "values differ") ||
		!strings.Contains(out, "logits differ from the CPU backend's") {
		t.Errorf("output:\n%s", out)
	}
}

// TestMetalPhantom: off macOS, --backend metal says why in one line and fails; auto passes over Metal silently.
func TestMetalPhantom(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("Metal exists here")
	}
	code, _, errOut := runCLI("selftest", "--backend", "metal")
	if code != 1 || strings.TrimSpace(errOut) != "forma selftest: Metal needs macOS" {
		t.Errorf("selftest --backend metal: exit %d, stderr %q", code, errOut)
	}
	b := &backendFlags{name: "metal", kv: "f16", stderr: &strings.Builder{}}
	if _, err := b.open(); err == nil || err.Error() != "Metal needs macOS" {
		t.Errorf("--backend metal: %v", err)
	}
	var msgs strings.Builder
	b = &backendFlags{name: "auto", kv: "f16", stderr: &msgs}
	be, err := b.open()
	if err != nil {
		t.Fatal(err)
	}
	be.Close()
	if strings.Contains(msgs.String(), "metal") {
		t.Errorf("auto mentions Metal: %q", msgs.String())
	}
	code, out, _ := runCLI("info", "--devices")
	if code != 0 || !strings.Contains(out, "metal: unavailable: Metal needs macOS") {
		t.Errorf("info --devices: exit %d:\n%s", code, out)
	}
}

// wrongBackend is a backend whose programs read one more than they computed.
type wrongBackend struct{ accel.Backend }

func (b wrongBackend) Compile(g *accel.Graph, opt accel.CompileOptions) (accel.Program, error) {
	p, err := b.Backend.Compile(g, opt)
	return wrongProgram{p}, err
}

type wrongProgram struct{ accel.Program }

func (p wrongProgram) Read(t accel.Tensor, dst []float32) error {
	err := p.Program.Read(t, dst)
	for i := range dst {
		dst[i]++
	}
	return err
}
