package bundle

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPlainFiles checks that executables as the Go linker writes them for every release target, a GGUF and
// other files carry no model: the image end computed for each format is the file's end, exactly.
func TestPlainFiles(t *testing.T) {
	text := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(text, []byte("not an executable"), 0o644)
	paths := []string{testModel(t, 1000), text, os.Args[0]}
	for _, tc := range targets {
		paths = append(paths, hello(t, tc.target))
	}
	for _, p := range paths {
		if got, err := Find(p); got != nil || err != nil {
			t.Errorf("Find(%s) = %+v, %v; want nothing", filepath.Base(p), got, err)
		}
	}
}

// TestWriteFind bundles a model into an executable of each release target and finds it again: at an aligned
// offset, with its checksum, readable as the same tensors through the mapping.
func TestWriteFind(t *testing.T) {
	model := testModel(t, 300_000)
	for _, tc := range targets {
		t.Run(strings.ReplaceAll(tc.target, "/", "-"), func(t *testing.T) {
			exe := hello(t, tc.target)
			out := filepath.Join(t.TempDir(), "chat")
			p, tgt, err := Write(Options{Exe: exe, Model: model, Out: out, Target: tc.target})
			if err != nil {
				t.Fatal(err)
			}
			if tgt.String() != tc.target {
				t.Errorf("target %s, want %s", tgt, tc.target)
			}
			found, err := Find(out)
			if err != nil || found == nil {
				t.Fatalf("Find: %+v, %v", found, err)
			}
			if *found != *p || found.Offset%Align != 0 {
				t.Fatalf("found %+v, wrote %+v", found, p)
			}
			if st, _ := os.Stat(out); st.Mode().Perm()&0o111 == 0 {
				t.Errorf("bundle mode %v: not executable", st.Mode())
			}
			f, err := found.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sameTensors(t, f, model)
			exeBytes, _ := os.ReadFile(exe)
			outBytes, _ := os.ReadFile(out)
			if tc.format != formatMachO && !bytes.HasPrefix(outBytes, exeBytes) {
				t.Errorf("the executable's bytes are not the bundle's first bytes")
			}
		})
	}
}

// TestDamaged cuts and corrupts bundles of each format and checks each is refused with an error that says what
// is wrong.
func TestDamaged(t *testing.T) {
	model := testModel(t, 300_000)
	for _, tc := range []string{"linux/amd64", "windows/amd64", "darwin/arm64"} {
		t.Run(strings.ReplaceAll(tc, "/", "-"), func(t *testing.T) {
			dir := t.TempDir()
			good := filepath.Join(dir, "good")
			p, _, err := Write(Options{Exe: hello(t, tc), Model: model, Out: good})
			if err != nil {
				t.Fatal(err)
			}
			orig, _ := os.ReadFile(good)
			trailerAt := int(p.Offset + p.Size)
			cases := []struct {
				name   string
				edit   func(b []byte) []byte
				want   string
				verify bool // the damage shows only when the model's bytes are hashed
			}{
				{"last byte cut", func(b []byte) []byte { return b[:len(b)-1] }, "truncated", false},
				{"half the model cut", func(b []byte) []byte { return b[:p.Offset+p.Size/2] }, "truncated", false},
				{"cut after the executable", func(b []byte) []byte { return b[:p.Offset+100] }, "truncated", false},
				{"trailer magic", func(b []byte) []byte { b[trailerAt] ^= 0xff; return b }, "trailer", false},
				{"trailer offset", func(b []byte) []byte { b[trailerAt+17] ^= 0x01; return b }, "offset", false},
				{"trailer size", func(b []byte) []byte { b[trailerAt+24] ^= 0x08; return b }, "bytes", false},
				{"model byte", func(b []byte) []byte { b[p.Offset+p.Size/2] ^= 0x10; return b }, "SHA-256", true},
				{"trailer checksum", func(b []byte) []byte { b[trailerAt+40] ^= 0x10; return b }, "SHA-256", true},
			}
			for _, c := range cases {
				bad := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
				os.WriteFile(bad, c.edit(bytes.Clone(orig)), 0o755)
				found, err := Find(bad)
				if c.verify {
					if err != nil {
						t.Fatalf("%s: Find: %v", c.name, err)
					}
					err = found.Verify()
				}
				if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: %v; want a damaged-bundle error mentioning %q", c.name, err, c.want)
				}
				if _, err := Open(bad); !errors.Is(err, ErrDamaged) {
					t.Errorf("%s: Open: %v", c.name, err)
				}
			}
		})
	}
}

func TestWriteErrors(t *testing.T) {
	model := testModel(t, 1000)
	exe := hello(t, "linux/amd64")
	dir := t.TempDir()
	bundled := filepath.Join(dir, "bundled")
	if _, _, err := Write(Options{Exe: exe, Model: model, Out: bundled}); err != nil {
		t.Fatal(err)
	}
	notModel := filepath.Join(dir, "notes.gguf")
	os.WriteFile(notModel, []byte("not a model"), 0o644)
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Exe: exe, Model: model, Target: "darwin/arm64"}, "not darwin/arm64"},
		{Options{Exe: exe, Model: model, Target: "darwin"}, "GOOS/GOARCH"},
		{Options{Exe: bundled, Model: model}, "already carries a model"},
		{Options{Exe: model, Model: model}, "not an executable"},
		{Options{Exe: exe, Model: notModel}, "notes.gguf"},
	} {
		c.o.Out = filepath.Join(dir, "out")
		if _, _, err := Write(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Write(%+v): %v, want an error containing %q", c.o, err, c.want)
		}
		if fileExists(c.o.Out) {
			t.Errorf("Write(%+v) failed but left %s", c.o, c.o.Out)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".forma-bundle-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestRunBundle starts a bundle of this platform: the system's loader must accept it as the executable it was
// (on macOS, with its new signature, which codesign must verify).
func TestRunBundle(t *testing.T) {
	target := runtime.GOOS + "/" + runtime.GOARCH
	exe := hello(t, target)
	out := filepath.Join(t.TempDir(), "chat")
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	if _, _, err := Write(Options{Exe: exe, Model: testModel(t, 100_000), Out: out}); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(out).CombinedOutput(); err != nil || string(b) != "hello\n" {
		t.Fatalf("running the bundle: %v, output %q", err, b)
	}
	if runtime.GOOS == "darwin" {
		if b, err := exec.Command("codesign", "--verify", "--strict", "--verbose=2", out).CombinedOutput(); err != nil {
			t.Fatalf("codesign --verify: %v\n%s", err, b)
		}
	}
}
