package bundle

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/forma-llm/forma/gguf"
	"github.com/forma-llm/forma/gguf/quant"
)

// targets are the platforms forma releases for, with their executable format.
var targets = []struct {
	target string
	format format
}{
	{"linux/amd64", formatELF}, {"linux/arm64", formatELF}, {"windows/amd64", formatPE},
	{"darwin/arm64", formatMachO}, {"darwin/amd64", formatMachO},
}

var built struct {
	sync.Mutex
	dir   string
	paths map[string]string
}

// hello returns a small Go program built for target (once per test binary): an executable of that platform's
// format, as the Go linker writes it (signed ad hoc on darwin/arm64). ldflags go to the linker ("-s -w" strips,
// as release builds do).
func hello(t *testing.T, target string, ldflags ...string) string {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	key := target + " " + strings.Join(ldflags, " ")
	if p, ok := built.paths[key]; ok {
		return p
	}
	if built.paths == nil {
		dir, err := os.MkdirTemp("", "forma-bundle-test-")
		if err != nil {
			t.Fatal(err)
		}
		built.dir, built.paths = dir, map[string]string{}
		src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"
		if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.22\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tgt, _ := ParseTarget(target)
	out := filepath.Join(built.dir, fmt.Sprintf("hello-%s-%s-%d", tgt.GOOS, tgt.GOARCH, len(built.paths)))
	cmd := exec.Command(goTool(), "build", "-trimpath", "-ldflags="+strings.Join(ldflags, " "), "-o", out, ".")
	cmd.Dir = built.dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+tgt.GOOS, "GOARCH="+tgt.GOARCH, "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building a %s executable: %v\n%s", target, err, b)
	}
	built.paths[key] = out
	return out
}

func goTool() string {
	if p := filepath.Join(runtime.GOROOT(), "bin", "go"); fileExists(p) {
		return p
	}
	return "go"
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// testModel writes a small GGUF (two F32 tensors of known values) of about n bytes and returns its path.
func testModel(t *testing.T, n int) string {
	t.Helper()
	rows := max(n/(4*64)/2, 1)
	data := func(seed int) []byte {
		b := make([]byte, 4*64*rows)
		for i := range b {
			b[i] = byte(i*31 + seed)
		}
		return b
	}
	spec := gguf.Spec{
		KV: []gguf.KV{{Key: gguf.KeyArchitecture, Value: gguf.NewString("test")}},
		Tensors: []gguf.WriteTensor{
			{Name: "a", Type: quant.F32, Dims: []uint64{64, uint64(rows)}, Data: gguf.BytesData(data(1))},
			{Name: "b", Type: quant.F32, Dims: []uint64{64, uint64(rows)}, Data: gguf.BytesData(data(2))},
		},
	}
	path := filepath.Join(t.TempDir(), fmt.Sprintf("model-%d.gguf", n))
	if err := gguf.WriteFile(path, spec); err != nil {
		t.Fatal(err)
	}
	return path
}

// sameTensors checks that the bundle's model reads as the original GGUF, tensor by tensor.
func sameTensors(t *testing.T, got *gguf.File, modelPath string) {
	t.Helper()
	want, err := gguf.Open(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	if len(got.Tensors) != len(want.Tensors) {
		t.Fatalf("%d tensors, want %d", len(got.Tensors), len(want.Tensors))
	}
	for _, ti := range want.Tensors {
		a, err1 := got.Tensor(ti.Name)
		b, err2 := want.Tensor(ti.Name)
		if err1 != nil || err2 != nil || !bytes.Equal(a.Data, b.Data) {
			t.Errorf("tensor %s differs (%v, %v)", ti.Name, err1, err2)
		}
	}
}
